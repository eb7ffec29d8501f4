/* measure.c: measuring one point: its communicator, the operation's
 * context, and the stage loop every timing method (method.h) runs in. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "context.h"
#include "gather.h"
#include "method.h"
#include "sync_internal.h"
#include "timer_read.h"

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

static int setup_op_ctx(mpiscope_context_t *ctx, MPI_Comm comm, const mpiscope_op_t *op,
                        const mpiscope_point_spec_t *spec, mpiscope__op_engine_t *engine, mpiscope_op_ctx_t *op_ctx)
{
    mpiscope__op_types_t types;
    int err = mpiscope__op_types_resolve(op, spec->dtype, spec->reduce_op, &types);
    if (err)
        return err;
    *engine = (mpiscope__op_engine_t){.pool = ctx->pool,
                                      .op = op,
                                      .option_names = spec->option_names,
                                      .option_values = spec->option_values,
                                      .n_options = spec->n_options};
    return mpiscope__op_ctx_init(op_ctx, comm, spec->size_bytes, spec->root, types.dtype, types.reduce_op, engine);
}

/* The lead of the next stage's start (scheduled methods): t_bcast, or
 * twice what the first launch of this stage started late on its worst
 * rank, when more. A rank that gets tau late (a vCPU woken after ms, seen
 * on a 2-core VM: one rank 2.1 ms late at the first launch of every stage)
 * starts each launch of the stage behind its slot, chasing a schedule it
 * cannot catch within k launches: not one launch was valid in 40. A later
 * launch says nothing of tau: it may be late for its own reasons. */
static double next_lead(double base, const double *start, const double *slot, const double *arrival, int n, unsigned k)
{
    double late = 0;
    for (int r = 0; r < n; r++)
        late = fmax(late, start[(size_t)r * k] - slot[0] - (arrival ? arrival[r] : 0));
    return fmax(base, 2 * late);
}

/* Rank 0: each rank's (start, end, done) of the stage's k launches, gathered
 * rank after rank (3k + 1 values each: the last, its stage error), into one
 * array per quantity indexed [rank * k + launch]; the worst stage error. */
static int split_gathered(const double *gathered, int n, unsigned k, double *start, double *end, double *done_at)
{
    int err = 0;
    for (int r = 0; r < n; r++) {
        const double *from = gathered + (size_t)r * (3 * k + 1);
        if (from[3 * k] < err)
            err = (int)from[3 * k];
        memcpy(start + (size_t)r * k, from, k * sizeof(double));
        memcpy(end + (size_t)r * k, from + k, k * sizeof(double));
        memcpy(done_at + (size_t)r * k, from + 2 * k, k * sizeof(double));
    }
    return err;
}

/* The stage loop of every method. Collective over comm; rank 0 plans and
 * judges, every rank runs its part of each stage. */
