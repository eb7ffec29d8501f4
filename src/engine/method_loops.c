/* method_loops.c: the timing methods other suites use, on the same engine
 * and statistics, so their systematic errors can be shown side by side:
 *   roundtime     each launch scheduled after the observed end of the previous one
 *   barrier-each  a barrier before every launch; per-launch max over ranks
 *   max           MPIBlib's name for the same measurement
 *   root          MPIBlib: the time on one designated rank (after a barrier)
 *   global        MPIBlib: last end - first start on the global clock (after a barrier)
 *   none          back-to-back launches, no separation; per-launch max over ranks
 *   barrier       the IMB/OSU loop: barrier, k back-to-back launches, per-rank mean */
#include <math.h>
#include "mpiscope/error.h"
#include "method.h"
#include "opctx.h"
#include "timer_read.h"

/* --- planning and judging shared by the unscheduled methods ------------- */

static void plan_k(mpiscope__method_state_t *st, mpiscope__stage_msg_t *m)
{
    m->k = st->stage == 0 && st->params->k_init ? st->params->k_init : st->params->k;
    m->delta_ns = 0;
}

/* A sample per launch: the last stage runs only the launches still short
 * of min_valid (mpiscope__samples_stage_k); the IMB/OSU loop, a sample per
 * stage, keeps plan_k. */
static void plan_launches(mpiscope__method_state_t *st, mpiscope__stage_msg_t *m)
{
    plan_k(st, m);
    m->k = mpiscope__samples_stage_k(st->samples, (unsigned)m->k);
}

typedef double (*sample_fn)(const mpiscope__method_state_t *st, const double *start, const double *end, size_t stride,
                            double own_max);

/* Record every launch of the stage (stage 0 only starts the clock of
 * "done"); each valid launch contributes the method's sample. */
static int judge_each(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *start,
                      const double *end, const double *slot, double elapsed_ns, sample_fn sample)
{
    unsigned k = (unsigned)m->k;
    if (st->stage++ > 0) {
        double tolerance = st->params->late_tolerance_ns;
        for (unsigned l = 0; l < k; l++) {
            unsigned flags = 0;
            for (int r = 0; slot && r < st->samples->nprocs; r++)
                if (start[(size_t)r * k + l] - slot[l] - (st->arrival_ns ? st->arrival_ns[r] : 0) > tolerance)
                    flags = MPISCOPE__LAUNCH_LATE;
            mpiscope__launch_t launch = {.start_ns = start + l,
                                         .end_ns = end + l,
                                         .stride = k,
                                         .in_stage = l,
                                         .slot_ns = slot ? slot[l] : NAN,
                                         .flags = flags,
                                         .launch = st->samples->stage_first_launch + l};
            double own_max = mpiscope__samples_add_launch(st->samples, &launch);
            if (!flags)
                mpiscope__samples_add_sample(st->samples, sample(st, start + l, end + l, k, own_max));
        }
    }
    return mpiscope__samples_stop(st->samples, elapsed_ns) != MPISCOPE_STOPPED_NOT && st->stage > 1;
}

static double own_max(const mpiscope__method_state_t *st, const double *start, const double *end, size_t stride,
                      double max)
{
    return max;
}

static double root_time(const mpiscope__method_state_t *st, const double *start, const double *end, size_t stride,
                        double max)
{
    return end[(size_t)st->root * stride] - start[(size_t)st->root * stride];
}

static double global_span(const mpiscope__method_state_t *st, const double *start, const double *end, size_t stride,
                          double max)
{
    double first = INFINITY, last = -INFINITY;
    for (int r = 0; r < st->samples->nprocs; r++) {
        first = fmin(first, start[(size_t)r * stride]);
        last = fmax(last, end[(size_t)r * stride]);
    }
    return last - first;
}

static int judge_own_max(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *s, const double *e,
                         const double *done, const double *slot, double elapsed)
{
    return judge_each(st, m, s, e, slot, elapsed, own_max);
}

static int judge_unscheduled_max(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *s,
                                 const double *e, const double *done, const double *slot, double elapsed)
{
    return judge_each(st, m, s, e, NULL, elapsed, own_max);
}

static int judge_root(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *s, const double *e,
                      const double *done, const double *slot, double elapsed)
{
    return judge_each(st, m, s, e, NULL, elapsed, root_time);
}

static int judge_global(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *s, const double *e,
                        const double *done, const double *slot, double elapsed)
{
    return judge_each(st, m, s, e, NULL, elapsed, global_span);
}

/* --- stage loops ------------------------------------------------------ */

/* Round-time (Schuchart, Hunold, Bosilca): the ranks agree on the observed
 * end of each launch (an allreduce of the end times) and start the next
 * one a lead time plus the idle gap later, so one long launch does not
 * make a cascade of late starts. */
static int run_roundtime(mpiscope__stage_env_t *env, const mpiscope__stage_msg_t *m, double *start, double *end,
                         double *done, double *slot)
{
    unsigned k = (unsigned)m->k;
    double next = m->tau_ns;
    int err = 0;
    mpiscope__prepare_launch(env);
    for (unsigned l = 0; l < k; l++) {
        slot[l] = next;
        mpiscope__spin_until_global(env, next + env->arrival_ns);
        err |= mpiscope__timed_launch(env, &start[l], &end[l], &done[l]);
        if (l + 1 < k) { /* the next launch's preparation belongs to this round */
            mpiscope__prepare_launch(env);
            done[l] = mpiscope__global_now(env);
        }
        double last_done;
        MPI_Allreduce(&done[l], &last_done, 1, MPI_DOUBLE, MPI_MAX, env->comm);
        next = last_done + 2 * env->lead_ns + env->gap_ns;
    }
    return err ? MPISCOPE_EMPI : 0;
}

