/* firstcall.c: the first call of an operation on a fresh communicator
 * against its second call on a buffer at another address
 * (mpiscope/firstcall.h). Nothing communicates before the first call but
 * MPI_Init and the communicator's creation: no clock synchronization, no
 * barrier (they would set up the very connections being measured). The
 * second call then starts at one moment of a freshly synchronized global
 * clock: a barrier before it would add the barrier's own exit skew (~190 us
 * for a Barrier after a Barrier here) to the ranks that leave it first. */
#include <limits.h>
#include <stdlib.h>
#include "mpiscope/error.h"
#include "mpiscope/firstcall.h"
#include "opctx.h"

typedef struct call_times {
    double first_ns, second_ns;
} call_times_t;

/* Return on every rank at the same global moment (collective), the
 * clocks synchronized with the run's parameters. */
static int start_together(MPI_Comm comm, const mpiscope_sync_params_t *params)
{
    mpiscope_clock_sync_t *sync;
    int err = mpiscope_clock_sync_run(comm, params, &sync);
    if (err)
        return err;
    double start = mpiscope_clock_sync_now_ns(sync) + 100e3; /* rank 0's: broadcast below */
    MPI_Bcast(&start, 1, MPI_DOUBLE, 0, comm);
    mpiscope_timer_spin_until_ns(mpiscope_clock_sync_local_ns(sync, start));
    mpiscope_clock_sync_free(sync);
    return 0;
}

/* The two calls of one op on a new communicator; this rank's times. */
static int two_calls(MPI_Comm parent, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                     const mpiscope_sync_params_t *sync, mpiscope__buffer_pool_t *pool, call_times_t *t)
{
    MPI_Comm comm;
    if (MPI_Comm_dup(parent, &comm) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    mpiscope__op_engine_t engine = {.pool = pool,
                                    .op = op,
                                    .option_names = spec->option_names,
                                    .option_values = spec->option_values,
                                    .n_options = spec->n_options};
    mpiscope_op_ctx_t ctx;
    mpiscope__op_types_t types;
    int err = mpiscope__op_types_resolve(op, spec->dtype, spec->reduce_op, &types);
    if (!err)
        err = mpiscope__op_ctx_init(&ctx, comm, spec->size_bytes, spec->root, types.dtype, types.reduce_op, &engine);
    if (!err)
        err = op->initialize(&ctx);
    if (!err) {
        mpiscope__op_ctx_select_buffers(&ctx, 0);
        double t0 = ctx.launch_start_ns = mpiscope_timer_now_ns();
        int failed = op->execute(&ctx);
        t->first_ns = mpiscope_timer_now_ns() - t0;
        mpiscope__op_ctx_select_buffers(&ctx, 1); /* same size, another address */
        err = start_together(comm, sync);
        t0 = ctx.launch_start_ns = mpiscope_timer_now_ns();
        failed |= op->execute(&ctx);
        t->second_ns = mpiscope_timer_now_ns() - t0;
        err = err ? err : failed ? MPISCOPE_EMPI : 0;
        if (op->finalize)
            op->finalize(&ctx);
        mpiscope__op_ctx_release_buffers(&ctx);
    }
    mpiscope__op_engine_free(&engine);
    MPI_Comm_free(&comm);
    return err;
}

static int check_arguments(MPI_Comm comm, const mpiscope_op_t *const *ops, size_t n_ops,
                           const mpiscope_point_spec_t *spec, mpiscope_firstcall_t **out)
{
    if (comm == MPI_COMM_NULL || !ops || n_ops == 0 || n_ops > INT_MAX / 2 || !spec || !out || spec->nprocs != 0
        || spec->validate || spec->arrival_ns)
        return MPISCOPE_EINVAL;
    for (size_t i = 0; i < n_ops; i++)
        if (!mpiscope__op_usable(ops[i], NULL, 0))
            return MPISCOPE_EINVAL;
    int n;
    MPI_Comm_size(comm, &n);
    return spec->root < 0 || spec->root >= n ? MPISCOPE_ERANGE : 0;
}

/* The record; on rank 0 (`times`) its arrays sized for n_ops x nprocs. */
static mpiscope_firstcall_t *firstcall_new(const mpiscope_op_t *const *ops, size_t n_ops, int nprocs, size_t size_bytes,
                                           int times)
{
    mpiscope_firstcall_t *fc = calloc(1, sizeof *fc);
    if (!fc)
        return NULL;
    size_t bytes = times ? n_ops * (size_t)nprocs * sizeof(double) : 0;
    *fc = (mpiscope_firstcall_t){.n_ops = n_ops,
                                 .nprocs = nprocs,
                                 .size_bytes = size_bytes,
                                 .ops = malloc(n_ops * sizeof *fc->ops),
                                 .first_ns = times ? malloc(bytes) : NULL,
                                 .second_ns = times ? malloc(bytes) : NULL};
    if (!fc->ops || (times && (!fc->first_ns || !fc->second_ns))) {
        mpiscope_firstcall_free(fc);
        return NULL;
    }
    for (size_t i = 0; i < n_ops; i++)
        fc->ops[i] = ops[i];
    return fc;
}

/* Every rank's (first, second) pairs, op by op, into rank 0's fc: the
 * others' arrays stay NULL (an Allgather gave every rank every rank's
 * times, p^2 pairs in all, in one process under a simulator). */
static int gather(MPI_Comm comm, const double *mine, mpiscope_firstcall_t *fc)
{
    int n = fc->nprocs, per_rank = 2 * (int)fc->n_ops, rank;
    MPI_Comm_rank(comm, &rank);
    double *all = rank == 0 ? malloc((size_t)per_rank * (size_t)n * sizeof *all) : NULL;
    int err = rank == 0 && !all ? MPISCOPE_ENOMEM : 0;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    if (!err && MPI_Gather(mine, per_rank, MPI_DOUBLE, all, per_rank, MPI_DOUBLE, 0, comm) != MPI_SUCCESS)
        err = MPISCOPE_EMPI;
    for (size_t i = 0; i < fc->n_ops && !err && rank == 0; i++)
        for (int r = 0; r < n; r++) {
            fc->first_ns[i * (size_t)n + (size_t)r] = all[(size_t)r * (size_t)per_rank + 2 * i];
            fc->second_ns[i * (size_t)n + (size_t)r] = all[(size_t)r * (size_t)per_rank + 2 * i + 1];
        }
    free(all);
    return err;
}

static int start_timer(const mpiscope_params_t *params)
{
    int err = mpiscope_timer_init(params->timer, 0);
    if (err && params->timer == MPISCOPE_TIMER_AUTO)
        err = mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0);
    return err;
}

