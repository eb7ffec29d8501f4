/* context.c: creating a measurement context: one timer for all ranks,
 * clocks synchronized, the stage lead time t_bcast measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "clock_setup.h"
#include "context.h"
#include "timer_read.h"
#include "util.h"

/* Every rank must end up with the same timer kind: AUTO takes tsc only if
 * tsc works everywhere (under SMPI: the simulated clock, timer_read.h).
 * Returns the same code on every rank. */
static int init_timer(MPI_Comm comm, mpiscope_timer_kind_t kind)
{
    int err = mpiscope_timer_init(kind == MPISCOPE_TIMER_AUTO ? MPISCOPE__TIMER_AUTO_FIRST : kind, 0);
    int worst = err;
    MPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MIN, comm);
    if (worst != 0 && kind == MPISCOPE_TIMER_AUTO)
        err = mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0);
    else
        err = worst;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    return err;
}

/* An upper bound of the time to broadcast one clock value: twice the 90th
 * percentile of the max-over-ranks time of 31 broadcasts, plus the worst
 * clock residual, so nearly every rank has tau before tau comes. */
static double measure_t_bcast(mpiscope_context_t *ctx)
{
    enum { REPS = 31, ONE_CLOCK_REPS = 3 };
    double times[REPS], value = 0;
    /* one simulated clock: every broadcast takes the same time (and each
     * barrier and reduction of 1,024 simulated ranks costs 0.1 s of wall) */
    int reps = ctx->one_clock ? ONE_CLOCK_REPS : REPS;
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(ctx->comm);
        double t0 = mpiscope__now_ns();
        MPI_Bcast(&value, 1, MPI_DOUBLE, 0, ctx->comm);
        double dt = mpiscope__now_ns() - t0;
        MPI_Allreduce(&dt, &times[i], 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    }
    qsort(times, (size_t)reps, sizeof *times, mpiscope__cmp_double);
    /* rank 0's value counts: it knows every rank's residual */
    double lead =
        2 * mpiscope_quantile_sorted(times, (size_t)reps, 0.9) + mpiscope_clock_sync_max_residual_ns(ctx->sync);
    MPI_Bcast(&lead, 1, MPI_DOUBLE, 0, ctx->comm);
    return lead;
}

/* Whether every rank reads one clock, as the first sync verified: the
 * simulator's (SimGrid SMPI, no injected clock transform), every offset
 * found 0 to 1 ns (a tenth of a simulated clock read: what the
 * estimate leaves from the ping-pong's own asymmetry, 0.07 ns at 64 ranks
 * of flat-1024). Another sync would find the same again, at
 * O(p) exchanges (110,500 at 1,024 ranks). Collective: rank 0 holds the
 * offsets. */
static int verified_one_clock(const mpiscope_context_t *ctx)
{
#ifdef MPISCOPE_SMPI
    const mpiscope_clock_sync_t *s = ctx->sync;
    int one = !s->transformed;
    for (int r = 0; one && ctx->rank == 0 && r < ctx->nprocs; r++)
        one = s->offsets_ns && fabs(s->offsets_ns[r]) <= 1.0;
    MPI_Bcast(&one, 1, MPI_INT, 0, ctx->comm);
    return one;
#else
    (void)ctx;
    return 0;
#endif
}

int mpiscope_context_create(MPI_Comm comm, const mpiscope_params_t *params, mpiscope_context_t **out)
{
    mpiscope_params_t p;
    if (params)
        p = *params;
    else
        mpiscope_params_default(&p);
    int err = mpiscope_params_check(&p);
    if (err || !out)
        return err ? err : MPISCOPE_EINVAL;
    mpiscope_context_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return MPISCOPE_ENOMEM;
    MPI_Comm_dup(comm, &ctx->comm);
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->nprocs);
    err = init_timer(ctx->comm, p.timer);
    if (!err) {
        err = mpiscope__clock_setup(ctx->comm, &p.sync, ctx->last_error, sizeof ctx->last_error);
        mpiscope_timer_info(&ctx->timer);
        p.timer = ctx->timer.kind;
    }
    if (!err)
        err = mpiscope_clock_sync_run(ctx->comm, &p.sync, &ctx->sync);
    if (!err) {
        ctx->synced_at_ns = mpiscope__now_ns();
        ctx->one_clock = verified_one_clock(ctx);
    }
    if (!err)
        err = mpiscope__buffer_pool_create(p.cache_cold, p.alignment_bytes, p.pool_limit_bytes, &ctx->pool);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (err) {
        mpiscope_context_destroy(ctx);
        return err;
    }
    if (p.late_tolerance_ns == 0) {
        /* A start is late only beyond what reading the clock itself costs. */
        double tol = fmax(100.0, fmax(4 * ctx->timer.read_overhead_ns, 2 * ctx->timer.resolution_ns));
        MPI_Allreduce(MPI_IN_PLACE, &tol, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
        p.late_tolerance_ns = tol;
    }
    ctx->params = p;
    if (p.t_bcast_ns == 0)
        ctx->params.t_bcast_ns = measure_t_bcast(ctx);
    *out = ctx;
    return 0;
}

int mpiscope_context_resync(mpiscope_context_t *ctx)
{
    if (!ctx)
        return MPISCOPE_EINVAL;
    if (ctx->one_clock)
        return 0; /* verified once, at the context's creation */
    mpiscope_clock_sync_t *fresh = NULL;
    int err = mpiscope_clock_sync_run(ctx->comm, &ctx->params.sync, &fresh);
    if (err)
        return err;
    mpiscope_clock_sync_free(ctx->sync);
    ctx->sync = fresh;
    ctx->resyncs++;
    ctx->synced_at_ns = mpiscope__now_ns();
    return 0;
}

int mpiscope__context_resync_if_due(mpiscope_context_t *ctx)
{
    double every = ctx->params.sync.resync_seconds;
    if (!(every > 0) || ctx->one_clock) /* the same on every rank: no collective needed */
        return 0;
    /* rank 0 decides, so every rank takes the same branch */
    int due = (mpiscope__now_ns() - ctx->synced_at_ns) * 1e-9 >= every;
    MPI_Bcast(&due, 1, MPI_INT, 0, ctx->comm);
    return due ? mpiscope_context_resync(ctx) : 0;
}

void mpiscope__context_keep_raw(mpiscope_context_t *ctx, int keep)
{
    ctx->keep_raw = keep;
}

const char *mpiscope_context_last_error(const mpiscope_context_t *ctx)
{
    return ctx->last_error;
}

const mpiscope_clock_sync_t *mpiscope_context_sync(const mpiscope_context_t *ctx)
{
    return ctx->sync;
}

const mpiscope_params_t *mpiscope_context_params(const mpiscope_context_t *ctx)
{
    return &ctx->params;
}

void mpiscope_context_destroy(mpiscope_context_t *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->n_subcomms; i++)
        if (ctx->subcomm[i] != MPI_COMM_NULL)
            MPI_Comm_free(&ctx->subcomm[i]);
    mpiscope__samples_destroy(ctx->last);
    mpiscope__buffer_pool_destroy(ctx->pool);
    mpiscope_clock_sync_free(ctx->sync);
    MPI_Comm_free(&ctx->comm);
    free(ctx);
}
