/* point_json.c: a measurement point in the result document's shape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "opctx.h"
#include "method.h"
#include "point_json.h"

static void write_interval(mpiscope__json_t *j, const char *key, const mpiscope_stats_t *s, double p)
{
    double t = -mpiscope_student_t_quantile(0.5 * (1 - p), (double)s->n_used - 1); /* exact input */
    double e = t * s->se;
    if (e < s->error_floor_ns) /* the clock's limit: never narrower than half a step */
        e = s->error_floor_ns;
    mpiscope__json_array(j, key);
    mpiscope__json_number(j, NULL, s->mean - e);
    mpiscope__json_number(j, NULL, s->mean + e);
    mpiscope__json_end(j);
}

static void write_stats(mpiscope__json_t *j, const mpiscope_stats_t *s)
{
    mpiscope__json_integer(j, "samples", (long long)s->n_valid);
    mpiscope__json_integer(j, "samples_used", (long long)s->n_used);
    mpiscope__json_number(j, "mean_ns", s->mean);
    mpiscope__json_number(j, "stddev_ns", s->stddev);
    mpiscope__json_number(j, "se_ns", s->se);
    mpiscope__json_number(j, "rse", s->rse);
    mpiscope__json_number(j, "median_rse", s->median_rse);
    mpiscope__json_number(j, "median_ns", s->median);
    mpiscope__json_number(j, "min_ns", s->min);
    mpiscope__json_number(j, "max_ns", s->max);
    mpiscope__json_number(j, "trimmed_min_ns", s->trimmed_min);
    mpiscope__json_number(j, "trimmed_max_ns", s->trimmed_max);
    mpiscope__json_number(j, "q25_ns", s->q25);
    mpiscope__json_number(j, "q75_ns", s->q75);
    mpiscope__json_number(j, "confidence", s->confidence);
    mpiscope__json_number(j, "error_ns", s->error);
    mpiscope__json_number(j, "ci_low_ns", s->ci_low);
    mpiscope__json_number(j, "ci_high_ns", s->ci_high);
    mpiscope__json_object(j, "intervals");
    write_interval(j, "0.90", s, 0.90);
    write_interval(j, "0.95", s, 0.95);
    write_interval(j, "0.99", s, 0.99);
    mpiscope__json_end(j);
    mpiscope__json_bool(j, "at_resolution", s->at_resolution);
    mpiscope__json_number(j, "error_floor_ns", s->error_floor_ns);
}

static void write_quantile(mpiscope__json_t *j, const char *name, double q, double value, double low, double high,
                           double confidence)
{
    mpiscope__json_object(j, name);
    mpiscope__json_number(j, "value_ns", value);
    mpiscope__json_array(j, "ci_ns"); /* a bound beyond the sample (NAN) is null */
    mpiscope__json_number(j, NULL, low);
    mpiscope__json_number(j, NULL, high);
    mpiscope__json_end(j);
    mpiscope__json_integer(j, "min_samples", (long long)mpiscope_stats_tail_min_samples(q, confidence));
    mpiscope__json_end(j);
}

/* The tail of the valid launches: p90, p99 with distribution-free intervals, and the max. */
static void write_tail(mpiscope__json_t *j, const mpiscope_stats_t *s)
{
    mpiscope__json_object(j, "tail");
    mpiscope__json_integer(j, "samples", (long long)s->n_valid);
    mpiscope__json_number(j, "confidence", s->confidence);
    write_quantile(j, "p90", 0.90, s->p90, s->p90_low, s->p90_high, s->confidence);
    write_quantile(j, "p99", 0.99, s->p99, s->p99_low, s->p99_high, s->confidence);
    mpiscope__json_number(j, "max_ns", s->max);
    mpiscope__json_end(j);
}

static void write_summary(mpiscope__json_t *j, const char *key, double median, double mean, double max)
{
    mpiscope__json_object(j, key);
    mpiscope__json_number(j, "median_ns", median);
    mpiscope__json_number(j, "mean_ns", mean);
    mpiscope__json_number(j, "max_ns", max);
    mpiscope__json_end(j);
}

