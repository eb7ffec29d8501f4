/* main.c: mpiscope-bench, the thin executable `mpiscope run` launches on
 * every rank: parse the plan, measure every point, write the document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/mpiscope.h"
#include "options.h"
#include "plan.h"
#include "check.h"
#include "firstcall.h"

static int rank0;

static void fail(const char *what, int err)
{
    if (rank0)
        fprintf(stderr, "mpiscope-bench: error: %s: %s\n", what, mpiscope_strerror(err));
}

static void progress(const bench_options_t *o, int index, int total, const mpiscope_op_t *op,
                     const mpiscope_point_spec_t *spec, const mpiscope_point_result_t *r)
{
    if (!o->progress || !rank0)
        return;
    printf("@mpiscope progress {\"index\":%d,\"total\":%d,\"op\":\"%s\",\"size_bytes\":%zu,"
           "\"nprocs\":%d,\"median_ns\":%.6g,\"ci_low_ns\":%.6g,\"ci_high_ns\":%.6g,\"unstable\":%s}\n",
           index, total, op->name, spec->size_bytes, spec->nprocs, r->stats.median,
           r->stats.ci_low, r->stats.ci_high, r->unstable ? "true" : "false");
    fflush(stdout);
}

static void report_validation(const bench_point_t *pt, const mpiscope_point_result_t *r)
{
    if (rank0)
        fprintf(stderr, "mpiscope-bench: error: %s: validation failed on rank %d, launch %zu: %s\n",
                pt->op->name, r->first_mismatch_rank, r->first_mismatch_launch, r->first_mismatch);
}

/* Measure one point and add it to the document. */
static int measure_point(const bench_options_t *o, const bench_point_t *pt, const double *arrival,
                         mpiscope_context_t *ctx, mpiscope_result_t *res, mpiscope_point_result_t *r)
{
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    spec.size_bytes = pt->size_bytes;
    spec.nprocs = pt->nprocs;
    spec.root = o->root;
    spec.dtype = o->dtype;
    spec.reduce_op = o->reduce_op;
    spec.option_names = o->opt_names;
    spec.option_values = o->opt_values;
    spec.n_options = (size_t)o->n_opts;
    spec.validate = o->validate;
    spec.method_handle = pt->method;
    spec.cache_cold = pt->cache_cold;
    spec.arrival_ns = o->arrival.kind != MPISCOPE__ARRIVAL_NONE ? arrival : NULL;
    int err = o->resync ? mpiscope_context_resync(ctx) : 0;
    if (!err)
        err = mpiscope_context_measure(ctx, pt->op, &spec, r);
    if (err) {
        char what[160];
        const char *why = mpiscope_context_last_error(ctx);
        if (why[0])
            snprintf(what, sizeof what, "%s", why);
        else
            snprintf(what, sizeof what, "%s with method %s", pt->op->name,
                     mpiscope_method_get_name(pt->method));
        fail(what, err);
        return err;
    }
    if (!spec.nprocs)
        spec.nprocs = mpiscope_context_sync(ctx)->nprocs;
    err = mpiscope_result_add_point(res, pt->op, &spec, r);
    if (err)
        fail("writing the result", err);
    return err;
}

/* Every point of the plan, in plan order (or shuffled). */
static int run_plan(const bench_options_t *o, const mpiscope_op_t *const *ops, mpiscope_context_t *ctx,
                    mpiscope_result_t *res)
{
    bench_point_t *points;
    size_t n;
    int nprocs = mpiscope_context_sync(ctx)->nprocs;
    double *arrival = calloc((size_t)nprocs, sizeof *arrival);
    int err = arrival ? bench_plan_build(o, ops, &points, &n) : MPISCOPE_ENOMEM;
    if (err) {
        free(arrival);
        return err;
    }
    err = mpiscope__arrival_offsets(&o->arrival, nprocs, arrival);
    if (err)
        fail("--arrival names a rank that does not exist", err);
    int validation_failed = 0; /* every point still runs: one report lists them all */
    for (size_t i = 0; i < n && !err; i++) {
        mpiscope_point_result_t r;
        err = measure_point(o, &points[i], arrival, ctx, res, &r);
        if (err)
            break;
        mpiscope_point_spec_t shown = MPISCOPE_POINT_SPEC_INIT;
        shown.size_bytes = points[i].size_bytes;
        shown.nprocs = points[i].nprocs ? points[i].nprocs : nprocs;
        progress(o, (int)i + 1, (int)n, points[i].op, &shown, &r);
        if (r.validation_failures) {
            report_validation(&points[i], &r);
            validation_failed = 1;
        }
        MPI_Barrier(MPI_COMM_WORLD); /* ranks outside a sub-communicator wait here */
    }
    free(points);
    free(arrival);
    return err ? err : validation_failed ? MPISCOPE_EVALIDATE : 0;
}

