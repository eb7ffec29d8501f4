/* measure.c: the MPI side of the synchronized-window method: run the
 * stages the scheduler (window.c) plans, on every rank, on the global clock. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "context.h"
#include "timer_read.h"

/* What rank 0 broadcasts at the start of every stage. */
typedef struct stage_msg {
    double tau_ns;   /* global time of launch 0 */
    double delta_ns;
    double k;
    double stop;     /* 1: the point is done */
} stage_msg_t;

/* The communicator of the first n ranks (created once per n, collectively). */
static int point_comm(mpiscope_context_t *ctx, int n, MPI_Comm *comm)
{
    if (n <= 0 || n == ctx->nprocs) {
        *comm = ctx->comm;
        return 0;
    }
    if (n > ctx->nprocs)
        return MPISCOPE_ERANGE;
    for (int i = 0; i < ctx->n_subcomms; i++)
        if (ctx->subcomm_n[i] == n) {
            *comm = ctx->subcomm[i];
            return 0;
        }
    if (ctx->n_subcomms == MPISCOPE__MAX_SUBCOMMS)
        return MPISCOPE_ERANGE;
    int i = ctx->n_subcomms++;
    ctx->subcomm_n[i] = n;
    MPI_Comm_split(ctx->comm, ctx->rank < n ? 0 : MPI_UNDEFINED, ctx->rank, &ctx->subcomm[i]);
    *comm = ctx->subcomm[i];
    return 0;
}

/* Validation bookkeeping of one rank for one point. */
typedef struct validation {
    int enabled;
    size_t checked, failed;
} validation_t;

/* Fill the send buffer before a launch, check the receive buffer after. */
static void validate_phase(const mpiscope_op_t *op, mpiscope_op_ctx_t *op_ctx, validation_t *v,
                           int phase)
{
    int err = op->validate(op_ctx, phase);
    if (phase == MPISCOPE_VALIDATE_CHECK) {
        v->checked++;
        v->failed += err != 0;
    }
}

/* One stage on this rank: k launches at tau + l*delta on the global clock.
 * The timed region is the execute call between two clock reads: no
 * allocation, no branch on anything but the loop. */
static int run_stage(mpiscope_op_ctx_t *op_ctx, const mpiscope_op_t *op, const stage_msg_t *m,
                     double offset_ns, size_t *launch, double *start, double *end, validation_t *v)
{
    unsigned k = (unsigned)m->k;
    int err = 0;
    for (unsigned l = 0; l < k; l++) {
        mpiscope__op_ctx_select_buffers(op_ctx, (*launch)++);
        if (v->enabled)
            validate_phase(op, op_ctx, v, MPISCOPE_VALIDATE_PREPARE);
        mpiscope_timer_spin_until_ns(m->tau_ns + l * m->delta_ns - offset_ns);
        double t0 = mpiscope__now_ns();
        err |= op->execute(op_ctx);
        double t1 = mpiscope__now_ns();
        start[l] = t0 + offset_ns;
        end[l] = t1 + offset_ns;
        if (v->enabled)
            validate_phase(op, op_ctx, v, MPISCOPE_VALIDATE_CHECK);
    }
    return err ? MPISCOPE_EMPI : 0;
}

static int setup_op_ctx(mpiscope_context_t *ctx, MPI_Comm comm, const mpiscope_op_t *op,
                        const mpiscope_point_spec_t *spec, mpiscope__op_engine_t *engine,
                        mpiscope_op_ctx_t *op_ctx)
{
    MPI_Datatype dtype = MPI_BYTE;
    MPI_Op reduce = MPI_OP_NULL;
    size_t dtype_bytes = 1;
    const char *canonical;
    if (op->flags & MPISCOPE_OP_USES_REDUCTION) {
        int err = mpiscope__dtype_parse(spec->dtype ? spec->dtype : "double", &dtype, &dtype_bytes, &canonical);
        if (!err)
            err = mpiscope__reduce_op_parse(spec->reduce_op ? spec->reduce_op : "sum", &reduce, &canonical);
        if (err)
            return err;
    }
    *engine = (mpiscope__op_engine_t){.pool = ctx->pool, .op = op, .option_names = spec->option_names,
                                      .option_values = spec->option_values, .n_options = spec->n_options};
    return mpiscope__op_ctx_init(op_ctx, comm, spec->size_bytes, spec->root, dtype, reduce, engine);
}

/* Rank 0: feed the gathered stage into the scheduler; returns 1 when done. */
static int judge_stage(mpiscope__window_t *w, const stage_msg_t *m, const double *gathered, int n,
                       double *start, double *end, double elapsed_ns)
{
    unsigned k = (unsigned)m->k;
    for (int r = 0; r < n; r++) {
        memcpy(start + (size_t)r * k, gathered + (size_t)r * 2 * k, k * sizeof(double));
        memcpy(end + (size_t)r * k, gathered + (size_t)r * 2 * k + k, k * sizeof(double));
    }
    return mpiscope__window_feed(w, m->tau_ns, start, end, elapsed_ns);
}