static int run_point(mpiscope_context_t *ctx, const mpiscope__method_t *method, mpiscope__stage_env_t *env,
                     mpiscope__method_state_t *st)
{
    enum { KMAX = MPISCOPE__STAGE_KMAX };
    int rank = env->rank, n = env->nprocs;
    double mine[3 * KMAX + 1], slot[KMAX];
    double *gathered = NULL, *start = NULL, *end = NULL, *done_at = NULL, *parts = NULL;
    size_t np = env->n_parts;
    int err = 0;
    if (rank == 0) {
        gathered = malloc((size_t)n * (3 * KMAX + 1) * sizeof(double));
        start = malloc((size_t)n * KMAX * sizeof(double));
        end = malloc((size_t)n * KMAX * sizeof(double));
        done_at = malloc((size_t)n * KMAX * sizeof(double));
        parts = np ? malloc((size_t)n * KMAX * np * sizeof(double)) : NULL;
        if (!gathered || !start || !end || !done_at || (np && !parts))
            err = MPISCOPE_ENOMEM;
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, env->comm);
    double t_begin = mpiscope__now_ns(), lead = ctx->params.t_bcast_ns;
    int first_stage = 1;
    while (!err) {
        mpiscope__stage_msg_t m = {0};
        /* cold: the stage's buffers leave every cache before rank 0 reads the
         * clock for the stage's start; the barrier keeps a slower flush from
         * making the first launch late */
        if (mpiscope__buffer_pool_flush(ctx->pool))
            MPI_Barrier(env->comm);
        if (rank == 0) {
            method->plan(st, &m);
            m.tau_ns = mpiscope__global_now(env) + lead;
        }
        MPI_Bcast(&m, (int)(sizeof m / sizeof(double)), MPI_DOUBLE, 0, env->comm);
        unsigned k = (unsigned)m.k;
        if (m.stop)
            break;
        if (k < 1 || k > KMAX) { /* a method's planning error, the same on every rank */
            err = MPISCOPE_ERANGE;
            break;
        }
        size_t first_launch = env->launch; /* the op's number of the stage's first launch */
        env->stage_launch = 0;
        for (size_t i = 0; i < (size_t)k * np; i++)
            env->stage_parts[i] = NAN; /* launches not timed by timed_launch have none */
        /* every rank's stage error travels with its times, and rank 0's
         * verdict with the decision: no collective of its own (each costs
         * 0.1 s of wall time at 1,024 simulated ranks) */
        mine[3 * k] = method->run_stage(env, &m, mine, mine + k, mine + 2 * k, slot);
        mpiscope__gather(mine, 3 * (int)k + 1, MPI_DOUBLE, gathered, env->comm);
        if (np)
            mpiscope__gather(env->stage_parts, (int)(k * np), MPI_DOUBLE, parts, env->comm);
        int verdict[2] = {0, 0}; /* done, the stage's error */
        if (rank == 0) {
            st->samples->stage_parts = parts;
            st->samples->stage_k = k;
            verdict[1] = split_gathered(gathered, n, k, start, end, done_at);
            st->samples->stage_first_launch = first_launch;
            if (first_stage && !verdict[1])
                mpiscope__samples_first(st->samples, start, end, k);
            if (!verdict[1])
                verdict[0] = method->judge(st, &m, start, end, done_at, slot, mpiscope__now_ns() - t_begin);
            if (method->scheduled)
                lead = next_lead(ctx->params.t_bcast_ns, start, slot, st->arrival_ns, n, k);
        }
        first_stage = 0;
        MPI_Bcast(verdict, 2, MPI_INT, 0, env->comm);
        if (verdict[1]) {
            err = verdict[1];
            break;
        }
        if (verdict[0])
            break;
    }
    free(gathered);
    free(start);
    free(end);
    free(done_at);
    free(parts);
    if (rank == 0)
        st->samples->stage_parts = NULL;
    return err;
}

/* Every rank's validation outcome into the result: counts summed, the
 * first mismatch of the lowest failing rank (collective over comm). */
static void gather_validation(MPI_Comm comm, int rank, const mpiscope__validation_t *v,
                              const mpiscope__op_engine_t *engine, mpiscope_point_result_t *r)
{
    if (!v->enabled) /* the same on every rank (the plan's, the op's): nothing to gather */
        return;
    unsigned long counts[2] = {v->checked, v->failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_UNSIGNED_LONG, MPI_SUM, comm);
    r->validated_launches = v->checked; /* every rank checks the same launches */
    r->validation_failures += sums[1];  /* on top of rank 0's synchronization check */
    int mine = v->failed ? rank : INT_MAX, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == INT_MAX)
        return; /* keeps the synchronization finding, if any */
    r->first_mismatch_rank = first;
    unsigned long launch = engine->mismatch_launch;
    memcpy(r->first_mismatch, engine->mismatch, sizeof r->first_mismatch);
    MPI_Bcast(r->first_mismatch, (int)sizeof r->first_mismatch, MPI_CHAR, first, comm);
    MPI_Bcast(&launch, 1, MPI_UNSIGNED_LONG, first, comm);
    r->first_mismatch_launch = launch;
}

void mpiscope__notes_keep(mpiscope_context_t *ctx, const mpiscope__op_engine_t *engine)
{
    ctx->n_notes = engine->n_notes;
    memcpy(ctx->note_keys, engine->note_keys, sizeof ctx->note_keys);
    memcpy(ctx->note_values, engine->note_values, sizeof ctx->note_values);
    memcpy(ctx->part_name, engine->part_name, sizeof ctx->part_name);
}

/* The line that says why the point was refused: rank 0's, else that of
 * the lowest rank that has one, on every rank (collective over comm). */
static void agree_on_error(MPI_Comm comm, int rank, int n, char *error, size_t size)
{
    int mine = error[0] ? rank : n, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first < n)
        MPI_Bcast(error, (int)size, MPI_CHAR, first, comm);
}

