/* sync.c: clock synchronization's public side: the algorithms' registry,
 * a run (models through node leaders, gathered on rank 0, the injected
 * truth beside them), its verification and the global clock it gives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "gather.h"
#include "param_table.h"
#include "sync_internal.h"
#include "timer_read.h"
#include "util.h"

/* The one registry of sync algorithms: --describe lists it. */
static const struct {
    const char *name, *description;
} algorithms[MPISCOPE_SYNC_COUNT] = {
    [MPISCOPE_SYNC_LINEAR] = {"linear", "rank 0 syncs with ranks 1..n-1 in turn: O(n) time, one hop of error"},
    [MPISCOPE_SYNC_RING] = {"ring", "rank i syncs with i-1, models composed along the ring: O(1) steps, "
                                    "errors add up over up to n-1 hops"},
    [MPISCOPE_SYNC_TREE] = {"tree", "binomial tree: O(log n) steps, errors add up over at most log2 n hops"},
};

const char *mpiscope__sync_algorithm_description(mpiscope_sync_algorithm_t algorithm)
{
    return (unsigned)algorithm < MPISCOPE_SYNC_COUNT ? algorithms[algorithm].description : NULL;
}

void mpiscope_sync_params_default(mpiscope_sync_params_t *params)
{
    memset(params, 0, sizeof *params);
    params->algorithm = MPISCOPE_SYNC_LINEAR;
    params->patience = 100;
    params->max_exchanges = 5000;
    params->fitpoints = 1;
    params->fit_gap_ns = 1e7;
    params->node_leaders = 1;
}

int mpiscope_sync_parse(const char *text, mpiscope_sync_algorithm_t *algorithm)
{
    for (int a = 0; text && a < MPISCOPE_SYNC_COUNT; a++)
        if (strcmp(text, algorithms[a].name) == 0) {
            *algorithm = (mpiscope_sync_algorithm_t)a;
            return 0;
        }
    return MPISCOPE_EINVAL;
}

const char *mpiscope_sync_algorithm_name(mpiscope_sync_algorithm_t algorithm)
{
    return (unsigned)algorithm < MPISCOPE_SYNC_COUNT ? algorithms[algorithm].name : "unknown";
}

void mpiscope_clock_sync_free(mpiscope_clock_sync_t *sync)
{
    if (!sync)
        return;
    double *arrays[] = {sync->offsets_ns,       sync->drifts_ppm,     sync->t_refs_ns,   sync->errors_ns,
                        sync->drift_errors_ppm, sync->rtt_min_ns,     sync->residual_ns, sync->node_residual_ns,
                        sync->true_offsets_ns,  sync->true_drifts_ppm};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        free(arrays[i]);
    free(sync->hops);
    free(sync);
}

/* Every rank has offsets, RTTs and residuals (its own at [rank]); only
 * rank 0 has the model's other arrays: O(p) there, O(p) per rank at most
 * (1,024 simulated ranks share one process). */
static mpiscope_clock_sync_t *sync_alloc(int n, int rank)
{
    mpiscope_clock_sync_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    double **every[] = {&s->offsets_ns, &s->rtt_min_ns, &s->residual_ns};
    double **root[] = {&s->drifts_ppm, &s->t_refs_ns, &s->errors_ns, &s->drift_errors_ppm, &s->node_residual_ns};
    int ok = 1;
    for (size_t i = 0; i < sizeof every / sizeof *every; i++)
        ok &= (*every[i] = calloc((size_t)n, sizeof(double))) != NULL;
    for (size_t i = 0; rank == 0 && i < sizeof root / sizeof *root; i++)
        ok &= (*root[i] = calloc((size_t)n, sizeof(double))) != NULL;
    if (rank == 0)
        ok &= (s->hops = calloc((size_t)n, sizeof(int))) != NULL;
    if (!ok) {
        mpiscope_clock_sync_free(s);
        return NULL;
    }
    s->nprocs = n;
    return s;
}

/* What one clock read may be off by, the worst over the ranks: the
 * timer's resolution and an injected jitter. */
static double read_error_ns(MPI_Comm comm)
{
    mpiscope_timer_info_t info;
    mpiscope_clock_transform_t tf = {0};
    double e = mpiscope_timer_info(&info) == 0 && isfinite(info.resolution_ns) ? info.resolution_ns : 0;
    if (mpiscope_timer_get_transform(&tf))
        e += tf.jitter_ns;
    MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_MAX, comm);
    return e;
}

