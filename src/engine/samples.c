/* samples.c: launch records, stopping rules and the statistics of a point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "samples.h"
#include "util.h"

enum { FIRST_CAPACITY = 64 };

/* Per launch: sample, span, skew, gap (doubles), the per-rank times, and
 * with keep_raw the raw starts and ends, slot, time (doubles) and flags. */
static size_t bytes_per_launch(const mpiscope__samples_t *s)
{
    size_t per_rank = (size_t)s->nprocs * sizeof(double) * (s->keep_raw ? 3 : 1);
    size_t raw = s->keep_raw ? 2 * sizeof(double) + sizeof(size_t) + 1 : 0;
    return 4 * sizeof(double) + 1 + per_rank + raw + (size_t)s->n_views * sizeof(double)
           + (size_t)s->nprocs * s->n_parts * sizeof(double);
}

size_t mpiscope__samples_bytes(const mpiscope__samples_t *s)
{
    return s ? s->capacity * bytes_per_launch(s) + (size_t)s->nprocs * sizeof(double) : 0;
}

/* realloc to `n` elements of `size`; on failure *p stays as it was. */
static int grow_array(void *p, size_t n, size_t size)
{
    void **array = p;
    void *grown = realloc(*array, n * size);
    if (!grown)
        return 0;
    *array = grown;
    return 1;
}

/* Room for `want` launches (at most s->limit); 0 if there is none. On
 * failure the arrays that grew keep their new size, capacity the old one. */
static int reserve(mpiscope__samples_t *s, size_t want)
{
    if (want <= s->capacity)
        return 1;
    if (want > s->limit)
        return 0;
    size_t c = 2 * s->capacity > want ? 2 * s->capacity : want, p = (size_t)s->nprocs;
    c = c < s->limit ? c : s->limit;
    int ok = grow_array(&s->sample_ns, c, sizeof(double)) && grow_array(&s->span_ns, c, sizeof(double))
             && grow_array(&s->skew_ns, c, sizeof(double)) && grow_array(&s->gap_ns, c, sizeof(double))
             && grow_array(&s->rank_time_ns, c * p, sizeof(double)) && grow_array(&s->stage_first, c, 1);
    if (ok && s->keep_raw)
        ok = grow_array(&s->raw_start_ns, c * p, sizeof(double)) && grow_array(&s->raw_end_ns, c * p, sizeof(double))
             && grow_array(&s->raw_slot_ns, c, sizeof(double)) && grow_array(&s->raw_time_ns, c, sizeof(double))
             && grow_array(&s->raw_flags, c, 1) && grow_array(&s->raw_launch, c, sizeof(size_t));
    for (int i = 0; ok && i < s->n_views; i++)
        ok = !s->view_ns[i] || grow_array(&s->view_ns[i], c, sizeof(double));
    if (ok && s->n_parts)
        ok = grow_array(&s->part_ns, c * p * s->n_parts, sizeof(double));
    if (!ok) {
        s->limit = s->capacity; /* out of memory: the point stops at what it holds */
        return 0;
    }
    s->capacity = c;
    return 1;
}

int mpiscope__samples_create(const mpiscope_params_t *params, int nprocs, int keep_raw, mpiscope__samples_t **out)
{
    if (!params || nprocs < 1)
        return MPISCOPE_EINVAL;
    mpiscope__samples_t *s = calloc(1, sizeof *s);
    if (!s)
        return MPISCOPE_ENOMEM;
    s->params = *params;
    s->nprocs = nprocs;
    s->keep_raw = keep_raw;
    s->limit = (size_t)params->max_launches + 64;
    s->first_launch_ns = NAN;
    s->prev_end_ns = malloc((size_t)nprocs * sizeof(double));
    if (!s->prev_end_ns || !reserve(s, s->limit < FIRST_CAPACITY ? s->limit : FIRST_CAPACITY)) {
        mpiscope__samples_destroy(s);
        return MPISCOPE_ENOMEM;
    }
    for (int r = 0; r < nprocs; r++)
        s->prev_end_ns[r] = NAN;
    *out = s;
    return 0;
}