/* Rank 0's sample store and the method's own state for a point. */
static int state_create(mpiscope_context_t *ctx, const mpiscope__method_t *method, int synchronizes,
                        const mpiscope_point_spec_t *spec, int n, size_t n_parts, mpiscope__method_state_t *st)
{
    *st = (mpiscope__method_state_t){.params = &ctx->params, .root = spec->root, .arrival_ns = spec->arrival_ns};
    int err = mpiscope__samples_create(&ctx->params, n, ctx->keep_raw, &st->samples);
    if (!err)
        err = mpiscope__samples_set_parts(st->samples, n_parts);
    if (!err)
        st->samples->resolution_ns = ctx->timer.resolution_ns;
    if (!err && spec->validate && synchronizes) {
        st->samples->check_sync = 1; /* on rank 0, which holds every rank's residual */
        st->samples->sync_tolerance_ns = mpiscope_clock_sync_max_residual_ns(ctx->sync) + 2 * ctx->timer.resolution_ns;
    }
    if (!err && method->state_create)
        err = method->state_create(st, n);
    return err;
}

/* The largest stage a point may run: a slot for each of its launches. */
static size_t stage_launches(const mpiscope__method_t *method, const mpiscope_params_t *p, int n)
{
    size_t most = method->stage_most ? method->stage_most(p, n) : p->k > p->k_init ? p->k : p->k_init;
    return most < MPISCOPE__STAGE_KMAX ? most : MPISCOPE__STAGE_KMAX;
}

/* Combinations that cannot be measured, found before anything runs. */
static int check_spec(const mpiscope__method_t *method, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                      int n)
{
    if (!method)
        return MPISCOPE_EINVAL;
    if (spec->arrival_ns && !method->scheduled)
        return MPISCOPE_ENOTSUP; /* arrival patterns need planned start times */
    if (!mpiscope__method_fits(method, op, n))
        return MPISCOPE_ENOTSUP;
    if (spec->root < 0 || spec->root >= n)
        return MPISCOPE_ERANGE;
    return 0;
}

/* One point's op and sample store, from initialize to finalize. */
typedef struct point {
    MPI_Comm comm;
    int rank, n, have_ctx, initialized;
    mpiscope__op_engine_t engine;
    mpiscope_op_ctx_t op_ctx;
    mpiscope__method_state_t st;
    double *stage_parts;
    size_t n_parts;
} point_t;

/* How a point opened, agreed on every rank in one reduction (each costs
 * 0.1 s of wall time at 1,024 simulated ranks): the worst error, and the
 * line of the lowest rank that says why, on every rank; the parts every
 * rank must time (the most any rank declared: a rank that declared
 * another number refuses). */
static int agree_open(point_t *p, int err)
{
    long v[4] = {(long)p->engine.n_parts, -(long)p->engine.n_parts, -(long)err,
                 -(long)(p->engine.error[0] ? p->rank : p->n)};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG, MPI_MAX, p->comm);
    err = (int)-v[2];
    int first = (int)-v[3];
    if (first < p->n)
        MPI_Bcast(p->engine.error, (int)sizeof p->engine.error, MPI_CHAR, first, p->comm);
    if (!err && v[0] != -v[1]) { /* the most differs from the fewest */
        snprintf(p->engine.error, sizeof p->engine.error, "%s: ranks declared different numbers of parts",
                 p->engine.op ? p->engine.op->name : "the operation");
        err = MPISCOPE_EINVAL;
    }
    p->n_parts = (size_t)v[0];
    return err;
}

/* The op initialized, its parts agreed on and rank 0's sample store made;
 * an error (and the line saying why) the same on every rank. */
static int point_open(mpiscope_context_t *ctx, const mpiscope__method_t *method, const mpiscope_op_t *op,
                      const mpiscope_point_spec_t *spec, point_t *p)
{
    int err = setup_op_ctx(ctx, p->comm, op, spec, &p->engine, &p->op_ctx);
    p->have_ctx = !err;
    if (!err)
        err = op->initialize(&p->op_ctx);
    p->initialized = p->have_ctx && !err;
    if (!p->have_ctx)
        p->engine.error[0] = '\0';
    /* this rank's own count: another rank's is refused by agree_open() */
    size_t parts = p->engine.n_parts;
    p->stage_parts = parts ? malloc(MPISCOPE__STAGE_KMAX * parts * sizeof(double)) : NULL;
    if (!err && parts && !p->stage_parts)
        err = MPISCOPE_ENOMEM;
    /* a collective that moves no data need not synchronize (MPI libraries
     * return at once from an Allgather of 0 bytes) */
    int synchronizes = (op->flags & MPISCOPE_OP_SYNCHRONIZING)
                       && (!(op->flags & MPISCOPE_OP_USES_SIZE) || (p->have_ctx && p->op_ctx.actual_bytes > 0));
    if (!err && p->rank == 0)
        err = state_create(ctx, method, synchronizes, spec, p->n, parts, &p->st);
    err = agree_open(p, err);
    snprintf(ctx->last_error, sizeof ctx->last_error, "%s", err ? p->engine.error : "");
    return err;
}

