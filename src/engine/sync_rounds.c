/* sync_rounds.c: the pairwise rounds of each sync algorithm (linear, ring,
 * tree), repeated as fit points spread in time, and the composition of the
 * pairs' models into each rank's model of rank 0's clock. */
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "sync_internal.h"
#include "timer_read.h"

static const double MSG_CONTINUE = 1.0, MSG_STOP = 0.0;

static double shifted_now(const mpiscope__clock_model_t *shift)
{
    double t = mpiscope__now_ns();
    return shift ? mpiscope__model_global(shift, t) : t;
}

void mpiscope__sync_serve(MPI_Comm comm, int client, const mpiscope__clock_model_t *shift)
{
    double msg;
    for (;;) {
        MPI_Recv(&msg, 1, MPI_DOUBLE, client, MPISCOPE__SYNC_TAG, comm, MPI_STATUS_IGNORE);
        if (msg == MSG_STOP)
            return;
        double now = shifted_now(shift);
        MPI_Send(&now, 1, MPI_DOUBLE, client, MPISCOPE__SYNC_TAG, comm);
    }
}

void mpiscope__sync_ping(MPI_Comm comm, int server, const mpiscope__clock_model_t *shift,
                         const mpiscope_sync_params_t *p, mpiscope__pair_fit_t *fit)
{
    mpiscope__rtt_tracker_t t;
    mpiscope__rtt_tracker_reset(&t);
    int done = 0;
    while (!done) {
        double server_time;
        double t_send = shifted_now(shift);
        MPI_Send(&MSG_CONTINUE, 1, MPI_DOUBLE, server, MPISCOPE__SYNC_TAG, comm);
        MPI_Recv(&server_time, 1, MPI_DOUBLE, server, MPISCOPE__SYNC_TAG, comm, MPI_STATUS_IGNORE);
        double t_recv = shifted_now(shift);
        done = mpiscope__rtt_tracker_add(&t, t_send, server_time, t_recv, p->patience, p->max_exchanges);
    }
    MPI_Send(&MSG_STOP, 1, MPI_DOUBLE, server, MPISCOPE__SYNC_TAG, comm);
    fit->exchanges += t.exchanges;
    if (fit->n == 0 || t.rtt_min_ns < fit->rtt_min_ns)
        fit->rtt_min_ns = t.rtt_min_ns;
    if (fit->n < MPISCOPE__SYNC_MAX_FITPOINTS)
        fit->pts[fit->n++] =
            (mpiscope__fit_point_t){.at_ns = t.at_ns, .offset_ns = t.offset_ns, .half_rtt_ns = 0.5 * t.rtt_min_ns};
}

/* Rank 0 serves every other rank in turn: n - 1 steps one after another. */
void mpiscope__sync_linear_round(MPI_Comm comm, const mpiscope__clock_model_t *shift, const mpiscope_sync_params_t *p,
                                 mpiscope__pair_fit_t *fit)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    for (int peer = 1; peer < n; peer++) {
        if (rank == 0)
            mpiscope__sync_serve(comm, peer, shift);
        else if (rank == peer)
            mpiscope__sync_ping(comm, 0, shift, p, fit);
    }
}

/* Each rank i > 0 pings i-1; odd ranks first, then even ones, so no rank
 * serves and pings at once: two steps whatever n. */
static void ring_round(MPI_Comm comm, int rank, int n, const mpiscope_sync_params_t *p, mpiscope__pair_fit_t *fit)
{
    for (int phase = 1; phase >= 0; phase--) {
        if (rank > 0 && rank % 2 == phase)
            mpiscope__sync_ping(comm, rank - 1, NULL, p, fit);
        if (rank + 1 < n && (rank + 1) % 2 == phase)
            mpiscope__sync_serve(comm, rank + 1, NULL);
    }
}

/* Binomial tree: in step k, ranks r < 2^k serve r + 2^k: ceil(log2 n) steps. */
static void tree_round(MPI_Comm comm, int rank, int n, const mpiscope_sync_params_t *p, mpiscope__pair_fit_t *fit)
{
    for (int k = 0, span = 1; k < mpiscope__tree_rounds(n); k++, span *= 2) {
        if (rank < span && rank + span < n)
            mpiscope__sync_serve(comm, rank + span, NULL);
        else if (rank >= span && rank < 2 * span)
            mpiscope__sync_ping(comm, rank - span, NULL, p, fit);
    }
}