static int run(const bench_options_t *o)
{
    const mpiscope_op_t *const *ops = o->op_handles; /* looked up by the plan reader */
    int err;
    if (o->check || o->firstcall) {
        err = o->check ? bench_check(o) : bench_firstcall(o, ops);
        if (err)
            fail(o->check ? "machine check" : "first-call measurement", err);
        return err;
    }
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 0; i < o->n_nprocs; i++)
        if (o->nprocs[i] > nprocs) {
            if (rank0)
                fprintf(stderr, "mpiscope-bench: error: --nprocs %d exceeds the %d ranks launched\n",
                        o->nprocs[i], nprocs);
            return MPISCOPE_ERANGE;
        }
    mpiscope_context_t *ctx;
    err = mpiscope_context_create(MPI_COMM_WORLD, &o->params, &ctx);
    if (err) {
        fail("setting up the measurement (timer, clock sync)", err);
        return err;
    }
    mpiscope_result_t *res;
    unsigned flags = (o->force ? MPISCOPE_RESULT_FORCE : 0) | (o->raw ? MPISCOPE_RESULT_RAW : 0);
    err = mpiscope_result_open(ctx, o->out, flags, &res);
    if (err) {
        fail(o->out, err);
        mpiscope_context_destroy(ctx);
        return err;
    }
    for (int i = 0; i < o->n_meta; i++)
        mpiscope_result_set_meta(res, o->meta_keys[i], o->meta_values[i]);
    mpiscope_result_set_varied(res, o->n_nprocs ? "nprocs" : "size");
    mpiscope_result_set_methods(res, o->methods, o->n_methods);
    mpiscope_result_set_oversubscribed(res, o->oversubscribed);
    if (o->oversubscribed)
        mpiscope_result_warn(res, "more ranks than cores: every point was measured oversubscribed");
    if (o->validate)
        mpiscope_result_warn(res, "validated run: buffers were written and read around every launch, "
                                  "so caches were warm and timings are not comparable");
    err = run_plan(o, ops, ctx, res);
    /* a validation failure is a finding of a complete run, not a failed run */
    int close_err = mpiscope_result_close(res, err != 0 && err != MPISCOPE_EVALIDATE);
    if (close_err && !err)
        fail("writing the result", close_err);
    mpiscope_context_destroy(ctx);
    return err ? err : close_err;
}

int main(int argc, char **argv)
{
    bench_command_t cmd;
    char err_text[320];
    int bad = bench_options_parse(argc, argv, &cmd, err_text, sizeof err_text);
    const bench_options_t o = cmd.plan;
    if (!bad && (cmd.list_ops || cmd.help || cmd.describe)) { /* no MPI needed: runs without mpiexec */
        if (cmd.help)
            bench_options_usage();
        int err = cmd.list_ops ? mpiscope_op_catalogue_write(stdout, 0)
                  : cmd.describe ? mpiscope_describe_write(stdout, 0) : 0;
        return err ? 1 : 0;
    }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rank0 = rank == 0;
    if (bad) {
        if (rank0)
            fprintf(stderr, "mpiscope-bench: error: %s\n", err_text);
        MPI_Finalize();
        return 2;
    }
    int err = run(&o);
    mpiscope__plan_free(&cmd.plan);
    MPI_Finalize();
    return err ? 1 : 0;
}