/* This rank's entry of a per-rank array, gathered on rank 0 (others keep
 * their own at [rank] when they have the array). */
static void gather(MPI_Comm comm, int rank, double mine, double *all)
{
    mpiscope__gather(&mine, 1, MPI_DOUBLE, all, comm);
    if (all)
        all[rank] = mine;
}

/* With an injected transform somewhere: the true model of every rank, from
 * its own transform and rank 0's (timer.c's shared origin makes the raw
 * clocks one). */
static int gather_truth(MPI_Comm comm, mpiscope_clock_sync_t *s)
{
    mpiscope_clock_transform_t mine = {0}, zero;
    int any = mpiscope_timer_get_transform(&mine);
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm);
    s->transformed = any;
    if (!any)
        return 0;
    zero = mine;
    MPI_Bcast(&zero, 3, MPI_DOUBLE, 0, comm);
    int err = 0;
    if (s->rank == 0) {
        s->true_offsets_ns = calloc((size_t)s->nprocs, sizeof(double));
        s->true_drifts_ppm = calloc((size_t)s->nprocs, sizeof(double));
        err = !s->true_offsets_ns || !s->true_drifts_ppm ? MPISCOPE_ENOMEM : 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    if (err)
        return err;
    double offset, drift;
    mpiscope__transform_truth(mine.offset_ns, mine.drift_ppm, zero.offset_ns, zero.drift_ppm, s->t_ref_ns, &offset,
                              &drift);
    gather(comm, s->rank, offset, s->true_offsets_ns);
    gather(comm, s->rank, drift * 1e6, s->true_drifts_ppm);
    return 0;
}

/* Every rank's model into rank 0's arrays, in one gather (each is a
 * collective of p messages: at 1,024 simulated ranks, seconds apiece). */
static int fill(MPI_Comm comm, mpiscope_clock_sync_t *s, const mpiscope__clock_model_t *m,
                const mpiscope__pair_fit_t *fit, double node_residual)
{
    enum { PER_RANK = 9 };
    s->offset_ns = m->offset_ns;
    s->drift_ppm = m->drift * 1e6;
    s->t_ref_ns = m->t_ref_ns;
    s->error_ns = m->error_ns;
    s->drift_error_ppm = m->drift_error < 0 ? -1 : m->drift_error * 1e6;
    s->offsets_ns[s->rank] = s->offset_ns;
    s->rtt_min_ns[s->rank] = fit->rtt_min_ns;
    double mine[PER_RANK] = {s->offset_ns,    s->drift_ppm,  s->t_ref_ns,     s->error_ns,           s->drift_error_ppm,
                             fit->rtt_min_ns, node_residual, (double)m->hops, (double)fit->exchanges};
    double *all = s->rank == 0 ? malloc((size_t)s->nprocs * PER_RANK * sizeof *all) : NULL;
    int err = s->rank == 0 && !all ? MPISCOPE_ENOMEM : 0;
    MPI_Bcast(&err, 1, MPI_INT, 0, comm);
    if (err)
        return err;
    mpiscope__gather(mine, PER_RANK, MPI_DOUBLE, all, comm);
    double *const arrays[] = {s->offsets_ns,       s->drifts_ppm, s->t_refs_ns,       s->errors_ns,
                              s->drift_errors_ppm, s->rtt_min_ns, s->node_residual_ns};
    for (int r = 0; all && r < s->nprocs; r++) {
        const double *v = all + (size_t)r * PER_RANK;
        for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
            arrays[i][r] = v[i];
        s->hops[r] = (int)v[7];
        s->exchanges += (unsigned long)v[8];
    }
    free(all);
    return 0;
}

/* Exchanges without a smaller round trip that end a verification round:
 * fewer than the sync's own (a check, not a fit). */
enum { VERIFY_PATIENCE = 30 };

/* A verification round: how far each rank's model is from rank 0's
 * clock now, by a linear ping-pong of `patience` (a check, not a fit). */
static int verify(MPI_Comm comm, const mpiscope_clock_sync_t *sync, double *residual_ns, unsigned patience)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    if (!sync || n != sync->nprocs || (rank == 0 && !residual_ns))
        return MPISCOPE_EINVAL;
    mpiscope_sync_params_t p;
    mpiscope_sync_params_default(&p);
    p.patience = patience;
    p.max_exchanges = 1000;
    mpiscope__clock_model_t m;
    mpiscope__sync_model(sync, &m);
    mpiscope__pair_fit_t fit = {0};
    mpiscope__sync_linear_round(comm, &m, &p, &fit);
    double left = rank == 0 ? 0 : fit.pts[0].offset_ns;
    mpiscope__gather(&left, 1, MPI_DOUBLE, residual_ns, comm);
    return 0;
}

