/* window.c: validity, window sizing and stopping of the synchronized-window
 * method. Pure arithmetic on global-clock times; no MPI, no clock reads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "util.h"
#include "window.h"

static double dmax(double a, double b) { return a > b ? a : b; }


/* Quantile of an unsorted small array (copied, not modified). */
static double quantile_of(const double *v, size_t n, double q)
{
    double tmp[MPISCOPE__WINDOW_HISTORY > 64 ? MPISCOPE__WINDOW_HISTORY : 64];
    if (n == 0 || n > sizeof tmp / sizeof *tmp)
        return NAN;
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, mpiscope__cmp_double);
    return mpiscope_quantile_sorted(tmp, n, q);
}

int mpiscope__window_create(const mpiscope_params_t *params, int nprocs, int keep_raw,
                            mpiscope__window_t **out)
{
    if (!params || nprocs < 1 || params->k < 1 || params->k > 64 || params->k_init > 64)
        return MPISCOPE_EINVAL;
    mpiscope__window_t *w = calloc(1, sizeof *w);
    if (!w)
        return MPISCOPE_ENOMEM;
    w->params = *params;
    w->nprocs = nprocs;
    w->keep_raw = keep_raw;
    w->capacity = (size_t)params->max_launches + params->k;
    size_t c = w->capacity, cr = c * (size_t)nprocs;
    w->time_ns = malloc(c * sizeof(double));
    w->span_ns = malloc(c * sizeof(double));
    w->skew_ns = malloc(c * sizeof(double));
    w->rank_time_ns = malloc(cr * sizeof(double));
    int ok = w->time_ns && w->span_ns && w->skew_ns && w->rank_time_ns;
    if (keep_raw) {
        w->raw_start_ns = malloc(cr * sizeof(double));
        w->raw_end_ns = malloc(cr * sizeof(double));
        w->raw_flags = malloc(c);
        w->raw_slot_ns = malloc(c * sizeof(double));
        w->raw_time_ns = malloc(c * sizeof(double));
        ok = ok && w->raw_start_ns && w->raw_end_ns && w->raw_flags && w->raw_slot_ns && w->raw_time_ns;
    }
    if (!ok) {
        mpiscope__window_destroy(w);
        return MPISCOPE_ENOMEM;
    }
    w->plan = (mpiscope__stage_plan_t){.index = 0, .k = params->k_init ? params->k_init : 1, .delta_ns = 0};
    *out = w;
    return 0;
}

void mpiscope__window_destroy(mpiscope__window_t *w)
{
    if (!w)
        return;
    free(w->time_ns);
    free(w->span_ns);
    free(w->skew_ns);
    free(w->rank_time_ns);
    free(w->raw_start_ns);
    free(w->raw_end_ns);
    free(w->raw_flags);
    free(w->raw_slot_ns);
    free(w->raw_time_ns);
    free(w);
}

/* Stage 0 ran its launches back to back (delta 0), so their spans mix
 * in the ranks' drift; each launch's own time (max over ranks) is the
 * base of the first window. Its first launch pays any late
 * initialisation, so the base is the MEDIAN of the others, not the seed's
 * mean over the stage: one interrupted launch there must not inflate the
 * window a thousandfold. Back-to-back launches also hide how long ranks
 * wait for each other, so the first window is twice gamma times that base:
 * too small a guess costs a stage of cascading late starts, too large a
 * guess only one stage of idle time before the window shrinks to need. */
static double first_window(const mpiscope__window_t *w, const double *start, const double *end)
{
    unsigned k = w->plan.k;
    double times[64];
    unsigned n = 0;
    for (unsigned l = (k > 1); l < k; l++) {
        double tmax = 0;
        for (int r = 0; r < w->nprocs; r++)
            tmax = dmax(tmax, end[(size_t)r * k + l] - start[(size_t)r * k + l]);
        times[n++] = tmax;
    }
    return 2 * w->params.gamma * quantile_of(times, n, 0.5);
}

static void push_needed(mpiscope__window_t *w, double needed)
{
    w->needed_ns[w->needed_count % MPISCOPE__WINDOW_HISTORY] = needed;
    w->needed_count++;
}

/* What one stage showed about the window. */
typedef struct stage_verdict {
    unsigned on_time_overruns;  /* launches started in their slot that did not fit it */
    unsigned oversized;         /* launches whose own time alone exceeds the slot */
    double oversized_ns[64];    /* their times */
} stage_verdict_t;

