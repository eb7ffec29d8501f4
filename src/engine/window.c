/* window.c: validity, window sizing and stopping of the synchronized-window
 * method. Pure arithmetic on global-clock times; no MPI, no clock reads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "util.h"
#include "window.h"

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

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

int mpiscope__window_create(const mpiscope_params_t *params, mpiscope__samples_t *samples, const double *arrival_ns,
                            mpiscope__window_t **out)
{
    if (!params || !samples || params->k < 1 || params->k > 64 || params->k_init > 64)
        return MPISCOPE_EINVAL;
    mpiscope__window_t *w = calloc(1, sizeof *w);
    if (!w)
        return MPISCOPE_ENOMEM;
    w->params = *params;
    w->nprocs = samples->nprocs;
    w->samples = samples;
    w->arrival_ns = arrival_ns;
    w->plan = (mpiscope__stage_plan_t){.index = 0, .k = params->k_init ? params->k_init : 1, .delta_ns = 0};
    *out = w;
    return 0;
}

void mpiscope__window_destroy(mpiscope__window_t *w)
{
    free(w);
}

/* Stage 0 ran its launches back to back (delta 0), so their spans mix
 * in the ranks' drift; each launch's own time (max over ranks) is the
 * base of the first window. Its first launch pays any late
 * initialization, so the base is the MEDIAN of the others, not the seed's
 * mean over the stage: one interrupted launch there must not inflate the
 * window a thousandfold. Back-to-back launches also hide how long ranks
 * wait for each other, so the first window is twice gamma times that base:
 * too small a guess costs a stage of cascading late starts, too large a
 * guess only one stage of idle time before the window shrinks to need.
 * Under the deterministic rule (a simulated clock: no late initialization,
 * no noise, and idle time costs nothing) the base is the LONGEST launch,
 * the first included: back to back, a 1,024-rank Bcast's later launches
 * overlap and read 11 us where one alone takes 50 us, and a window sized
 * from them cost a stage of invalid launches at every small point. */
static double first_window(const mpiscope__window_t *w, const double *start, const double *end)
{
    unsigned k = w->plan.k;
    int longest = w->params.stop_rule == MPISCOPE_STOP_DETERMINISTIC;
    double times[64];
    unsigned n = 0;
    for (unsigned l = (k > 1 && !longest); l < k; l++) {
        double tmax = 0;
        for (int r = 0; r < w->nprocs; r++)
            tmax = dmax(tmax, end[(size_t)r * k + l] - start[(size_t)r * k + l]);
        times[n++] = tmax;
    }
    return 2 * w->params.gamma * quantile_of(times, n, longest ? 1.0 : 0.5);
}

static void push_needed(mpiscope__window_t *w, double needed)
{
    w->needed_ns[w->needed_count % MPISCOPE__WINDOW_HISTORY] = needed;
    w->needed_count++;
}

/* What one stage showed about the window. */
typedef struct stage_verdict {
    unsigned on_time_overruns; /* launches started in their slot that did not fit it */
    unsigned oversized;        /* launches whose own time alone exceeds the slot */
    double oversized_ns[64];   /* their times */
} stage_verdict_t;