int mpiscope_firstcall_run(MPI_Comm comm, const mpiscope_params_t *params, const mpiscope_op_t *const *ops,
                           size_t n_ops, const mpiscope_point_spec_t *spec, mpiscope_firstcall_t **out)
{
    int err = check_arguments(comm, ops, n_ops, spec, out);
    if (err)
        return err;
    mpiscope_params_t defaults;
    mpiscope_params_default(&defaults);
    const mpiscope_params_t *p = params ? params : &defaults;
    int n, rank;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &rank);
    mpiscope__buffer_pool_t *pool = NULL;
    err = start_timer(p);
    if (!err)
        err = mpiscope__buffer_pool_create(1, p->alignment_bytes, p->pool_limit_bytes, &pool);
    double *mine = malloc(2 * n_ops * sizeof *mine);
    mpiscope_firstcall_t *fc = err ? NULL : firstcall_new(ops, n_ops, n, spec->size_bytes, rank == 0);
    err = err ? err : mine && fc ? 0 : MPISCOPE_ENOMEM;
    for (size_t i = 0; i < n_ops && !err; i++) {
        call_times_t t = {0, 0};
        /* what the library must set up on every process (op.h: prepare) is
         * not the op's first call: an op that needs it would hang without */
        err = ops[i]->prepare ? ops[i]->prepare(comm) : 0;
        if (!err)
            err = two_calls(comm, ops[i], spec, &p->sync, pool, &t);
        mine[2 * i] = t.first_ns;
        mine[2 * i + 1] = t.second_ns;
    }
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    if (!err)
        err = gather(comm, mine, fc);
    mpiscope__buffer_pool_destroy(pool);
    free(mine);
    if (err)
        mpiscope_firstcall_free(fc);
    else
        *out = fc;
    return err;
}

void mpiscope_firstcall_free(mpiscope_firstcall_t *fc)
{
    if (!fc)
        return;
    free(fc->ops);
    free(fc->first_ns);
    free(fc->second_ns);
    free(fc);
}
