/* plan_run.c: running a plan (mpiscope_plan_run()): every point measured
 * on one context and added to the result document. */
#include <stdio.h>
#include <stdlib.h>
#include "mpiscope/error.h"
#include "mpiscope/result.h"
#include "context.h"
#include "plan_spec.h"
#include "result_internal.h"

typedef struct run {
    MPI_Comm comm;
    const mpiscope__plan_t *plan;
    mpiscope_context_t *ctx;
    mpiscope_result_t *res;
    const double *arrival_ns;  /* NULL: no arrival pattern */
    char *err;
    size_t err_size;
} run_t;

/* The first error's line wins. */
static int fail(run_t *r, const char *what, int err)
{
    if (!r->err[0])
        snprintf(r->err, r->err_size, "%s: %s", what, mpiscope_strerror(err));
    return err;
}

/* A write failure: the writer's own line (`why`: what and why), if it has one. */
static int fail_write(run_t *r, const char *why, int err)
{
    if (!why[0])
        return fail(r, "writing the result", err);
    if (!r->err[0])
        snprintf(r->err, r->err_size, "%s", why);
    return err;
}

/* Measure one point and add it to the document. */
static int measure_point(run_t *run, const mpiscope__plan_point_t *pt, mpiscope_point_result_t *r)
{
    const mpiscope__plan_t *o = run->plan;
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
    spec.arrival_ns = run->arrival_ns;
    /* between points, never inside one: every point, or when the last sync is old */
    int err = o->resync ? mpiscope_context_resync(run->ctx) : mpiscope__context_resync_if_due(run->ctx);
    if (!err)
        err = mpiscope_context_measure(run->ctx, pt->op, &spec, r);
    if (err) {
        char what[160];
        const char *why = mpiscope_context_last_error(run->ctx);
        if (why[0])
            snprintf(what, sizeof what, "%s", why);
        else
            snprintf(what, sizeof what, "%s with method %s", pt->op->name, mpiscope_method_get_name(pt->method));
        return fail(run, what, err);
    }
    if (!spec.nprocs)
        spec.nprocs = mpiscope_context_sync(run->ctx)->nprocs;
    err = mpiscope_result_add_point(run->res, pt->op, &spec, r);
    return err ? fail_write(run, mpiscope__result_error(run->res), err) : 0;
}

/* Every point of the plan, in plan order (or shuffled). */
static int run_points(run_t *run, mpiscope_plan_point_fn on_point, void *user)
{
    const mpiscope__plan_t *o = run->plan;
    mpiscope__plan_point_t *points;
    size_t n;
    int nprocs = mpiscope_context_sync(run->ctx)->nprocs;
    double *arrival = calloc((size_t)nprocs, sizeof *arrival);
    int err = arrival ? mpiscope__plan_points(o, &points, &n) : MPISCOPE_ENOMEM;
    if (err) {
        free(arrival);
        return fail(run, "planning the points", err);
    }
    err = mpiscope__arrival_offsets(&o->arrival, nprocs, arrival);
    if (err)
        fail(run, "plan field 'arrival': names a rank that does not exist", err);
    run->arrival_ns = o->arrival.kind != MPISCOPE__ARRIVAL_NONE ? arrival : NULL;
    int validation_failed = 0; /* every point still runs: one report lists them all */
    for (size_t i = 0; i < n && !err; i++) {
        mpiscope_point_result_t r;
        err = measure_point(run, &points[i], &r);
        if (err)
            break;
        mpiscope_plan_point_report_t report = {
            .index = i, .total = n, .op = points[i].op, .method = points[i].method,
            .size_bytes = points[i].size_bytes, .nprocs = points[i].nprocs ? points[i].nprocs : nprocs,
            .result = &r};
        if (on_point)
            on_point(&report, user);
        validation_failed |= r.validation_failures != 0;
        MPI_Barrier(run->comm); /* ranks outside a sub-communicator wait here */
    }
    free(points);
    free(arrival);
    return err ? err : validation_failed ? MPISCOPE_EVALIDATE : 0;
}

/* The document's header: environment, what varies, warnings. */
static void describe_run(const mpiscope__plan_t *o, mpiscope_result_t *res)
{
    for (int i = 0; i < o->n_meta; i++)
        mpiscope_result_set_meta(res, o->meta_keys[i], o->meta_values[i]);
    mpiscope_result_set_varied(res, o->n_nprocs ? "nprocs" : "size");
    mpiscope_result_set_methods(res, o->methods, o->n_methods);
    mpiscope_result_set_oversubscribed(res, o->oversubscribed);
    if (o->thread_level && o->thread_level[0])
        mpiscope_result_set_meta(res, "thread_level_requested", o->thread_level);
    if (o->oversubscribed)
        mpiscope_result_warn(res, "more ranks than cores: every point was measured oversubscribed");
    if (o->validate)
        mpiscope_result_warn(res, "validated run: buffers were written and read around every launch, "
                                  "so caches were warm and timings are not comparable");
}

static int run_plan(run_t *run, mpiscope_plan_point_fn on_point, void *user)
{
    const mpiscope__plan_t *o = run->plan;
    int nprocs;
    MPI_Comm_size(run->comm, &nprocs);
    for (int i = 0; i < o->n_nprocs; i++)
        if (o->nprocs[i] > nprocs) {
            snprintf(run->err, run->err_size, "plan field 'nprocs': %d exceeds the %d ranks launched",
                     o->nprocs[i], nprocs);
            return MPISCOPE_ERANGE;
        }
    int err = mpiscope_context_create(run->comm, &o->params, &run->ctx);
    if (err)
        return fail(run, "setting up the measurement (timer, clock sync)", err);
    unsigned flags = (o->force ? MPISCOPE_RESULT_FORCE : 0) | (o->raw ? MPISCOPE_RESULT_RAW : 0);
    err = mpiscope_result_open(run->ctx, o->out, flags, &run->res);
    if (err) {
        fail(run, o->out, err);
        mpiscope_context_destroy(run->ctx);
        return err;
    }
    describe_run(o, run->res);
    err = run_points(run, on_point, user);
    char why[256];
    /* a validation failure is a finding of a complete run, not a failed run */
    int close_err = mpiscope__result_close(run->res, err != 0 && err != MPISCOPE_EVALIDATE, why, sizeof why);
    if (close_err && !err)
        fail_write(run, why, close_err);
    mpiscope_context_destroy(run->ctx);
    return err ? err : close_err;
}

int mpiscope_plan_run(MPI_Comm comm, const mpiscope_plan_t *plan, mpiscope_plan_point_fn on_point, void *user,
                      char *err, size_t err_size)
{
    char local[320];
    if (!err || !err_size) {
        err = local;
        err_size = sizeof local;
    }
    err[0] = '\0';
    if (!plan || comm == MPI_COMM_NULL) {
        snprintf(err, err_size, "plan: no plan or no communicator");
        return MPISCOPE_EINVAL;
    }
    int launched;
    MPI_Comm_size(comm, &launched);
    if (plan->ranks && launched != plan->ranks) {
        snprintf(err, err_size, "%d rank%s started where %d were asked for (with srun, each task "
                 "is then an MPI job of its own: give srun --mpi)", launched, launched == 1 ? "" : "s",
                 plan->ranks);
        return MPISCOPE_ERANGE;
    }
    if (plan->check)
        return mpiscope__plan_run_check(comm, plan, err, err_size);
    if (plan->firstcall)
        return mpiscope__plan_run_firstcall(comm, plan, err, err_size);
    run_t run = {.comm = comm, .plan = plan, .err = err, .err_size = err_size};
    return run_plan(&run, on_point, user);
}