int mpiscope_clock_sync_run(MPI_Comm comm, const mpiscope_sync_params_t *params, mpiscope_clock_sync_t **out)
{
    mpiscope_sync_params_t defaults;
    if (!params) {
        mpiscope_sync_params_default(&defaults);
        params = &defaults;
    }
    if (!out || params->patience == 0 || params->max_exchanges == 0 || params->fitpoints == 0
        || params->fitpoints > MPISCOPE__SYNC_MAX_FITPOINTS || !(params->fit_gap_ns >= 0)
        || (unsigned)params->algorithm >= MPISCOPE_SYNC_COUNT)
        return MPISCOPE_EINVAL;
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    mpiscope_clock_sync_t *s = sync_alloc(n, rank);
    int err = s ? 0 : MPISCOPE_ENOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    if (err) {
        mpiscope_clock_sync_free(s);
        return err;
    }
    s->algorithm = params->algorithm;
    s->rank = rank;
    s->fitpoints = params->fitpoints;
    double re = read_error_ns(comm);

    MPI_Barrier(comm);
    double t0 = mpiscope__now_ns(), node_residual = 0;
    mpiscope__clock_model_t model;
    mpiscope__pair_fit_t fit;
    err = mpiscope__sync_with_leaders(comm, params, re, &model, &fit, &node_residual, &s->nodes, &s->node_shared);
    s->duration_ns = mpiscope__now_ns() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    if (!err)
        err = fill(comm, s, &model, &fit, node_residual);
    if (!err)
        err = gather_truth(comm, s);
    if (!err) /* a check, not a fit: at most VERIFY_PATIENCE, never more than the sync's own */
        err = verify(comm, s, s->residual_ns, params->patience < VERIFY_PATIENCE ? params->patience : VERIFY_PATIENCE);
    if (err) {
        mpiscope_clock_sync_free(s);
        return err;
    }
    *out = s;
    return 0;
}

void mpiscope__sync_model(const mpiscope_clock_sync_t *s, mpiscope__clock_model_t *m)
{
    *m = (mpiscope__clock_model_t){.offset_ns = s->offset_ns,
                                   .drift = s->drift_ppm * 1e-6,
                                   .t_ref_ns = s->t_ref_ns,
                                   .error_ns = s->error_ns,
                                   .drift_error = s->drift_error_ppm < 0 ? -1 : s->drift_error_ppm * 1e-6};
}

int mpiscope_clock_sync_verify(MPI_Comm comm, const mpiscope_clock_sync_t *sync, double *residual_ns)
{
    return verify(comm, sync, residual_ns, VERIFY_PATIENCE);
}

double mpiscope_clock_sync_max_residual_ns(const mpiscope_clock_sync_t *sync)
{
    return mpiscope__max_abs(sync->residual_ns, sync->nprocs);
}

double mpiscope_clock_sync_global_ns(const mpiscope_clock_sync_t *sync, double local_ns)
{
    mpiscope__clock_model_t m;
    mpiscope__sync_model(sync, &m);
    return mpiscope__model_global(&m, local_ns);
}

double mpiscope_clock_sync_local_ns(const mpiscope_clock_sync_t *sync, double global_ns)
{
    mpiscope__clock_model_t m;
    mpiscope__sync_model(sync, &m);
    return mpiscope__model_local(&m, global_ns);
}

double mpiscope_clock_sync_now_ns(const mpiscope_clock_sync_t *sync)
{
    return mpiscope_clock_sync_global_ns(sync, mpiscope__now_ns());
}

int mpiscope_clock_sync_recovered(const mpiscope_clock_sync_t *s)
{
    if (!s->transformed || !s->true_offsets_ns)
        return -1;
    for (int i = 0; i < s->nprocs; i++) {
        if (!(fabs(s->offsets_ns[i] - s->true_offsets_ns[i]) <= s->errors_ns[i]))
            return 0;
        if (s->drift_errors_ppm[i] >= 0 && !(fabs(s->drifts_ppm[i] - s->true_drifts_ppm[i]) <= s->drift_errors_ppm[i]))
            return 0;
    }
    return 1;
}
