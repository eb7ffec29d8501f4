/* sync_math.h (internal): the arithmetic of clock synchronization, with no
 * MPI, so it is unit-tested on synthetic exchanges with known offsets and
 * drift. */
#ifndef MPISCOPE_SYNC_MATH_H
#define MPISCOPE_SYNC_MATH_H

/* Minimum-RTT tracker of one pair (client i, server r): T_r = T_i + offset. */
typedef struct mpiscope__rtt_tracker {
    double rtt_min_ns;
    double offset_ns; /* estimate from the exchange with the minimum RTT */
    double at_ns;     /* client time of that exchange (midpoint of its round trip) */
    unsigned exchanges;
    unsigned since_improvement;
} mpiscope__rtt_tracker_t;

void mpiscope__rtt_tracker_reset(mpiscope__rtt_tracker_t *t);

/* One exchange: client sent at t_send (client clock), server answered with
 * its clock t_server, client received at t_recv. Returns 1 when the pair is
 * done: no better RTT for `patience` exchanges, or `max_exchanges` made. */
int mpiscope__rtt_tracker_add(mpiscope__rtt_tracker_t *t, double t_send, double t_server, double t_recv,
                              unsigned patience, unsigned max_exchanges);

/* A clock model: other = local + offset_ns + drift * (local - t_ref_ns),
 * true within error_ns + drift_error * |local - t_ref_ns| (worst case,
 * not a standard deviation). drift_error < 0: drift not estimated (one
 * fit point), the model assumes none. hops: pairwise steps composed. */
typedef struct mpiscope__clock_model {
    double offset_ns, drift, t_ref_ns, error_ns, drift_error;
    int hops;
} mpiscope__clock_model_t;

/* The identity: rank 0's model of itself. */
void mpiscope__model_identity(mpiscope__clock_model_t *m);

static inline double mpiscope__model_global(const mpiscope__clock_model_t *m, double local_ns)
{
    return local_ns + m->offset_ns + m->drift * (local_ns - m->t_ref_ns);
}

/* The local time at which the model reads `global_ns` (its inverse). */
static inline double mpiscope__model_local(const mpiscope__clock_model_t *m, double global_ns)
{
    return (global_ns - m->offset_ns + m->drift * m->t_ref_ns) / (1 + m->drift);
}

/* Models travel between ranks as MPISCOPE__MODEL_DOUBLES doubles. */
enum { MPISCOPE__MODEL_DOUBLES = 6 };
void mpiscope__model_pack(const mpiscope__clock_model_t *m, double v[MPISCOPE__MODEL_DOUBLES]);
void mpiscope__model_unpack(const double v[MPISCOPE__MODEL_DOUBLES], mpiscope__clock_model_t *m);

/* The error bound of the model at local time t. */
double mpiscope__model_error_at(const mpiscope__clock_model_t *m, double local_ns);

/* One fit point: the minimum-RTT offset of a pair at client time at_ns,
 * true within half_rtt_ns (the server read its clock inside the round trip). */
typedef struct mpiscope__fit_point {
    double at_ns, offset_ns, half_rtt_ns;
} mpiscope__fit_point_t;

/* Least-squares line through n >= 1 fit points, t_ref at their mean time
 * (where the intercept is the mean of the offsets, so its error is at most
 * the largest half RTT). read_error_ns: what one clock read may be off by
 * (jitter, resolution), counted three times per exchange (two client
 * reads, one server read). drift_error: the worst slope error the points'
 * intervals allow, sum |t - mean| / sum (t - mean)^2 times that bound.
 * One point (or points at one time): offset only, drift_error -1.
 * Returns 0, or -1 for n == 0. */
int mpiscope__model_fit(const mpiscope__fit_point_t *pts, unsigned n, double read_error_ns,
                        mpiscope__clock_model_t *out);

/* Compose: `pair` maps the client's clock to the server's, `server` the
 * server's to the global one; *out maps the client's to the global one at
 * the pair's t_ref. Errors add (the server's at the client's t_ref), hops
 * add. out may alias neither input. */
void mpiscope__model_compose(const mpiscope__clock_model_t *pair, const mpiscope__clock_model_t *server,
                             mpiscope__clock_model_t *out);

/* Ring: pairs[i] maps rank i's clock to rank i-1's ([0] unused); writes
 * models[i] mapping rank i's clock to rank 0's (composed along the ring:
 * errors add up over i hops). */
void mpiscope__ring_models(const mpiscope__clock_model_t *pairs, int n, mpiscope__clock_model_t *models);

/* Tree (binomial, rooted at 0): in round k = 0, 1, ..., ranks r < 2^k pair
 * with r + 2^k. Rank i's server (partner) and the round it pairs in; rank
 * 0 has none (-1). Hops from rank i to 0: its number of set bits. */
int mpiscope__tree_parent(int rank);
int mpiscope__tree_rounds(int n);

/* The clock truth of an injected transform: rank i reads
 * local_i(t) = t (1 + d_i) + o_i (t: the shared raw clock). The model that
 * maps rank i's local time to rank 0's at t_ref_ns: *offset_ns at t_ref,
 * *drift (dimensionless). d in ppm. */
void mpiscope__transform_truth(double o_i_ns, double d_i_ppm, double o_0_ns, double d_0_ppm, double t_ref_ns,
                               double *offset_ns, double *drift);

#endif