/* Ring: rank 0 composes the pairs in order (O(n) memory there only). */
static int compose_ring(MPI_Comm comm, int rank, int n, const mpiscope__clock_model_t *pair,
                        mpiscope__clock_model_t *model)
{
    double mine[MPISCOPE__MODEL_DOUBLES], *all = NULL;
    mpiscope__clock_model_t *pairs = NULL, *models = NULL;
    int err = 0;
    mpiscope__model_pack(pair, mine);
    if (rank == 0) {
        all = malloc((size_t)n * MPISCOPE__MODEL_DOUBLES * sizeof *all);
        pairs = malloc((size_t)n * sizeof *pairs);
        models = malloc((size_t)n * sizeof *models);
        err = !all || !pairs || !models ? MPISCOPE_ENOMEM : 0;
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, comm);
    if (!err) {
        MPI_Gather(mine, MPISCOPE__MODEL_DOUBLES, MPI_DOUBLE, all, MPISCOPE__MODEL_DOUBLES, MPI_DOUBLE, 0, comm);
        if (rank == 0) {
            for (int i = 0; i < n; i++)
                mpiscope__model_unpack(all + MPISCOPE__MODEL_DOUBLES * i, &pairs[i]);
            mpiscope__ring_models(pairs, n, models);
            for (int i = 0; i < n; i++)
                mpiscope__model_pack(&models[i], all + MPISCOPE__MODEL_DOUBLES * i);
        }
        MPI_Scatter(all, MPISCOPE__MODEL_DOUBLES, MPI_DOUBLE, mine, MPISCOPE__MODEL_DOUBLES, MPI_DOUBLE, 0, comm);
        mpiscope__model_unpack(mine, model);
    }
    free(all);
    free(pairs);
    free(models);
    return err;
}

/* Tree: each parent hands its finished model down, log2 n steps. */
static void compose_tree(MPI_Comm comm, int rank, int n, const mpiscope__clock_model_t *pair,
                         mpiscope__clock_model_t *model)
{
    if (rank == 0)
        mpiscope__model_identity(model);
    for (int k = 0, span = 1; k < mpiscope__tree_rounds(n); k++, span *= 2) {
        double v[MPISCOPE__MODEL_DOUBLES];
        if (rank < span && rank + span < n) {
            mpiscope__model_pack(model, v);
            MPI_Send(v, MPISCOPE__MODEL_DOUBLES, MPI_DOUBLE, rank + span, MPISCOPE__SYNC_TAG, comm);
        } else if (rank >= span && rank < 2 * span) {
            mpiscope__clock_model_t parent;
            MPI_Recv(v, MPISCOPE__MODEL_DOUBLES, MPI_DOUBLE, rank - span, MPISCOPE__SYNC_TAG, comm, MPI_STATUS_IGNORE);
            mpiscope__model_unpack(v, &parent);
            mpiscope__model_compose(pair, &parent, model);
        }
    }
}

int mpiscope__sync_models(MPI_Comm comm, const mpiscope_sync_params_t *p, double read_error_ns,
                          mpiscope__clock_model_t *model, mpiscope__pair_fit_t *fit)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    memset(fit, 0, sizeof *fit);
    for (unsigned f = 0; f < p->fitpoints; f++) {
        if (f > 0) { /* spread the fit points in time: the drift is their slope */
            MPI_Barrier(comm);
            mpiscope_timer_spin_until_ns(mpiscope__now_ns() + p->fit_gap_ns);
        }
        if (p->algorithm == MPISCOPE_SYNC_RING)
            ring_round(comm, rank, n, p, fit);
        else if (p->algorithm == MPISCOPE_SYNC_TREE)
            tree_round(comm, rank, n, p, fit);
        else
            mpiscope__sync_linear_round(comm, NULL, p, fit);
    }
    mpiscope__clock_model_t pair;
    mpiscope__model_identity(&pair);
    if (rank > 0)
        mpiscope__model_fit(fit->pts, fit->n, read_error_ns, &pair);
    if (p->algorithm == MPISCOPE_SYNC_RING)
        return compose_ring(comm, rank, n, &pair, model);
    if (p->algorithm == MPISCOPE_SYNC_TREE)
        compose_tree(comm, rank, n, &pair, model);
    else
        *model = pair;
    return 0;
}
