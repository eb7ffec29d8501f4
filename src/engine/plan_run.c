/* plan_run.c: running a plan (mpiscope_plan_run()): every point measured
 * on one context and added to the result document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/result.h"
#include "context.h"
#include "ledger.h"
#include "plan_spec.h"
#include "result_internal.h"
#include "wall_log.h"

typedef struct run {
    MPI_Comm comm;
    const mpiscope__plan_t *plan;
    mpiscope_context_t *ctx;
    mpiscope_result_t *res;
    const double *arrival_ns; /* NULL: no arrival pattern */
    int rank0;                /* logs the wall time of the parts (wall_log.h) */
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

/* The point's JSON with its ledger member added (rank 0; the others' stay
 * empty), or NULL when out of memory. */
static char *with_ledger(const mpiscope__json_t *item, const mpiscope__json_t *ledger)
{
    if (!item->buf || !ledger->buf || item->failed || ledger->failed)
        return NULL;
    size_t n = item->len + ledger->len + 16;
    char *text = malloc(n);
    if (text) /* the point's object without its closing brace, then the member */
        snprintf(text, n, "%.*s,\"ledger\":%s}", (int)(item->len - 1), item->buf, ledger->buf);
    return text;
}

/* Rank 0: the wall time since *t0 into the log (wall_log.h), *t0 now. */
static void wall_part(const run_t *run, const char *part, double *t0)
{
    if (run->rank0)
        mpiscope__wall_log(part, *t0);
    *t0 = mpiscope__wall_now_s();
}

/* The point's companions (ledger.c), then the point with its ledger. */
static int add_with_ledger(run_t *run, const mpiscope__plan_point_t *pt, const mpiscope_point_spec_t *spec,
                           const mpiscope_point_result_t *r, double *t0)
{
    mpiscope__json_t item, ledger;
    mpiscope__json_init(&item);
    mpiscope__json_init(&ledger);
    mpiscope__result_point_json(run->res, pt->op, spec, r, &item); /* before ctx->last changes */
    int err = mpiscope__ledger_measure(run->ctx, pt->op, spec, r, &ledger);
    wall_part(run, "ledger", t0);
    char *text = run->ctx->rank == 0 && !err ? with_ledger(&item, &ledger) : NULL;
    if (!err && run->ctx->rank == 0 && !text)
        err = MPISCOPE_ENOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, run->comm);
    if (err)
        fail(run, "measuring the ledger's companions", err);
    else if ((err = mpiscope__result_add_raw_point(run->res, text ? text : "")) != 0)
        fail_write(run, mpiscope__result_error(run->res), err);
    free(text);
    mpiscope__json_free(&item);
    mpiscope__json_free(&ledger);
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
    double t0 = mpiscope__wall_now_s();
    int err = o->resync ? mpiscope_context_resync(run->ctx) : mpiscope__context_resync_if_due(run->ctx);
    wall_part(run, "resync", &t0);
    if (!err)
        err = mpiscope_context_measure(run->ctx, pt->op, &spec, r);
    wall_part(run, "launches", &t0);
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
    if (o->ledger && mpiscope__ledger_applies(pt->op, &spec))
        err = add_with_ledger(run, pt, &spec, r, &t0);
    else if ((err = mpiscope_result_add_point(run->res, pt->op, &spec, r)) != 0)
        fail_write(run, mpiscope__result_error(run->res), err);
    wall_part(run, "write", &t0);
    return err;
}