static void write_window(mpiscope__json_t *j, const mpiscope_point_result_t *p)
{
    mpiscope__json_object(j, "window");
    mpiscope__json_number(j, "initial_ns", p->window_initial_ns);
    mpiscope__json_number(j, "final_ns", p->window_final_ns);
    mpiscope__json_number(j, "min_ns", p->window_min_ns);
    mpiscope__json_number(j, "max_ns", p->window_max_ns);
    mpiscope__json_integer(j, "stages", p->stages);
    mpiscope__json_integer(j, "invalid_late", (long long)p->invalid_late);
    mpiscope__json_integer(j, "invalid_overrun", (long long)p->invalid_overrun);
    mpiscope__json_integer(j, "widened", p->widened);
    mpiscope__json_integer(j, "shrunk", p->shrunk);
    mpiscope__json_integer(j, "restarts", p->window_restarts);
    mpiscope__json_integer(j, "launches_discarded", (long long)p->launches_discarded);
    mpiscope__json_end(j);
}

static void write_unstable(mpiscope__json_t *j, unsigned unstable)
{
    mpiscope__json_bool(j, "unstable", unstable != 0);
    mpiscope__json_array(j, "unstable_reasons");
    for (unsigned bit = 1; bit && bit <= unstable; bit <<= 1)
        if (unstable & bit)
            mpiscope__json_string(j, NULL, mpiscope_unstable_reason_name(bit));
    mpiscope__json_end(j);
}

/* Each rank's own durations over the valid launches. */
static void write_per_rank(mpiscope__json_t *j, const mpiscope__samples_t *w)
{
    double *v = malloc((w->valid ? w->valid : 1) * sizeof *v);
    if (!v) {
        j->failed = 1;
        return;
    }
    mpiscope__json_array(j, "per_rank");
    for (int r = 0; r < w->nprocs; r++) {
        for (size_t i = 0; i < w->valid; i++)
            v[i] = w->rank_time_ns[i * w->nprocs + r];
        mpiscope_stats_t s;
        mpiscope_stats_compute(v, w->valid, 0, 0.95, &s);
        mpiscope__json_object(j, NULL);
        mpiscope__json_integer(j, "rank", r);
        mpiscope__json_number(j, "median_ns", s.median);
        mpiscope__json_number(j, "mean_ns", s.mean);
        mpiscope__json_number(j, "min_ns", s.min);
        mpiscope__json_number(j, "max_ns", s.max);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    free(v);
}

/* The finite values of column (r, p) of the parts over the valid launches. */
static size_t part_column(const mpiscope__samples_t *w, size_t r, size_t p, double *v)
{
    size_t m = 0, stride = (size_t)w->nprocs * w->n_parts;
    for (size_t i = 0; i < w->valid; i++) {
        double x = w->part_ns[i * stride + r * w->n_parts + p];
        if (isfinite(x))
            v[m++] = x;
    }
    return m;
}

/* Per valid launch, the slowest part minus the fastest (every rank's). */
static size_t part_launch_spread(const mpiscope__samples_t *w, double *v)
{
    size_t m = 0, stride = (size_t)w->nprocs * w->n_parts;
    for (size_t i = 0; i < w->valid; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < stride; k++) {
            double x = w->part_ns[i * stride + k];
            if (isfinite(x)) {
                lo = fmin(lo, x);
                hi = fmax(hi, x);
            }
        }
        if (hi >= lo)
            v[m++] = hi - lo;
    }
    return m;
}

/* The op's own parts (one per thread...): each rank's and part's
 * distribution over the valid launches, and how far they spread. */