/* The stage loop. Collective over comm; rank 0 owns the scheduler. */
static int run_point(mpiscope_context_t *ctx, MPI_Comm comm, int rank, int n, const mpiscope_op_t *op,
                     mpiscope_op_ctx_t *op_ctx, mpiscope__window_t *w, validation_t *v)
{
    enum { KMAX = 64 };
    double mine[2 * KMAX];
    double *gathered = NULL, *start = NULL, *end = NULL;
    int err = 0;
    if (rank == 0) {
        gathered = malloc((size_t)n * 2 * KMAX * sizeof(double));
        start = malloc((size_t)n * KMAX * sizeof(double));
        end = malloc((size_t)n * KMAX * sizeof(double));
        if (!gathered || !start || !end)
            err = MPISCOPE_ENOMEM;
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, comm);
    size_t launch = 0;
    double t_begin = mpiscope__now_ns(), offset = ctx->sync->offset_ns;
    while (!err) {
        stage_msg_t m = {0};
        if (rank == 0)
            m = (stage_msg_t){.tau_ns = mpiscope__now_ns() + offset + ctx->params.t_bcast_ns,
                              .delta_ns = w->plan.delta_ns, .k = w->plan.k, .stop = 0};
        MPI_Bcast(&m, 4, MPI_DOUBLE, 0, comm);
        if (m.stop)
            break;
        unsigned k = (unsigned)m.k;
        int stage_err = run_stage(op_ctx, op, &m, offset, &launch, mine, mine + k, v);
        MPI_Allreduce(MPI_IN_PLACE, &stage_err, 1, MPI_INT, MPI_MIN, comm);
        if (stage_err) {
            err = stage_err;
            break;
        }
        MPI_Gather(mine, 2 * (int)k, MPI_DOUBLE, gathered, 2 * (int)k, MPI_DOUBLE, 0, comm);
        int done = 0;
        if (rank == 0)
            done = judge_stage(w, &m, gathered, n, start, end, mpiscope__now_ns() - t_begin);
        MPI_Bcast(&done, 1, MPI_INT, 0, comm);
        if (done)
            break;
    }
    free(gathered);
    free(start);
    free(end);
    return err;
}

/* Every rank's validation outcome into the result: counts summed, the
 * first mismatch of the lowest failing rank (collective over comm). */
static void gather_validation(MPI_Comm comm, int rank, const validation_t *v,
                              const mpiscope__op_engine_t *engine, mpiscope_point_result_t *r)
{
    unsigned long counts[2] = {v->checked, v->failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_UNSIGNED_LONG, MPI_SUM, comm);
    r->validated_launches = v->checked; /* every rank checks the same launches */
    r->validation_failures = sums[1];
    int mine = v->failed ? rank : INT_MAX, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    r->first_mismatch_rank = first == INT_MAX ? -1 : first;
    r->first_mismatch[0] = '\0';
    if (first == INT_MAX)
        return;
    unsigned long launch = engine->mismatch_launch;
    memcpy(r->first_mismatch, engine->mismatch, sizeof r->first_mismatch);
    MPI_Bcast(r->first_mismatch, (int)sizeof r->first_mismatch, MPI_CHAR, first, comm);
    MPI_Bcast(&launch, 1, MPI_UNSIGNED_LONG, first, comm);
    r->first_mismatch_launch = launch;
}

int mpiscope_context_measure(mpiscope_context_t *ctx, const mpiscope_op_t *op,
                             const mpiscope_point_spec_t *spec, mpiscope_point_result_t *result)
{
    if (!ctx || !op || !spec || !result)
        return MPISCOPE_EINVAL;
    memset(result, 0, sizeof *result);
    MPI_Comm comm;
    int err = point_comm(ctx, spec->nprocs, &comm);
    if (err || comm == MPI_COMM_NULL)
        return err; /* not a member of this point's communicator */
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    if (spec->root < 0 || spec->root >= n)
        return MPISCOPE_ERANGE;

    double t_begin = mpiscope__now_ns();
    mpiscope__op_engine_t engine;
    mpiscope_op_ctx_t op_ctx;
    mpiscope__window_t *w = NULL;
    int have_ctx = 0, initialized = 0;
    err = setup_op_ctx(ctx, comm, op, spec, &engine, &op_ctx);
    have_ctx = !err;
    if (!err)
        err = op->initialize(&op_ctx);
    initialized = have_ctx && !err;
    if (!err && rank == 0)
        err = mpiscope__window_create(&ctx->params, n, ctx->keep_raw, &w);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    validation_t v = {.enabled = spec->validate && op->validate, .checked = 0, .failed = 0};
    if (!err)
        err = run_point(ctx, comm, rank, n, op, &op_ctx, w, &v);
    if (!err && rank == 0)
        err = mpiscope__window_result(w, result);
    MPI_Bcast(&err, 1, MPI_INT, 0, comm);
    if (!err)
        MPI_Bcast(result, (int)sizeof *result, MPI_BYTE, 0, comm);
    result->participated = 1;
    if (!err)
        gather_validation(comm, rank, &v, &engine, result);
    result->actual_bytes = have_ctx && (op->flags & MPISCOPE_OP_USES_REDUCTION)
                               ? op_ctx.count * op_ctx.dtype_bytes : spec->size_bytes;
    result->elapsed_ns = mpiscope__now_ns() - t_begin;
    mpiscope__buffer_pool_info_t pool;
    mpiscope__buffer_pool_info(ctx->pool, &pool);
    result->buffer_slots = pool.slots;
    result->buffer_region_bytes = pool.region_bytes;
    if (initialized && op->finalize)
        op->finalize(&op_ctx);
    if (have_ctx)
        mpiscope__op_ctx_release_buffers(&op_ctx);
    if (rank == 0) {
        mpiscope__window_destroy(ctx->last);
        ctx->last = w;
        ctx->last_nprocs = n;
    }
    return err;
}