/* Judge one launch of a measured stage and keep what it tells. */
static void judge_launch(mpiscope__window_t *w, double tau, unsigned l, const double *start, const double *end,
                         const double *done, stage_verdict_t *verdict)
{
    unsigned k = w->plan.k;
    double delta = w->plan.delta_ns, sched = tau + l * delta, deadline = tau + (l + 1) * delta;
    /* Late by a tiny fraction of a long launch distorts it by as little:
     * after a 1 MiB Alltoall the spin loop itself restarts ~100 ns late. */
    double tolerance = dmax(w->params.late_tolerance_ns, w->params.late_tolerance_fraction * delta);
    double done_max = -INFINITY, busy = 0; /* the slot must hold the launch and its check */
    unsigned flags = 0;
    for (int r = 0; r < w->nprocs; r++) {
        size_t i = (size_t)r * k + l;
        double own_slot = sched + (w->arrival_ns ? w->arrival_ns[r] : 0);
        if (start[i] - own_slot > tolerance)
            flags |= MPISCOPE__LAUNCH_LATE;
        if (end[i] > deadline)
            flags |= MPISCOPE__LAUNCH_OVERRUN;
        done_max = dmax(done_max, done[i]);
        busy = dmax(busy, done[i] - start[i]);
    }
    mpiscope__launch_t launch = {.start_ns = start + l,
                                 .end_ns = end + l,
                                 .stride = k,
                                 .in_stage = l,
                                 .slot_ns = sched,
                                 .flags = flags,
                                 .launch = w->samples->stage_first_launch + l};
    double tmax = mpiscope__samples_add_launch(w->samples, &launch);
    if (busy > delta)
        verdict->oversized_ns[verdict->oversized++] = busy;
    if (flags & MPISCOPE__LAUNCH_LATE) /* descheduled, or still busy with an earlier launch */
        return;
    push_needed(w, done_max - sched); /* what this launch really needed from its slot */
    if (flags & MPISCOPE__LAUNCH_OVERRUN)
        verdict->on_time_overruns++;
    else
        mpiscope__samples_add_sample(w->samples, tmax);
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
    else if (w->needed_count) /* with 8 needs known, the need is trusted: shrink to it */
        next = dmax(need, (w->needed_count >= 8 ? 0.125 : 0.5) * delta);
    next = dmax(next, p->window_min_ns);
    if (next < 0.5 * delta) {
        /* Launches so far sat in a window over twice as long as needed:
         * another idle gap, which changes small-message times (a 1 ms window
         * made an 8-byte Bcast read 4 us where 20 us read 0.3 us). */
        mpiscope__samples_restart(w->samples);
        w->restarts++;
    }
    w->widened += next > delta;
    w->shrunk += next < delta;
    return next;
}

/* Launches of the next measured stage: k, or those still short of
 * min_valid (mpiscope__samples_stage_k), or under the deterministic rule
 * two (the stage's first, after the stage's start, and one after a
 * launch) until launches have differed: their agreement ends the point. */
static unsigned stage_k(const mpiscope__window_t *w)
{
    unsigned k = mpiscope__samples_stage_k(w->samples, w->params.k);
    return w->params.stop_rule == MPISCOPE_STOP_DETERMINISTIC && !w->samples->differed && k > 2 ? 2 : k;
}

int mpiscope__window_feed(mpiscope__window_t *w, double tau_ns, const double *start_ns, const double *end_ns,
                          const double *done_ns, double elapsed_ns)
{
    mpiscope__stage_plan_t *plan = &w->plan;
    double next;
    if (plan->index == 0) {
        next = w->params.window_ns > 0 ? w->params.window_ns
                                       : dmax(first_window(w, start_ns, done_ns), w->params.window_min_ns);
        w->window_initial_ns = w->window_min_seen_ns = w->window_max_seen_ns = next;
    } else {
        stage_verdict_t verdict = {0};
        for (unsigned l = 0; l < plan->k; l++)
            judge_launch(w, tau_ns, l, start_ns, end_ns, done_ns, &verdict);
        next = w->params.window_ns > 0 ? w->params.window_ns : next_window(w, &verdict);
        w->window_min_seen_ns = fmin(w->window_min_seen_ns, plan->delta_ns);
        w->window_max_seen_ns = dmax(w->window_max_seen_ns, plan->delta_ns);
        w->window_last_ns = plan->delta_ns;
    }
    unsigned index = plan->index + 1;
    if (index == 1) { /* only the discarded stage so far */
        *plan = (mpiscope__stage_plan_t){.index = index, .k = stage_k(w), .delta_ns = next};
        if (elapsed_ns < w->params.max_point_seconds * 1e9)
            return 0;
        w->samples->stop_reason = MPISCOPE_STOPPED_TIME_LIMIT;
        return 1;
    }
    int done = mpiscope__samples_stop(w->samples, elapsed_ns) != MPISCOPE_STOPPED_NOT;
    *plan = (mpiscope__stage_plan_t){.index = index, .k = stage_k(w), .delta_ns = next}; /* after: it may differ */
    return done;
}

void mpiscope__window_result(const mpiscope__window_t *w, mpiscope_point_result_t *out)
{
    out->window_initial_ns = w->window_initial_ns;
    out->window_final_ns = w->window_last_ns;
    out->window_min_ns = w->window_min_seen_ns;
    out->window_max_ns = w->window_max_seen_ns;
    out->stages = w->plan.index;
    out->widened = w->widened;
    out->shrunk = w->shrunk;
    out->window_restarts = w->restarts;
}