int mpiscope__samples_set_parts(mpiscope__samples_t *s, size_t n_parts)
{
    if (!n_parts)
        return 0;
    s->n_parts = n_parts;
    if (grow_array(&s->part_ns, s->capacity * (size_t)s->nprocs * n_parts, sizeof(double)))
        return 0;
    s->n_parts = 0;
    return MPISCOPE_ENOMEM;
}

void mpiscope__samples_destroy(mpiscope__samples_t *s)
{
    if (!s)
        return;
    free(s->sample_ns);
    free(s->span_ns);
    free(s->skew_ns);
    free(s->gap_ns);
    free(s->rank_time_ns);
    free(s->stage_first);
    free(s->prev_end_ns);
    free(s->raw_start_ns);
    free(s->raw_end_ns);
    free(s->raw_slot_ns);
    free(s->raw_time_ns);
    free(s->raw_flags);
    free(s->raw_launch);
    free(s->part_ns);
    for (int i = 0; i < MPISCOPE__MAX_VIEWS; i++)
        free(s->view_ns[i]);
    free(s);
}

/* A rank that left before another entered: a synchronizing operation that
 * did not synchronize (only the global clock can see it). */
static void check_synchronized(mpiscope__samples_t *s, const mpiscope__launch_t *l)
{
    int first_out = 0, last_in = 0;
    for (int r = 1; r < s->nprocs; r++) {
        if (l->end_ns[(size_t)r * l->stride] < l->end_ns[(size_t)first_out * l->stride])
            first_out = r;
        if (l->start_ns[(size_t)r * l->stride] > l->start_ns[(size_t)last_in * l->stride])
            last_in = r;
    }
    double out = l->end_ns[(size_t)first_out * l->stride], in = l->start_ns[(size_t)last_in * l->stride];
    if (out >= in - s->sync_tolerance_ns)
        return;
    if (s->sync_violations++ == 0) {
        s->sync_rank = first_out;
        s->sync_launch = s->total;
        snprintf(s->sync_message, sizeof s->sync_message,
                 "rank %d left %.0f ns before rank %d entered (global clock, tolerance %.0f ns)", first_out, in - out,
                 last_in, s->sync_tolerance_ns);
    }
}

double mpiscope__samples_add_launch(mpiscope__samples_t *s, const mpiscope__launch_t *l)
{
    if (s->check_sync)
        check_synchronized(s, l);
    double smin = INFINITY, smax = -INFINITY, emax = -INFINITY, tmax = 0, gap = INFINITY;
    for (int r = 0; r < s->nprocs; r++) {
        double b = l->start_ns[(size_t)r * l->stride], e = l->end_ns[(size_t)r * l->stride];
        smin = fmin(smin, b);
        smax = fmax(smax, b);
        emax = fmax(emax, e);
        tmax = fmax(tmax, e - b);
        gap = fmin(gap, b - s->prev_end_ns[r]); /* NAN before a rank's first launch */
        s->prev_end_ns[r] = e;
    }
    s->clock_max_ns = fmax(s->clock_max_ns, fabs(emax));
    if (!reserve(s, s->total + 1))
        return tmax;
    size_t t = s->total++;
    if (s->keep_raw) {
        for (int r = 0; r < s->nprocs; r++) {
            s->raw_start_ns[t * s->nprocs + r] = l->start_ns[(size_t)r * l->stride];
            s->raw_end_ns[t * s->nprocs + r] = l->end_ns[(size_t)r * l->stride];
        }
        s->raw_slot_ns[t] = l->slot_ns;
        s->raw_time_ns[t] = tmax;
        s->raw_flags[t] = (unsigned char)l->flags;
        s->raw_launch[t] = l->launch;
    }
    if (l->flags) {
        s->late += (l->flags & MPISCOPE__LAUNCH_LATE) != 0;
        s->overrun += l->flags == MPISCOPE__LAUNCH_OVERRUN;
        return tmax;
    }
    size_t v = s->valid++;
    s->span_ns[v] = emax - smin;
    s->skew_ns[v] = smax - smin;
    s->gap_ns[v] = gap;
    s->stage_first[v] = l->in_stage == 0;
    for (int r = 0; r < s->nprocs; r++)
        s->rank_time_ns[v * s->nprocs + r] =
            l->end_ns[(size_t)r * l->stride] - l->start_ns[(size_t)r * l->stride] - s->params.floor_ns;
    for (size_t i = 0; i < (size_t)s->nprocs * s->n_parts; i++) {
        size_t r = i / s->n_parts, part = i % s->n_parts;
        s->part_ns[v * (size_t)s->nprocs * s->n_parts + i] =
            s->stage_parts && l->in_stage < s->stage_k
                ? s->stage_parts[(r * s->stage_k + l->in_stage) * s->n_parts + part]
                : NAN;
    }
    return tmax;
}