/* A barrier before every launch, then the idle gap on the local clock. */
static int run_barrier_each(mpiscope__stage_env_t *env, const mpiscope__stage_msg_t *m, double *start, double *end,
                            double *done, double *slot)
{
    unsigned k = (unsigned)m->k;
    int err = 0;
    for (unsigned l = 0; l < k; l++) {
        slot[l] = NAN;
        mpiscope__prepare_launch(env);
        MPI_Barrier(env->comm);
        if (env->gap_ns > 0)
            mpiscope_timer_spin_until_ns(mpiscope__now_ns() + env->gap_ns);
        err |= mpiscope__timed_launch(env, &start[l], &end[l], &done[l]);
    }
    return err ? MPISCOPE_EMPI : 0;
}

/* One barrier, then k launches back to back (buffers chosen in between:
 * cold rotation stays, as in the suites that rotate buffers). */
static int run_back_to_back(mpiscope__stage_env_t *env, const mpiscope__stage_msg_t *m, double *start, double *end,
                            double *done, double *slot)
{
    unsigned k = (unsigned)m->k;
    int err = 0;
    MPI_Barrier(env->comm);
    for (unsigned l = 0; l < k; l++) {
        slot[l] = NAN;
        mpiscope__prepare_launch(env);
        err |= mpiscope__timed_launch(env, &start[l], &end[l], &done[l]);
    }
    return err ? MPISCOPE_EMPI : 0;
}

/* The IMB/OSU loop: each rank's time is its mean over the k launches of a
 * stage; the suites then report rank 0's mean (OSU), the mean over ranks
 * (IMB t_avg) or the max over ranks (IMB t_max). The sample is the max of
 * the per-rank means; the other views are kept beside it, and so is the
 * per-launch max over ranks, which the loop's mean hides. */
static int judge_suite_loop(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *start,
                            const double *end, const double *done, const double *slot, double elapsed_ns)
{
    unsigned k = (unsigned)m->k;
    int n = st->samples->nprocs;
    if (st->stage++ > 0) {
        double max_mean = 0, sum_mean = 0, rank0_mean = 0;
        for (int r = 0; r < n; r++) {
            double mean = (end[(size_t)r * k + k - 1] - start[(size_t)r * k]) / k;
            max_mean = fmax(max_mean, mean);
            sum_mean += mean;
            rank0_mean = r == 0 ? mean : rank0_mean;
        }
        for (unsigned l = 0; l < k; l++) {
            mpiscope__launch_t launch = {.start_ns = start + l,
                                         .end_ns = end + l,
                                         .stride = k,
                                         .in_stage = l,
                                         .slot_ns = NAN,
                                         .flags = 0,
                                         .launch = st->samples->stage_first_launch + l};
            mpiscope__samples_view(st->samples, 3, "per_launch_max_ns",
                                   mpiscope__samples_add_launch(st->samples, &launch));
        }
        mpiscope__samples_add_sample(st->samples, max_mean);
        mpiscope__samples_view(st->samples, 0, "rank0_ns", rank0_mean);
        mpiscope__samples_view(st->samples, 1, "mean_over_ranks_ns", sum_mean / n);
        mpiscope__samples_view(st->samples, 2, "max_over_ranks_ns", max_mean);
    }
    return mpiscope__samples_stop(st->samples, elapsed_ns) != MPISCOPE_STOPPED_NOT && st->stage > 1;
}

/* The plan parameters each family reads. */
static const char *const plain[] = {"k_init", "k", NULL};
static const char *const with_gap[] = {"k_init", "k", "gap_ns", NULL};

const mpiscope__method_t mpiscope__method_roundtime = {
    .name = "roundtime",
    .description = "round-time: each launch starts a lead time + gap after the observed end of the previous",
    .scheduled = 1,
    .parameters = with_gap,
    .run_stage = run_roundtime,
    .plan = plan_launches,
    .judge = judge_own_max,
};

const mpiscope__method_t mpiscope__method_barrier_each = {
    .name = "barrier-each",
    .description = "a barrier before every launch; the time is the per-launch max over ranks",
    .parameters = with_gap,
    .run_stage = run_barrier_each,
    .plan = plan_launches,
    .judge = judge_unscheduled_max,
};

const mpiscope__method_t mpiscope__method_max = {
    .name = "max",
    .description = "MPIBlib 'max': barrier, then the max over ranks of each rank's time (= barrier-each)",
    .parameters = with_gap,
    .run_stage = run_barrier_each,
    .plan = plan_launches,
    .judge = judge_unscheduled_max,
};

const mpiscope__method_t mpiscope__method_root = {
    .name = "root",
    .description = "MPIBlib 'root': barrier, then the time on the root rank only",
    .parameters = with_gap,
    .run_stage = run_barrier_each,
    .plan = plan_launches,
    .judge = judge_root,
};

const mpiscope__method_t mpiscope__method_global = {
    .name = "global",
    .description = "MPIBlib 'global': barrier, then last end - first start on the global clock",
    .parameters = with_gap,
    .run_stage = run_barrier_each,
    .plan = plan_launches,
    .judge = judge_global,
};

const mpiscope__method_t mpiscope__method_none = {
    .name = "none",
    .description = "back-to-back launches with no separation; per-launch max over ranks",
    .parameters = plain,
    .run_stage = run_back_to_back,
    .plan = plan_launches,
    .judge = judge_unscheduled_max,
};

const mpiscope__method_t mpiscope__method_barrier = {
    .name = "barrier",
    .description = "the IMB/OSU loop: barrier, k back-to-back launches, each rank's mean over them",
    .parameters = plain,
    .run_stage = run_back_to_back,
    .plan = plan_k,
    .judge = judge_suite_loop,
};
