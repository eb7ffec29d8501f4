/* firstcall.c: the first call of an operation on a fresh communicator
 * against its second call on a buffer at another address. Nothing
 * communicates before the first call but MPI_Init and the communicator's
 * creation: no clock synchronisation, no barrier (they would set up the
 * very connections being measured). The second call then starts at one
 * moment of a freshly synchronised global clock: a barrier before it would
 * add the barrier's own exit skew (~190 us for a Barrier after a Barrier
 * here) to the ranks that leave it first. */
#include <stdio.h>
#include <stdlib.h>
#include "mpiscope/mpiscope.h"
#include "firstcall.h"
#include "json.h"
#include "opctx.h"
#include "result_internal.h"

typedef struct call_times {
    double first_ns, second_ns;
} call_times_t;

static double now(void) { return mpiscope_timer_now_ns(); }

/* Return on every rank at the same global moment (collective). */
static int start_together(MPI_Comm comm)
{
    mpiscope_clock_sync_t *sync;
    int err = mpiscope_clock_sync_run(comm, NULL, &sync);
    if (err)
        return err;
    double start = mpiscope_clock_sync_now_ns(sync) + 100e3; /* rank 0's: broadcast below */
    MPI_Bcast(&start, 1, MPI_DOUBLE, 0, comm);
    mpiscope_timer_spin_until_ns(start - sync->offset_ns);
    mpiscope_clock_sync_free(sync);
    return 0;
}

/* The two calls of one op on a new communicator; this rank's times. */
static int two_calls(const bench_options_t *o, const mpiscope_op_t *op, mpiscope__buffer_pool_t *pool,
                     call_times_t *t)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    mpiscope__op_engine_t engine = {.pool = pool, .op = op};
    mpiscope_op_ctx_t ctx;
    mpiscope__op_types_t types;
    int err = mpiscope__op_types_resolve(op, o->dtype, o->reduce_op, &types);
    if (!err)
        err = mpiscope__op_ctx_init(&ctx, comm, o->sizes[0], o->root, types.dtype, types.reduce_op, &engine);
    if (!err)
        err = op->initialize(&ctx);
    if (!err) {
        mpiscope__op_ctx_select_buffers(&ctx, 0);
        double t0 = now();
        int failed = op->execute(&ctx);
        t->first_ns = now() - t0;
        mpiscope__op_ctx_select_buffers(&ctx, 1); /* same size, another address */
        err = start_together(comm);
        t0 = now();
        failed |= op->execute(&ctx);
        t->second_ns = now() - t0;
        err = err ? err : failed ? MPISCOPE_EMPI : 0;
        if (op->finalize)
            op->finalize(&ctx);
        mpiscope__op_ctx_release_buffers(&ctx);
    }
    MPI_Comm_free(&comm);
    return err;
}

static double max_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

static void write_point(mpiscope__json_t *j, const mpiscope_op_t *op, size_t size, const double *first,
                        const double *second, int n)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "kind", "firstcall");
    mpiscope__json_string(j, "op", op->name);
    mpiscope__json_integer(j, "size_bytes", (long long)size);
    mpiscope__json_integer(j, "nprocs", n);
    mpiscope__json_array(j, "first_ns");
    for (int r = 0; r < n; r++)
        mpiscope__json_number(j, NULL, first[r]);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "second_ns");
    for (int r = 0; r < n; r++)
        mpiscope__json_number(j, NULL, second[r]);
    mpiscope__json_end(j);
    mpiscope__json_number(j, "ratio_rank0", first[0] / second[0]);
    mpiscope__json_number(j, "ratio_max", max_of(first, n) / max_of(second, n));
    mpiscope__json_end(j);
}

/* The document: a context for the environment (its clock sync comes
 * after every measurement, so it cannot warm anything up). */
static int write_result(const bench_options_t *o, const mpiscope_op_t *const *ops, const double *first,
                        const double *second, int n)
{
    mpiscope_context_t *ctx;
    mpiscope_params_t params = o->params;
    int err = mpiscope_context_create(MPI_COMM_WORLD, &params, &ctx);
    if (err)
        return err;
    mpiscope_result_t *res;
    err = mpiscope_result_open(ctx, o->out, o->force ? MPISCOPE_RESULT_FORCE : 0, &res);
    if (!err) {
        for (int i = 0; i < o->n_meta; i++)
            mpiscope_result_set_meta(res, o->meta_keys[i], o->meta_values[i]);
        mpiscope_result_warn(res, "first-call measurement: one call of each kind per rank, no statistics");
        for (int i = 0; i < o->n_ops && !err; i++) {
            mpiscope__json_t j;
            mpiscope__json_init(&j);
            write_point(&j, ops[i], o->sizes[0], first + (size_t)i * n, second + (size_t)i * n, n);
            err = j.failed ? MPISCOPE_ENOMEM : mpiscope__result_add_raw_point(res, j.buf);
            mpiscope__json_free(&j);
        }
        int close_err = mpiscope_result_close(res, err != 0);
        err = err ? err : close_err;
    }
    mpiscope_context_destroy(ctx);
    return err;
}

int bench_firstcall(const bench_options_t *o, const mpiscope_op_t *const *ops)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    mpiscope__buffer_pool_t *pool;
    int err = mpiscope_timer_init(o->params.timer, 0);
    if (err && o->params.timer == MPISCOPE_TIMER_AUTO)
        err = mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0);
    if (!err)
        err = mpiscope__buffer_pool_create(1, o->params.alignment_bytes, o->params.pool_limit_bytes, &pool);
    if (err)
        return err;
    double *mine = malloc(2 * (size_t)o->n_ops * sizeof *mine);
    double *all = malloc(2 * (size_t)o->n_ops * (size_t)n * sizeof *all);
    double *first = malloc((size_t)o->n_ops * (size_t)n * sizeof *first);
    double *second = malloc((size_t)o->n_ops * (size_t)n * sizeof *second);
    err = mine && all && first && second ? 0 : MPISCOPE_ENOMEM;
    for (int i = 0; i < o->n_ops && !err; i++) {
        call_times_t t;
        err = two_calls(o, ops[i], pool, &t);
        mine[2 * i] = t.first_ns;
        mine[2 * i + 1] = t.second_ns;
    }
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!err) {
        MPI_Allgather(mine, 2 * o->n_ops, MPI_DOUBLE, all, 2 * o->n_ops, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int i = 0; i < o->n_ops; i++)
            for (int r = 0; r < n; r++) {
                first[(size_t)i * n + r] = all[(size_t)r * 2 * o->n_ops + 2 * i];
                second[(size_t)i * n + r] = all[(size_t)r * 2 * o->n_ops + 2 * i + 1];
            }
        err = write_result(o, ops, first, second, n);
    }
    mpiscope__buffer_pool_destroy(pool);
    free(mine);
    free(all);
    free(first);
    free(second);
    return err;
}
