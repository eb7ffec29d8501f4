/* ledger.c: the bias ledger's companions of a measured point and the
 * per-launch series they are compared by (docs/method.md section 12,
 * `mpiscope explain`). A companion is the same op, size and communicator
 * measured right after the point with another method or cache mode:
 *   warm          window, warm buffers     (cold vs warm buffers)
 *   barrier_each  barrier-each, warm       (the OSU collective loop: a barrier between calls)
 *   loop          none, warm               (the IMB loop and osu_latency: calls back to back)
 * Each is written with its per-launch series, so every part of the ledger
 * is measured and its interval comes from a bootstrap over launches.
 * A companion stops by the point's error rule after a fifth of the
 * point's least time: at small sizes that least time, not the error,
 * ends a point, and three companions at the full time cost twice the
 * sweep (AMD EPYC VM: 70 ms against 31 ms); the parts' intervals say
 * what the shorter series leaves, and there the clock's step is wider. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "context.h"
#include "ledger.h"
#include "method.h"

enum { COMPANION_TIME_DIVISOR = 5 };

typedef struct companion {
    const char *key, *method;
} companion_t;

static const companion_t companions[] = {
    {"warm", "window"},
    {"barrier_each", "barrier-each"},
    {"loop", "none"},
};

/* "key": [v...] with one decimal (0.1 ns: below every clock's step), null for NAN. */
static void series_array(mpiscope__json_t *j, const char *key, const double *v, size_t n)
{
    mpiscope__json_array(j, key);
    for (size_t i = 0; i < n; i++)
        mpiscope__json_tenths(j, NULL, v[i]);
    mpiscope__json_end(j);
}

void mpiscope__ledger_series_json(const mpiscope__samples_t *s, int root, mpiscope__json_t *j)
{
    size_t n = s->valid, p = (size_t)s->nprocs;
    double *max = calloc((n ? n : 1) * 3, sizeof *max);
    if (!max) {
        j->failed = 1;
        return;
    }
    double *mean = max + n, *own = mean + n;
    for (size_t v = 0; v < n; v++) {
        const double *t = s->rank_time_ns + v * p;
        double hi = -INFINITY, sum = 0;
        for (size_t r = 0; r < p; r++) {
            hi = fmax(hi, t[r]);
            sum += t[r];
        }
        max[v] = hi;
        mean[v] = sum / (double)p;
        own[v] = root >= 0 && (size_t)root < p ? t[root] : NAN;
    }
    mpiscope__json_object(j, "series");
    mpiscope__json_integer(j, "launches", (long long)n);
    series_array(j, "max_ns", max, n);
    series_array(j, "mean_ns", mean, n);
    series_array(j, "root_ns", own, n);
    mpiscope__json_array(j, "stage_first");
    for (size_t v = 0; v < n; v++)
        if (s->stage_first[v])
            mpiscope__json_integer(j, NULL, (long long)v);
    mpiscope__json_end(j);
    mpiscope__json_end(j);
    free(max);
}

int mpiscope__ledger_applies(const mpiscope_op_t *op, const mpiscope_point_spec_t *spec)
{
    const mpiscope__method_t *m = spec->method_handle ? spec->method_handle : mpiscope__method_find(spec->method);
    /* ground truth has no suite to compare with; validation warms every buffer */
    return m && strcmp(m->name, "window") == 0 && !(op->flags & MPISCOPE_OP_GROUND_TRUTH) && !spec->validate;
}

/* One companion: measured, then its summary and series (rank 0's JSON). */
static int measure_companion(mpiscope_context_t *ctx, const mpiscope_op_t *op, const mpiscope_point_spec_t *main,
                             const companion_t *c, mpiscope__json_t *j)
{
    mpiscope_point_spec_t spec = *main;
    spec.method_handle = mpiscope_method_find(c->method);
    spec.method = c->method;
    spec.cache_cold = 0;
    spec.arrival_ns = NULL;
    int nprocs = spec.nprocs ? spec.nprocs : ctx->nprocs;
    if (!mpiscope__method_fits(spec.method_handle, op, nprocs))
        return 0;
    mpiscope_point_result_t r;
    int err = mpiscope_context_measure(ctx, op, &spec, &r);
    if (err || !r.participated || ctx->rank != 0)
        return err;
    mpiscope__json_object(j, c->key);
    mpiscope__json_string(j, "method", c->method);
    mpiscope__json_string(j, "cache", "warm");
    mpiscope__json_integer(j, "launches_total", (long long)r.launches_total);
    mpiscope__json_integer(j, "launches_valid", (long long)r.launches_valid);
    mpiscope__json_number(j, "median_ns", r.stats.median);
    mpiscope__json_string(j, "stop_reason", mpiscope_stop_reason_name(r.stop_reason));
    mpiscope__json_number(j, "min_point_seconds", ctx->params.min_point_seconds);
    mpiscope__json_bool(j, "unstable", r.unstable != 0);
    mpiscope__ledger_series_json(ctx->last, main->root, j);
    mpiscope__json_end(j);
    return 0;
}

int mpiscope__ledger_measure(mpiscope_context_t *ctx, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                             const mpiscope_point_result_t *point, mpiscope__json_t *j)
{
    mpiscope__json_object(j, NULL);
    if (ctx->rank == 0 && ctx->last) { /* the point itself, before its companions replace ctx->last */
        mpiscope__json_object(j, "main");
        mpiscope__json_string(j, "method", "window");
        mpiscope__json_string(j, "cache",
                              (spec->cache_cold >= 0 ? spec->cache_cold : ctx->params.cache_cold) ? "cold" : "warm");
        mpiscope__json_number(j, "first_launch_ns", point->first_launch_ns);
        mpiscope__ledger_series_json(ctx->last, spec->root, j);
        mpiscope__json_end(j);
    }
    int err = 0;
    double least = ctx->params.min_point_seconds; /* the point's: back for the next point */
    ctx->params.min_point_seconds = least / COMPANION_TIME_DIVISOR;
    for (size_t i = 0; !err && i < sizeof companions / sizeof *companions; i++)
        err = measure_companion(ctx, op, spec, &companions[i], j);
    ctx->params.min_point_seconds = least;
    mpiscope__json_end(j);
    return err;
}
