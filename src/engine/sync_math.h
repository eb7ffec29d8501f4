/* sync_math.h (internal): the arithmetic of clock synchronisation, with no
 * MPI, so it is unit-tested on synthetic exchanges with known offsets. */
#ifndef MPISCOPE_SYNC_MATH_H
#define MPISCOPE_SYNC_MATH_H

/* Minimum-RTT tracker of one pair (client i, server r): T_r = T_i + offset. */
typedef struct mpiscope__rtt_tracker {
    double rtt_min_ns;
    double offset_ns;           /* estimate from the exchange with the minimum RTT */
    unsigned exchanges;
    unsigned since_improvement;
} mpiscope__rtt_tracker_t;

void mpiscope__rtt_tracker_reset(mpiscope__rtt_tracker_t *t);

/* One exchange: client sent at t_send (client clock), server answered with
 * its clock t_server, client received at t_recv. Returns 1 when the pair is
 * done: no better RTT for `patience` exchanges, or `max_exchanges` made. */
int mpiscope__rtt_tracker_add(mpiscope__rtt_tracker_t *t, double t_send, double t_server,
                              double t_recv, unsigned patience, unsigned max_exchanges);

/* Ring: pair_offsets[i] is o_{i,i-1} (T_{i-1} = T_i + o_{i,i-1}), [0] unused.
 * Writes offsets[i] = o_i to rank 0 (the prefix sums along the ring). */
void mpiscope__ring_offsets(const double *pair_offsets, int n, double *offsets);

#endif