static void write_parts(mpiscope__json_t *j, const mpiscope__samples_t *w, const char *name)
{
    double *v = malloc((w->valid ? w->valid : 1) * sizeof *v);
    if (!v) {
        j->failed = 1;
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    mpiscope__json_object(j, "parts");
    mpiscope__json_string(j, "name", name[0] ? name : "part");
    mpiscope__json_integer(j, "per_rank", (long long)w->n_parts);
    mpiscope__json_array(j, "distribution");
    for (size_t r = 0; r < (size_t)w->nprocs; r++)
        for (size_t p = 0; p < w->n_parts; p++) {
            size_t m = part_column(w, r, p, v);
            if (m == 0)
                continue; /* a part that never ran on this rank (an idle rank) */
            mpiscope_stats_t s;
            mpiscope_stats_compute(v, m, 0, 0.95, &s);
            lo = fmin(lo, s.median);
            hi = fmax(hi, s.median);
            mpiscope__json_object(j, NULL);
            mpiscope__json_integer(j, "rank", (long long)r);
            mpiscope__json_integer(j, "part", (long long)p);
            mpiscope__json_integer(j, "samples", (long long)m);
            mpiscope__json_number(j, "median_ns", s.median);
            mpiscope__json_number(j, "mean_ns", s.mean);
            mpiscope__json_number(j, "q25_ns", s.q25);
            mpiscope__json_number(j, "q75_ns", s.q75);
            mpiscope__json_number(j, "min_ns", s.min);
            mpiscope__json_number(j, "max_ns", s.max);
            mpiscope__json_end(j);
        }
    mpiscope__json_end(j);
    mpiscope__json_number(j, "slowest_median_ns", hi >= lo ? hi : NAN);
    mpiscope__json_number(j, "fastest_median_ns", hi >= lo ? lo : NAN);
    mpiscope__json_number(j, "median_spread", hi >= lo && lo > 0 ? hi / lo : NAN);
    size_t m = part_launch_spread(w, v);
    double median = NAN;
    if (m) {
        mpiscope_stats_t s;
        mpiscope_stats_compute(v, m, 0, 0.95, &s);
        median = s.median;
    }
    mpiscope__json_number(j, "launch_spread_median_ns", median);
    mpiscope__json_end(j);
    free(v);
}

static void write_notes(mpiscope__json_t *j, const mpiscope_context_t *ctx)
{
    mpiscope__json_object(j, "notes");
    for (size_t i = 0; i < ctx->n_notes; i++)
        mpiscope__json_string(j, ctx->note_keys[i], ctx->note_values[i]);
    mpiscope__json_end(j);
}

static void write_raw(mpiscope__json_t *j, const mpiscope__samples_t *w)
{
    size_t n = w->total < w->capacity ? w->total : w->capacity;
    mpiscope__json_object(j, "raw");
    mpiscope__json_array(j, "valid");
    for (size_t i = 0; i < n; i++)
        mpiscope__json_bool(j, NULL, w->raw_flags[i] == 0);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "late");
    for (size_t i = 0; i < n; i++)
        mpiscope__json_bool(j, NULL, (w->raw_flags[i] & MPISCOPE__LAUNCH_LATE) != 0);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "overrun");
    for (size_t i = 0; i < n; i++)
        mpiscope__json_bool(j, NULL, (w->raw_flags[i] & MPISCOPE__LAUNCH_OVERRUN) != 0);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "discarded"); /* 1.13: valid, but a window restart dropped its sample */
    for (size_t i = 0; i < n; i++)
        mpiscope__json_bool(j, NULL, w->raw_flags[i] == 0 && i < w->kept_from);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "launch"); /* 1.7: the op's number of each launch */
    for (size_t i = 0; i < n; i++)
        mpiscope__json_integer(j, NULL, (long long)w->raw_launch[i]);
    mpiscope__json_end(j);
    mpiscope__json_number_array(j, "slot_ns", w->raw_slot_ns, n);
    mpiscope__json_number_array(j, "time_ns", w->raw_time_ns, n);
    const double *const tables[2] = {w->raw_start_ns, w->raw_end_ns};
    const char *const names[2] = {"start_ns", "end_ns"};
    for (int t = 0; t < 2; t++) {
        mpiscope__json_array(j, names[t]);
        for (size_t i = 0; i < n; i++)
            mpiscope__json_number_array(j, NULL, tables[t] + i * (size_t)w->nprocs, (size_t)w->nprocs);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

static void write_validation(mpiscope__json_t *j, const mpiscope_op_t *op, const mpiscope_point_result_t *point)
{
    mpiscope__json_object(j, "validation");
    mpiscope__json_bool(j, "supported", op->validate != NULL);
    mpiscope__json_integer(j, "launches_checked", (long long)point->validated_launches);
    mpiscope__json_integer(j, "failures", (long long)point->validation_failures);
    if (point->first_mismatch_rank >= 0) {
        mpiscope__json_integer(j, "first_mismatch_rank", point->first_mismatch_rank);
        mpiscope__json_integer(j, "first_mismatch_launch", (long long)point->first_mismatch_launch);
        mpiscope__json_string(j, "first_mismatch", point->first_mismatch);
    }
    mpiscope__json_end(j);
}

/* What the op noted, and what the point's samples hold per rank and part
 * (and every launch with --raw). */
static void write_samples(mpiscope__json_t *j, const mpiscope_context_t *ctx)
{
    if (ctx->n_notes)
        write_notes(j, ctx);
    if (!ctx->last)
        return;
    write_per_rank(j, ctx->last);
    if (ctx->last->n_parts)
        write_parts(j, ctx->last, ctx->part_name);
    if (ctx->keep_raw)
        write_raw(j, ctx->last);
}

void mpiscope__point_json(const mpiscope_context_t *ctx, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                          const mpiscope_point_result_t *point, int oversubscribed, mpiscope__json_t *j)
{
    mpiscope__op_types_t types; /* the point was measured: the names resolve */
    mpiscope__op_types_resolve(op, spec->dtype, spec->reduce_op, &types);
    const char *dtype = types.dtype_name, *reduce = types.reduce_name;
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "op", op->name);
    const mpiscope__method_t *method = spec->method_handle ? spec->method_handle : mpiscope__method_find(spec->method);
    mpiscope__json_string(j, "method", method ? method->name : spec->method);
    mpiscope__json_string(j, "cache",
                          (spec->cache_cold >= 0 ? spec->cache_cold : ctx->params.cache_cold) ? "cold" : "warm");
    if (spec->arrival_ns) {
        mpiscope__json_number_array(j, "arrival_ns", spec->arrival_ns, (size_t)ctx->last_nprocs);
    }
    if (op->flags & MPISCOPE_OP_USES_SIZE) {
        mpiscope__json_integer(j, "size_bytes", (long long)spec->size_bytes);
        mpiscope__json_integer(j, "actual_bytes", (long long)point->actual_bytes);
    } else {
        mpiscope__json_raw(j, "size_bytes", "null");
        mpiscope__json_raw(j, "actual_bytes", "null");
    }
    mpiscope__json_integer(j, "nprocs", ctx->last_nprocs);
    if (op->flags & MPISCOPE_OP_USES_ROOT)
        mpiscope__json_integer(j, "root", spec->root);
    else
        mpiscope__json_raw(j, "root", "null");
    mpiscope__json_string(j, "dtype", dtype);
    mpiscope__json_string(j, "reduce_op", reduce);
    mpiscope__json_object(j, "options");
    for (size_t i = 0; i < spec->n_options; i++)
        mpiscope__json_string(j, spec->option_names[i], spec->option_values[i]);
    mpiscope__json_end(j);
    mpiscope__json_integer(j, "launches_total", (long long)point->launches_total);
    mpiscope__json_integer(j, "launches_valid", (long long)point->launches_valid);
    write_stats(j, &point->stats);
    write_tail(j, &point->stats);
    mpiscope__json_number(j, "first_launch_ns", point->first_launch_ns);
    write_summary(j, "global_span", point->span_median_ns, point->span_mean_ns, point->span_max_ns);
    write_summary(j, "start_skew", point->skew_median_ns, point->skew_mean_ns, point->skew_max_ns);
    mpiscope__json_object(j, "gap"); /* idle time before a launch, min over ranks */
    mpiscope__json_number(j, "median_ns", point->gap_median_ns);
    mpiscope__json_number(j, "min_ns", point->gap_min_ns);
    mpiscope__json_end(j);
    if (point->n_views) {
        mpiscope__json_object(j, "views");
        for (int i = 0; i < point->n_views; i++)
            mpiscope__json_number(j, point->view_names[i], point->view_median_ns[i]);
        mpiscope__json_end(j);
    }
    if (method && method->result) /* the window_* fields are what that hook fills */
        write_window(j, point);
    mpiscope__json_number(j, "invalid_fraction", point->invalid_fraction);
    mpiscope__json_string(j, "stop_reason", mpiscope_stop_reason_name(point->stop_reason));
    write_unstable(j, point->unstable);
    if (spec->validate)
        write_validation(j, op, point);
    mpiscope__json_object(j, "buffers");
    mpiscope__json_integer(j, "slots", (long long)point->buffer_slots);
    mpiscope__json_integer(j, "region_bytes", (long long)point->buffer_region_bytes);
    mpiscope__json_end(j);
    mpiscope__json_bool(j, "oversubscribed", oversubscribed);
    mpiscope__json_number(j, "elapsed_ns", point->elapsed_ns);
    mpiscope__json_number(j, "clock_residual_ns", mpiscope_clock_sync_max_residual_ns(ctx->sync));
    write_samples(j, ctx);
    mpiscope__json_end(j);
}
