/* sync_math.c: minimum-RTT offset estimation and ring accumulation. */
#include <math.h>
#include "sync_math.h"

void mpiscope__rtt_tracker_reset(mpiscope__rtt_tracker_t *t)
{
    t->rtt_min_ns = INFINITY;
    t->offset_ns = 0;
    t->exchanges = 0;
    t->since_improvement = 0;
}

int mpiscope__rtt_tracker_add(mpiscope__rtt_tracker_t *t, double t_send, double t_server,
                              double t_recv, unsigned patience, unsigned max_exchanges)
{
    double rtt = t_recv - t_send;
    t->exchanges++;
    /* Equal forward and return times assumed: the server read its clock at
     * the midpoint of the client's round trip. */
    if (rtt >= 0 && rtt < t->rtt_min_ns) {
        t->rtt_min_ns = rtt;
        t->offset_ns = t_server - 0.5 * (t_send + t_recv);
        t->since_improvement = 0;
    } else {
        t->since_improvement++;
    }
    return t->since_improvement >= patience || t->exchanges >= max_exchanges;
}

void mpiscope__ring_offsets(const double *pair_offsets, int n, double *offsets)
{
    if (n <= 0)
        return;
    offsets[0] = 0;
    for (int i = 1; i < n; i++)
        offsets[i] = offsets[i - 1] + pair_offsets[i];
}