/* What every point's result has, the notes kept, the op finalized and rank
 * 0's samples kept as the context's last. */
static void point_close(mpiscope_context_t *ctx, const mpiscope__method_t *method, const mpiscope_op_t *op,
                        const mpiscope_point_spec_t *spec, point_t *p, int err, mpiscope_point_result_t *result)
{
    result->actual_bytes = p->have_ctx ? p->op_ctx.actual_bytes : spec->size_bytes;
    mpiscope__buffer_pool_info_t pool;
    mpiscope__buffer_pool_info(ctx->pool, &pool);
    result->buffer_slots = pool.slots;
    result->buffer_region_bytes = pool.region_bytes;
    if (!err && p->rank == 0)
        mpiscope__notes_keep(ctx, &p->engine);
    if (p->initialized && op->finalize)
        op->finalize(&p->op_ctx);
    if (p->have_ctx)
        mpiscope__op_ctx_release_buffers(&p->op_ctx);
    mpiscope__op_engine_free(&p->engine);
    free(p->stage_parts);
    if (p->rank == 0) {
        if (method->state_free)
            method->state_free(&p->st);
        mpiscope__samples_destroy(ctx->last);
        ctx->last = p->st.samples;
        ctx->last_nprocs = p->n;
    }
}

int mpiscope_context_measure(mpiscope_context_t *ctx, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                             mpiscope_point_result_t *result)
{
    if (!ctx || !op || !spec || !result)
        return MPISCOPE_EINVAL;
    ctx->last_error[0] = '\0';
    if (!mpiscope__op_usable(op, ctx->last_error, sizeof ctx->last_error))
        return MPISCOPE_EINVAL;
    memset(result, 0, sizeof *result);
    point_t p = {0};
    int err = point_comm(ctx, spec->nprocs, &p.comm);
    if (err || p.comm == MPI_COMM_NULL)
        return err; /* not a member of this point's communicator */
    MPI_Comm_rank(p.comm, &p.rank);
    MPI_Comm_size(p.comm, &p.n);
    int rank = p.rank, n = p.n;
    const mpiscope__method_t *method = spec->method_handle ? spec->method_handle : mpiscope__method_find(spec->method);
    err = check_spec(method, op, spec, n);
    if (err)
        return err;

    double t_begin = mpiscope__now_ns();
    mpiscope__buffer_pool_set_cold(ctx->pool, spec->cache_cold >= 0 ? spec->cache_cold : ctx->params.cache_cold);
    mpiscope__buffer_pool_set_shared(ctx->pool, !spec->validate);
    mpiscope__buffer_pool_set_stage_launches(ctx->pool, stage_launches(method, &ctx->params, n));
    err = point_open(ctx, method, op, spec, &p);
    mpiscope__validation_t v = {.enabled = spec->validate && op->validate, .checked = 0, .failed = 0};
    mpiscope__stage_env_t env = {.op = op,
                                 .op_ctx = &p.op_ctx,
                                 .comm = p.comm,
                                 .rank = rank,
                                 .nprocs = n,
                                 .root = spec->root,
                                 .arrival_ns = spec->arrival_ns ? spec->arrival_ns[rank] : 0,
                                 .gap_ns = ctx->params.gap_ns,
                                 .lead_ns = ctx->params.t_bcast_ns,
                                 .launch = 0,
                                 .validation = &v,
                                 .stage_parts = p.stage_parts,
                                 .n_parts = p.n_parts};
    mpiscope__sync_model(ctx->sync, &env.clock);
    if (!err && method->prepare)
        err = method->prepare(&env, rank == 0 ? &p.st : NULL);
    if (!err) {
        err = run_point(ctx, method, &env, &p.st); /* the same code on every rank */
        if (err) {                                 /* an op may say why a launch failed (a full file system) */
            agree_on_error(p.comm, rank, n, p.engine.error, sizeof p.engine.error);
            snprintf(ctx->last_error, sizeof ctx->last_error, "%s", p.engine.error);
        }
    }
    if (!err && rank == 0) {
        err = mpiscope__samples_result(p.st.samples, result);
        if (method->result)
            method->result(&p.st, result);
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, p.comm);
    if (!err)
        MPI_Bcast(result, (int)sizeof *result, MPI_BYTE, 0, p.comm);
    result->participated = 1;
    if (!err)
        gather_validation(p.comm, rank, &v, &p.engine, result);
    result->elapsed_ns = mpiscope__now_ns() - t_begin;
    point_close(ctx, method, op, spec, &p, err, result);
    return err;
}