/* Judge one launch of a measured stage and keep what it tells. */
static void judge_launch(mpiscope__window_t *w, double tau, unsigned l, const double *start,
                         const double *end, stage_verdict_t *verdict)
{
    unsigned k = w->plan.k;
    double delta = w->plan.delta_ns, sched = tau + l * delta, deadline = tau + (l + 1) * delta;
    double smin = INFINITY, smax = -INFINITY, emax = -INFINITY, tmax = 0;
    /* Late by a tiny fraction of a long launch distorts it by as little:
     * after a 1 MiB Alltoall the spin loop itself restarts ~100 ns late. */
    double tolerance = dmax(w->params.late_tolerance_ns, w->params.late_tolerance_fraction * delta);
    int late = 0, overrun = 0;
    for (int r = 0; r < w->nprocs; r++) {
        double s = start[(size_t)r * k + l], e = end[(size_t)r * k + l];
        late |= s - sched > tolerance;
        overrun |= e > deadline;
        smin = fmin(smin, s);
        smax = dmax(smax, s);
        emax = dmax(emax, e);
        tmax = dmax(tmax, e - s);
    }
    size_t t = w->total++;
    if (w->keep_raw) {
        for (int r = 0; r < w->nprocs; r++) {
            w->raw_start_ns[t * w->nprocs + r] = start[(size_t)r * k + l];
            w->raw_end_ns[t * w->nprocs + r] = end[(size_t)r * k + l];
        }
        w->raw_flags[t] = (unsigned char)(late * MPISCOPE__LAUNCH_LATE | overrun * MPISCOPE__LAUNCH_OVERRUN);
        w->raw_slot_ns[t] = sched;
        w->raw_time_ns[t] = tmax;
    }
    if (tmax > delta)
        verdict->oversized_ns[verdict->oversized++] = tmax;
    if (late) { /* descheduled, or still busy with an earlier launch */
        w->late++;
        return;
    }
    push_needed(w, emax - sched); /* what this launch really needed from its slot */
    if (overrun) {
        verdict->on_time_overruns++;
        w->overrun++;
        return;
    }
    size_t v = w->valid++;
    w->time_ns[v] = tmax;
    w->span_ns[v] = emax - smin;
    w->skew_ns[v] = smax - smin;
    for (int r = 0; r < w->nprocs; r++)
        w->rank_time_ns[v * w->nprocs + r] = end[(size_t)r * k + l] - start[(size_t)r * k + l];
}

/* What a slot must hold: a high quantile of what recent on-time launches
 * needed, leaving out stalls (over 4x the median: a descheduled rank, not
 * the operation); the median while there are fewer than 8 samples. */
static double typical_need(const mpiscope__window_t *w)
{
    size_t have = w->needed_count < MPISCOPE__WINDOW_HISTORY ? w->needed_count : MPISCOPE__WINDOW_HISTORY;
    double kept[MPISCOPE__WINDOW_HISTORY];
    double median = quantile_of(w->needed_ns, have, 0.5);
    size_t n = 0;
    for (size_t i = 0; i < have; i++)
        if (w->needed_ns[i] <= 4 * median)
            kept[n++] = w->needed_ns[i];
    return quantile_of(kept, n, n >= 8 ? w->params.window_quantile : 0.5);
}

/* The next window: gamma times the typical need, with two exceptions.
 * When more than the threshold of a stage's launches took longer than the
 * slot by themselves, the window is too small for what the operation now
 * takes (late launches cascade, so few start on time): size it from those
 * launches alone. When more than the threshold (of k) of the launches that started
 * on time overran, widen by at least gamma (the seed's rule, which counts
 * every invalid launch: but a launch that started late - its rank
 * descheduled, or still busy in an earlier launch that stalled - says
 * nothing about the window, and widening for it only slows the run).
 * Otherwise the window follows the need and may shrink, by half at most
 * per stage. */
static double next_window(mpiscope__window_t *w, const stage_verdict_t *v)
{
    const mpiscope_params_t *p = &w->params;
    double delta = w->plan.delta_ns, next = delta;
    double need = w->needed_count ? p->gamma * typical_need(w) : NAN;
    if (v->oversized > p->invalid_threshold * w->plan.k) {
        /* a new regime: forget the needs of the old one */
        w->needed_count = 0;
        for (unsigned i = 0; i < v->oversized; i++)
            push_needed(w, v->oversized_ns[i]);
        next = dmax(p->gamma * delta, p->gamma * typical_need(w));
    } else if (v->on_time_overruns > p->invalid_threshold * w->plan.k)
        next = dmax(p->gamma * delta, need);
    else if (w->needed_count)
        next = dmax(need, 0.5 * delta);
    next = dmax(next, p->window_min_ns);
    w->widened += next > delta;
    w->shrunk += next < delta;
    return next;
}