void mpiscope__samples_first(mpiscope__samples_t *s, const double *start, const double *end, size_t stride)
{
    if (!isnan(s->first_launch_ns))
        return;
    double tmax = -INFINITY;
    for (int r = 0; r < s->nprocs; r++)
        tmax = fmax(tmax, end[(size_t)r * stride] - start[(size_t)r * stride]);
    s->first_launch_ns = tmax;
}

void mpiscope__samples_add_sample(mpiscope__samples_t *s, double value_ns)
{
    if (reserve(s, s->n_samples + 1))
        s->sample_ns[s->n_samples++] = value_ns - s->params.floor_ns;
}

void mpiscope__samples_view(mpiscope__samples_t *s, int index, const char *name, double value_ns)
{
    if (index < 0 || index >= MPISCOPE__MAX_VIEWS)
        return;
    if (!s->view_ns[index]) {
        s->view_ns[index] = malloc(s->capacity * sizeof(double)); /* reserve() grows it with the rest */
        if (!s->view_ns[index])
            return; /* the view is then missing from the result, nothing else */
        s->view_names[index] = name;
        if (index >= s->n_views)
            s->n_views = index + 1;
    }
    if (reserve(s, s->n_view_values[index] + 1))
        s->view_ns[index][s->n_view_values[index]++] = value_ns - s->params.floor_ns;
}

void mpiscope__samples_restart(mpiscope__samples_t *s)
{
    s->discarded += s->valid;
    s->valid = 0;
    s->kept_from = s->total;
    s->n_samples = 0;
    for (int i = 0; i < s->n_views; i++)
        s->n_view_values[i] = 0;
}

int mpiscope__samples_stats(const mpiscope__samples_t *s, mpiscope_stats_t *st)
{
    const mpiscope_params_t *p = &s->params;
    int err = mpiscope_stats_compute(s->sample_ns, s->n_samples, p->trim_fraction, p->confidence, st);
    if (err)
        return err;
    if (p->floor_ns > 0 && st->n_used >= 2) { /* net of the floor: its own uncertainty too */
        st->se = sqrt(st->se * st->se + p->floor_se_ns * p->floor_se_ns);
        st->rse = st->mean != 0.0 ? st->se / fabs(st->mean) : NAN;
        st->error = st->t_quantile * st->se;
        st->ci_low = st->mean - st->error;
        st->ci_high = st->mean + st->error;
    }
    mpiscope_stats_apply_resolution(st, s->resolution_ns);
    return 0;
}

/* The error rule's test on statistics with the clock's limit applied: the
 * relative standard errors of the trimmed mean and of the median, each at
 * least what half a clock step means for it when the kept samples do not
 * dither (a quantised clock never gives RSE 0). */