/* Each op's prepare hook, once, on every rank of the run (collective). */
static int prepare_ops(run_t *run)
{
    const mpiscope__plan_t *o = run->plan;
    for (int i = 0; i < o->n_ops; i++) {
        const mpiscope_op_t *op = o->op_handles[i];
        int err = op->prepare ? op->prepare(run->comm) : 0;
        if (err) {
            char what[160];
            snprintf(what, sizeof what, "%s: preparing the MPI library", op->name);
            return fail(run, what, err);
        }
    }
    return 0;
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
        mpiscope_plan_point_report_t report = {.index = i,
                                               .total = n,
                                               .op = points[i].op,
                                               .method = points[i].method,
                                               .size_bytes = points[i].size_bytes,
                                               .nprocs = points[i].nprocs ? points[i].nprocs : nprocs,
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

/* Whether the floor is subtracted: asked for, and measured (a busy machine
 * can leave waitpattern_null without one valid launch). */
static int floor_subtracted(const run_t *run, const mpiscope_point_result_t *r)
{
    return run->plan->floor == MPISCOPE__FLOOR_SUBTRACT && isfinite(r->stats.median) && r->stats.median > 0;
}

/* The floor's section: WaitPatternNull's statistics and each rank's median. */
static void floor_json(const run_t *run, const mpiscope_point_result_t *r, double se_ns, mpiscope__json_t *j)
{
    const mpiscope_stats_t *s = &r->stats;
    const mpiscope__samples_t *last = run->ctx->last;
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "op", "waitpattern_null");
    mpiscope__json_string(j, "method", "window");
    mpiscope__json_string(j, "mode", mpiscope__floor_modes[run->plan->floor]);
    mpiscope__json_bool(j, "subtracted", floor_subtracted(run, r));
    mpiscope__json_integer(j, "samples", (long long)s->n_valid);
    mpiscope__json_string(j, "stop_reason", mpiscope_stop_reason_name(r->stop_reason));
    mpiscope__json_number(j, "median_ns", s->median);
    mpiscope__json_number(j, "mean_ns", s->mean);
    mpiscope__json_number(j, "min_ns", s->min);
    mpiscope__json_number(j, "max_ns", s->max);
    mpiscope__json_number(j, "error_ns", s->error);
    mpiscope__json_number(j, "ci_low_ns", s->median - s->error);
    mpiscope__json_number(j, "ci_high_ns", s->median + s->error);
    mpiscope__json_number(j, "se_ns", se_ns);
    mpiscope__json_bool(j, "at_resolution", s->at_resolution);
    mpiscope__json_number(j, "confidence", s->confidence);
    mpiscope__json_array(j, "per_rank_median_ns");
    double *v = last ? malloc((last->valid ? last->valid : 1) * sizeof *v) : NULL;
    for (int rank = 0; v && rank < last->nprocs; rank++) {
        for (size_t i = 0; i < last->valid; i++)
            v[i] = last->rank_time_ns[i * (size_t)last->nprocs + (size_t)rank];
        mpiscope_stats_t own;
        mpiscope_stats_compute(v, last->valid, 0, 0.95, &own);
        mpiscope__json_number(j, NULL, own.median);
    }
    free(v);
    mpiscope__json_end(j);
    mpiscope__json_end(j);
}

/* The measurement floor, before every point: WaitPatternNull (the engine's
 * empty timed region) by the window method; recorded, and with floor
 * "subtract" taken off every later launch time (params.floor_ns), its
 * standard error added to theirs. The median's standard error is at least
 * half a clock step over z when its samples sit on one or two steps. */
static int measure_floor(run_t *run)
{
    const mpiscope_op_t *null_op = mpiscope_op_find("waitpattern_null");
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    spec.method_handle = mpiscope_method_find("window");
    spec.cache_cold = 0;
    mpiscope_point_result_t r;
    int err = null_op ? mpiscope_context_measure(run->ctx, null_op, &spec, &r) : MPISCOPE_EINVAL;
    if (err)
        return fail(run, "measuring the floor (waitpattern_null)", err);
    const double z = 1.959963984540054;
    double se = fmax(r.stats.median_rse * fabs(r.stats.median), r.stats.error_floor_ns / z);
    if (!isfinite(se))
        se = r.stats.error_floor_ns / z;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    if (run->ctx->rank == 0)
        floor_json(run, &r, se, &j);
    err = run->ctx->rank == 0 && (j.failed || !j.buf) ? MPISCOPE_ENOMEM : 0;
    if (!err && run->ctx->rank == 0)
        err = mpiscope__result_set_section(run->res, "floor", j.buf);
    mpiscope__json_free(&j);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, run->comm);
    if (err)
        return fail(run, "recording the floor", err);
    if (floor_subtracted(run, &r)) {
        run->ctx->params.floor_ns = r.stats.median; /* every rank has the result */
        run->ctx->params.floor_se_ns = isfinite(se) ? se : 0;
    } else if (run->plan->floor == MPISCOPE__FLOOR_SUBTRACT) {
        mpiscope_result_warn(run->res, "--floor subtract: the floor was not measured (no launch of "
                                       "waitpattern_null kept its window: a busy machine, or windows too "
                                       "short), so nothing was subtracted");
    }
    return 0;
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
            snprintf(run->err, run->err_size, "plan field 'nprocs': %d exceeds the %d ranks launched", o->nprocs[i],
                     nprocs);
            return MPISCOPE_ERANGE;
        }
    double t0 = mpiscope__wall_now_s() - mpiscope__wall_since_process_start_s();
    wall_part(run, "startup", &t0);
    int err = mpiscope_context_create(run->comm, &o->params, &run->ctx);
    wall_part(run, "sync", &t0);
    if (err)
        return fail(run, "setting up the measurement (timer, clock sync)", err);
    unsigned flags = (o->force ? MPISCOPE_RESULT_FORCE : 0) | (o->raw ? MPISCOPE_RESULT_RAW : 0);
    err = mpiscope_result_open(run->ctx, o->out, flags, &run->res);
    wall_part(run, "open", &t0);
    if (err) {
        fail(run, o->out, err);
        mpiscope_context_destroy(run->ctx);
        return err;
    }
    describe_run(o, run->res);
    err = measure_floor(run);
    wall_part(run, "floor", &t0);
    if (!err)
        err = prepare_ops(run);
    if (!err)
        err = run_points(run, on_point, user);
    t0 = mpiscope__wall_now_s();
    char why[256];
    /* a validation failure is a finding of a complete run, not a failed run */
    int close_err = mpiscope__result_close(run->res, err != 0 && err != MPISCOPE_EVALIDATE, why, sizeof why);
    wall_part(run, "close", &t0);
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
    int nprocs;
    MPI_Comm_size(comm, &nprocs);
    if (plan->ranks && nprocs != plan->ranks) {
        snprintf(err, err_size,
                 "%d rank%s started where %d were asked for (with srun, each task "
                 "is then an MPI job of its own: give srun --mpi)",
                 nprocs, nprocs == 1 ? "" : "s", plan->ranks);
        return MPISCOPE_ERANGE;
    }
    int bad = mpiscope_plan_check(plan, nprocs, err, err_size);
    if (bad)
        return bad;
    if (plan->check)
        return mpiscope__plan_run_check(comm, plan, err, err_size);
    if (plan->firstcall)
        return mpiscope__plan_run_firstcall(comm, plan, err, err_size);
    int rank;
    MPI_Comm_rank(comm, &rank);
    run_t run = {.comm = comm, .plan = plan, .rank0 = rank == 0, .err = err, .err_size = err_size};
    return run_plan(&run, on_point, user);
}