static mpiscope_stop_reason_t stop_reason(const mpiscope__window_t *w, double elapsed_ns)
{
    const mpiscope_params_t *p = &w->params;
    if (p->stop_rule == MPISCOPE_STOP_ERROR && w->valid >= p->min_valid && w->valid >= 2) {
        mpiscope_stats_t s;
        if (mpiscope_stats_compute(w->time_ns, w->valid, p->trim_fraction, p->confidence, &s) == 0
            && s.rse <= p->target_rse)
            return MPISCOPE_STOPPED_TARGET_ERROR;
    }
    if (p->stop_rule == MPISCOPE_STOP_COUNT && w->valid >= p->max_valid)
        return MPISCOPE_STOPPED_MAX_VALID;
    if (w->total >= p->max_launches)
        return MPISCOPE_STOPPED_MAX_LAUNCHES;
    if (elapsed_ns >= p->max_point_seconds * 1e9)
        return MPISCOPE_STOPPED_TIME_LIMIT;
    return MPISCOPE_STOPPED_NOT;
}

int mpiscope__window_feed(mpiscope__window_t *w, double tau_ns, const double *start_ns,
                          const double *end_ns, double elapsed_ns)
{
    mpiscope__stage_plan_t *plan = &w->plan;
    double next;
    if (plan->index == 0) {
        next = dmax(first_window(w, start_ns, end_ns), w->params.window_min_ns);
        w->window_initial_ns = w->window_min_seen_ns = w->window_max_seen_ns = next;
    } else {
        stage_verdict_t verdict = {0};
        for (unsigned l = 0; l < plan->k; l++)
            judge_launch(w, tau_ns, l, start_ns, end_ns, &verdict);
        next = next_window(w, &verdict);
        w->window_min_seen_ns = fmin(w->window_min_seen_ns, plan->delta_ns);
        w->window_max_seen_ns = dmax(w->window_max_seen_ns, plan->delta_ns);
        w->window_last_ns = plan->delta_ns;
    }
    *plan = (mpiscope__stage_plan_t){.index = plan->index + 1, .k = w->params.k, .delta_ns = next};
    w->stop_reason = stop_reason(w, elapsed_ns);
    return w->stop_reason != MPISCOPE_STOPPED_NOT;
}

/* Median, mean and max of n values (sorted copy in scratch). */
static void summarise(const double *v, size_t n, double *scratch, double *median, double *mean,
                      double *max)
{
    if (n == 0) {
        *median = *mean = *max = NAN;
        return;
    }
    double sum = 0;
    memcpy(scratch, v, n * sizeof *v);
    qsort(scratch, n, sizeof *scratch, mpiscope__cmp_double);
    for (size_t i = 0; i < n; i++)
        sum += scratch[i];
    *median = mpiscope_quantile_sorted(scratch, n, 0.5);
    *mean = sum / n;
    *max = scratch[n - 1];
}

int mpiscope__window_result(const mpiscope__window_t *w, mpiscope_point_result_t *out)
{
    const mpiscope_params_t *p = &w->params;
    memset(out, 0, sizeof *out);
    out->participated = 1;
    int err = mpiscope_stats_compute(w->time_ns, w->valid, p->trim_fraction, p->confidence, &out->stats);
    if (err)
        return err;
    double *scratch = malloc((w->valid ? w->valid : 1) * sizeof(double));
    if (!scratch)
        return MPISCOPE_ENOMEM;
    summarise(w->span_ns, w->valid, scratch, &out->span_median_ns, &out->span_mean_ns, &out->span_max_ns);
    summarise(w->skew_ns, w->valid, scratch, &out->skew_median_ns, &out->skew_mean_ns, &out->skew_max_ns);
    free(scratch);
    out->launches_total = w->total;
    out->invalid_late = w->late;
    out->invalid_overrun = w->overrun;
    out->invalid_fraction = w->total ? (double)(w->late + w->overrun) / w->total : NAN;
    out->window_initial_ns = w->window_initial_ns;
    out->window_final_ns = w->window_last_ns;
    out->window_min_ns = w->window_min_seen_ns;
    out->window_max_ns = w->window_max_seen_ns;
    out->stages = w->plan.index;
    out->widened = w->widened;
    out->shrunk = w->shrunk;
    out->stop_reason = w->stop_reason;
    if (w->total && out->invalid_fraction > 0.5)
        out->unstable |= MPISCOPE_UNSTABLE_INVALID_FRACTION;
    if (w->valid >= 4 && out->stats.q75 - out->stats.q25 > 0.5 * out->stats.median)
        out->unstable |= MPISCOPE_UNSTABLE_SPREAD;
    if (p->stop_rule == MPISCOPE_STOP_ERROR && w->stop_reason != MPISCOPE_STOPPED_TARGET_ERROR)
        out->unstable |= MPISCOPE_UNSTABLE_TARGET_MISSED;
    if (w->valid < p->min_valid)
        out->unstable |= MPISCOPE_UNSTABLE_TOO_FEW_VALID;
    return 0;
}