static int precise_enough(const mpiscope_stats_t *st, double target)
{
    const double z = 1.959963984540054; /* median_rse's order-statistic interval */
    double se = st->se, median_se = st->median_rse * fabs(st->median);
    if (st->error_floor_ns > 0) {
        se = fmax(se, st->error_floor_ns / st->t_quantile);
        median_se = fmax(median_se, st->error_floor_ns / z);
    }
    return se <= target * fabs(st->mean) && median_se <= target * fabs(st->median);
}

int mpiscope__samples_agree(const mpiscope__samples_t *s)
{
    if (s->n_samples < 2)
        return 0;
    double first = s->sample_ns[0];
    for (size_t i = 1; i < s->n_samples; i++)
        if (!(fabs(s->sample_ns[i] - first) <= 1e-9 * fabs(first) + 1e-12 * s->clock_max_ns))
            return 0;
    return 1;
}

/* Whether the error rule decides: asked for, or the deterministic rule's
 * launches differed. */
static int error_rule(const mpiscope__samples_t *s)
{
    return s->params.stop_rule == MPISCOPE_STOP_ERROR
           || (s->params.stop_rule == MPISCOPE_STOP_DETERMINISTIC && s->differed);
}

mpiscope_stop_reason_t mpiscope__samples_stop(mpiscope__samples_t *s, double elapsed_ns)
{
    const mpiscope_params_t *p = &s->params;
    mpiscope_stop_reason_t reason = MPISCOPE_STOPPED_NOT;
    mpiscope_stats_t st;
    /* deterministic rule: two valid launches that agree end the point; the
     * first pair that does not hands it to the error rule for good */
    if (p->stop_rule == MPISCOPE_STOP_DETERMINISTIC && !s->differed && s->n_samples >= 2) {
        if (mpiscope__samples_agree(s))
            return s->stop_reason = MPISCOPE_STOPPED_DETERMINISTIC;
        s->differed = 1;
    }
    /* error rule: a minimum time first, so that small messages get hundreds
     * of launches (16 launches, 8 kept, cannot pin a 300 ns median), then the
     * precision of both the trimmed mean and the median */
    int capped = s->total >= p->max_launches || s->total >= s->limit;
    /* (the launch cap ends the minimum time: a precise point that made every
     * launch it may is at its target, not short of it) */
    int past_least = elapsed_ns >= p->min_point_seconds * 1e9 || capped;
    int judged = error_rule(s) && s->n_samples >= p->min_valid && s->n_samples >= 2 && past_least
                 && mpiscope__samples_stats(s, &st) == 0;
    s->short_of = error_rule(s) && past_least && s->n_samples < p->min_valid ? p->min_valid - s->n_samples : 0;
    if (judged && precise_enough(&st, p->target_rse))
        reason = MPISCOPE_STOPPED_TARGET_ERROR;
    else if (judged && st.error_floor_ns > 0) /* no dither: more launches cannot help */
        reason = MPISCOPE_STOPPED_RESOLUTION;
    else if (p->stop_rule == MPISCOPE_STOP_COUNT && s->n_samples >= p->max_valid)
        reason = MPISCOPE_STOPPED_MAX_VALID;
    else if (capped)
        reason = MPISCOPE_STOPPED_MAX_LAUNCHES;
    else if (elapsed_ns >= p->max_point_seconds * 1e9)
        reason = MPISCOPE_STOPPED_TIME_LIMIT;
    s->stop_reason = reason;
    return reason;
}

/* A large point is past its least time after its first stage and then
 * waits only for min_valid: a full last stage ran 16 launches where 10
 * were asked for, and at 1 MiB cold on the AMD EPYC VM each costs
 * 0.6 ms (a third of a 2-rank sweep's points). */
unsigned mpiscope__samples_stage_k(const mpiscope__samples_t *s, unsigned k)
{
    return s->short_of && s->short_of < k ? (unsigned)s->short_of : k;
}

