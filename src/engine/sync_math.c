/* sync_math.c: minimum-RTT offsets, drift fitted by regression, models
 * composed along a ring or a tree, and the truth of an injected transform. */
#include <math.h>
#include "sync_math.h"

void mpiscope__rtt_tracker_reset(mpiscope__rtt_tracker_t *t)
{
    t->rtt_min_ns = INFINITY;
    t->offset_ns = 0;
    t->at_ns = 0;
    t->exchanges = 0;
    t->since_improvement = 0;
}

int mpiscope__rtt_tracker_add(mpiscope__rtt_tracker_t *t, double t_send, double t_server, double t_recv,
                              unsigned patience, unsigned max_exchanges)
{
    double rtt = t_recv - t_send;
    t->exchanges++;
    /* Equal forward and return times assumed: the server read its clock at
     * the midpoint of the client's round trip. */
    if (rtt >= 0 && rtt < t->rtt_min_ns) {
        t->rtt_min_ns = rtt;
        t->at_ns = 0.5 * (t_send + t_recv);
        t->offset_ns = t_server - t->at_ns;
        t->since_improvement = 0;
    } else {
        t->since_improvement++;
    }
    return t->since_improvement >= patience || t->exchanges >= max_exchanges;
}

void mpiscope__model_identity(mpiscope__clock_model_t *m)
{
    *m = (mpiscope__clock_model_t){.drift_error = 0};
}

void mpiscope__model_pack(const mpiscope__clock_model_t *m, double v[MPISCOPE__MODEL_DOUBLES])
{
    v[0] = m->offset_ns, v[1] = m->drift, v[2] = m->t_ref_ns, v[3] = m->error_ns, v[4] = m->drift_error;
    v[5] = m->hops;
}

void mpiscope__model_unpack(const double v[MPISCOPE__MODEL_DOUBLES], mpiscope__clock_model_t *m)
{
    *m = (mpiscope__clock_model_t){
        .offset_ns = v[0], .drift = v[1], .t_ref_ns = v[2], .error_ns = v[3], .drift_error = v[4], .hops = (int)v[5]};
}

double mpiscope__model_error_at(const mpiscope__clock_model_t *m, double local_ns)
{
    return m->error_ns + fmax(m->drift_error, 0) * fabs(local_ns - m->t_ref_ns);
}

int mpiscope__model_fit(const mpiscope__fit_point_t *pts, unsigned n, double read_error_ns,
                        mpiscope__clock_model_t *out)
{
    if (n == 0)
        return -1;
    double t_mean = 0, y_mean = 0, h = 0;
    for (unsigned k = 0; k < n; k++) {
        t_mean += pts[k].at_ns / n;
        y_mean += pts[k].offset_ns / n;
        h = fmax(h, pts[k].half_rtt_ns);
    }
    double sxx = 0, sxy = 0, sabs = 0;
    for (unsigned k = 0; k < n; k++) {
        double dt = pts[k].at_ns - t_mean;
        sxx += dt * dt;
        sxy += dt * (pts[k].offset_ns - y_mean);
        sabs += fabs(dt);
    }
    double bound = h + 3 * read_error_ns; /* one point's worst error */
    *out = (mpiscope__clock_model_t){.offset_ns = y_mean, .t_ref_ns = t_mean, .hops = 1, .drift_error = -1};
    if (n >= 2 && sxx > 0) {
        out->drift = sxy / sxx;
        out->drift_error = bound * sabs / sxx;
    }
    /* the clocks also part by drift * RTT while one exchange is in flight */
    out->error_ns = bound + fabs(out->drift) * 2 * h;
    return 0;
}

void mpiscope__model_compose(const mpiscope__clock_model_t *pair, const mpiscope__clock_model_t *server,
                             mpiscope__clock_model_t *out)
{
    double server_local = pair->t_ref_ns + pair->offset_ns; /* the server's clock at the pair's t_ref */
    out->t_ref_ns = pair->t_ref_ns;
    out->offset_ns = pair->offset_ns + server->offset_ns + server->drift * (server_local - server->t_ref_ns);
    out->drift = pair->drift + server->drift + pair->drift * server->drift;
    out->error_ns = pair->error_ns * (1 + fabs(server->drift)) + mpiscope__model_error_at(server, server_local);
    if (pair->drift_error < 0 && server->drift_error < 0)
        out->drift_error = -1;
    else
        out->drift_error = fmax(pair->drift_error, 0) * (1 + fabs(server->drift))
                           + fmax(server->drift_error, 0) * (1 + fabs(pair->drift));
    out->hops = pair->hops + server->hops;
}

void mpiscope__ring_models(const mpiscope__clock_model_t *pairs, int n, mpiscope__clock_model_t *models)
{
    if (n <= 0)
        return;
    mpiscope__model_identity(&models[0]);
    for (int i = 1; i < n; i++)
        mpiscope__model_compose(&pairs[i], &models[i - 1], &models[i]);
}

int mpiscope__tree_parent(int rank)
{
    if (rank <= 0)
        return -1;
    int high = 1;
    while (high <= rank / 2)
        high *= 2;
    return rank - high;
}

int mpiscope__tree_rounds(int n)
{
    int rounds = 0;
    while ((1 << rounds) < n)
        rounds++;
    return rounds;
}

void mpiscope__transform_truth(double o_i_ns, double d_i_ppm, double o_0_ns, double d_0_ppm, double t_ref_ns,
                               double *offset_ns, double *drift)
{
    double a_i = 1 + d_i_ppm * 1e-6, a_0 = 1 + d_0_ppm * 1e-6;
    double global = a_0 * (t_ref_ns - o_i_ns) / a_i + o_0_ns; /* rank 0's clock when rank i reads t_ref */
    *offset_ns = global - t_ref_ns;
    *drift = a_0 / a_i - 1;
}