/* Median, mean, min and max of n values (sorted copy in scratch). */
static void summarize(const double *v, size_t n, double *scratch, double *median, double *mean, double *min,
                      double *max)
{
    size_t m = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            sum += scratch[m++] = v[i];
    if (m == 0) {
        *median = *mean = *min = *max = NAN;
        return;
    }
    qsort(scratch, m, sizeof *scratch, mpiscope__cmp_double);
    *median = mpiscope_quantile_sorted(scratch, m, 0.5);
    *mean = sum / m;
    *min = scratch[0];
    *max = scratch[m - 1];
}

/* Statistics of samples that all read one time: no spread, no interval
 * around the value (what the clock's rounding left is below any step). */
static void exact(mpiscope_stats_t *st)
{
    st->stddev = st->se = st->rse = st->median_rse = st->error = 0;
    st->ci_low = st->ci_high = st->mean;
    st->at_resolution = 0;
    st->error_floor_ns = 0;
}

int mpiscope__samples_result(const mpiscope__samples_t *s, mpiscope_point_result_t *out)
{
    const mpiscope_params_t *p = &s->params;
    memset(out, 0, sizeof *out);
    out->participated = 1;
    out->first_mismatch_rank = -1;
    int err = mpiscope__samples_stats(s, &out->stats);
    if (err)
        return err;
    out->first_launch_ns = s->first_launch_ns;
    double *scratch = malloc((s->capacity ? s->capacity : 1) * sizeof(double));
    if (!scratch)
        return MPISCOPE_ENOMEM;
    double unused;
    summarize(s->span_ns, s->valid, scratch, &out->span_median_ns, &out->span_mean_ns, &unused, &out->span_max_ns);
    summarize(s->skew_ns, s->valid, scratch, &out->skew_median_ns, &out->skew_mean_ns, &unused, &out->skew_max_ns);
    summarize(s->gap_ns, s->valid, scratch, &out->gap_median_ns, &unused, &out->gap_min_ns, &unused);
    for (int i = 0; i < s->n_views; i++) {
        snprintf(out->view_names[i], sizeof out->view_names[i], "%s", s->view_names[i]);
        summarize(s->view_ns[i], s->n_view_values[i], scratch, &out->view_median_ns[i], &unused, &unused, &unused);
    }
    out->n_views = s->n_views;
    free(scratch);
    out->launches_total = s->total;
    out->launches_valid = s->valid;
    out->invalid_late = s->late;
    out->invalid_overrun = s->overrun;
    out->launches_discarded = s->discarded;
    out->validation_failures = s->sync_violations;
    if (s->sync_violations) {
        out->first_mismatch_rank = s->sync_rank;
        out->first_mismatch_launch = s->sync_launch;
        snprintf(out->first_mismatch, sizeof out->first_mismatch, "%s", s->sync_message);
    }
    out->invalid_fraction = s->total ? (double)(s->late + s->overrun) / s->total : NAN;
    out->stop_reason = s->stop_reason;
    if (s->total && out->invalid_fraction > 0.5)
        out->unstable |= MPISCOPE_UNSTABLE_INVALID_FRACTION;
    /* (an interquartile range of one clock step is the clock's, not the operation's:
     * a floor-subtracted WaitPatternNull has median 0 and steps 0 / 10 ns) */
    if (s->n_samples >= 4 && out->stats.q75 - out->stats.q25 > fmax(0.5 * out->stats.median, s->resolution_ns))
        out->unstable |= MPISCOPE_UNSTABLE_SPREAD;
    if (s->stop_reason == MPISCOPE_STOPPED_DETERMINISTIC) {
        exact(&out->stats);
        return 0; /* its few launches are all it needs */
    }
    if (p->stop_rule != MPISCOPE_STOP_COUNT && s->stop_reason != MPISCOPE_STOPPED_TARGET_ERROR
        && s->stop_reason != MPISCOPE_STOPPED_RESOLUTION)
        out->unstable |= MPISCOPE_UNSTABLE_TARGET_MISSED;
    if (s->n_samples < p->min_valid)
        out->unstable |= MPISCOPE_UNSTABLE_TOO_FEW_VALID;
    return 0;
}
