/* test_window.c: the synchronized-window scheduler driven by a simulated
 * clock, no MPI: late starts, overruns, widening, shrinking, stopping
 * rules and the instability flags. */
#include <string.h>
#include "check.h"
#include "mpiscope/error.h"
#include "window.h"

enum { RANKS = 2, KMAX = 64 };

/* A simulated op: rank r takes duration(stage, l, r) ns; a rank may also
 * be descheduled (delay before its start). */
typedef struct sim {
    double base_ns[RANKS];  /* steady duration per rank */
    double first_launch_ns; /* stage 0, launch 0 (late initialization); 0: base */
    double stage0_ns;       /* every launch of stage 0; 0: base */
    double from_stage_ns;   /* from stage `change_stage` on, every launch takes this; 0: off */
    unsigned change_stage;
    double deschedule_ns; /* rank 1 starts this late in launch `deschedule_launch` */
    unsigned deschedule_stage, deschedule_launch;
    int alternate;   /* odd launches take 3x: a wide spread */
    double stall_ns; /* one launch takes this long (rank 0, stage/launch below) */
    unsigned stall_stage, stall_launch;
    double clock_ns; /* simulated global time */
    double elapsed_ns;
} sim_t;

static double duration(const sim_t *s, unsigned stage, unsigned l, int r, size_t launch)
{
    if (s->stall_ns > 0 && stage == s->stall_stage && l == s->stall_launch && r == 0)
        return s->stall_ns;
    if (stage == 0 && s->stage0_ns > 0)
        return s->stage0_ns;
    if (stage == 0 && l == 0 && s->first_launch_ns > 0)
        return s->first_launch_ns;
    if (s->from_stage_ns > 0 && stage >= s->change_stage)
        return s->from_stage_ns;
    if (s->alternate && launch % 2)
        return 3 * s->base_ns[r];
    return s->base_ns[r];
}

/* Run the planned stage: each rank waits for its slot (or its previous
 * launch), then runs; returns the scheduler's verdict. */
static int run_stage(sim_t *s, mpiscope__window_t *w, size_t *launch)
{
    double start[RANKS * KMAX], end[RANKS * KMAX];
    const mpiscope__stage_plan_t p = w->plan;
    double tau = s->clock_ns + 500; /* t_bcast */
    double last = tau;
    for (int r = 0; r < RANKS; r++) {
        double ready = tau;
        for (unsigned l = 0; l < p.k; l++) {
            double slot = tau + l * p.delta_ns;
            double t0 = ready > slot ? ready : slot;
            if (r == 1 && p.index == s->deschedule_stage && l == s->deschedule_launch && s->deschedule_ns > 0)
                t0 += s->deschedule_ns;
            start[r * p.k + l] = t0 + 20; /* clock read after the spin */
            end[r * p.k + l] = start[r * p.k + l] + duration(s, p.index, l, r, *launch + l);
            ready = end[r * p.k + l] + 30;
            last = ready > last ? ready : last;
        }
    }
    *launch += p.k;
    s->elapsed_ns += last - s->clock_ns;
    s->clock_ns = last + 1000; /* gather + decision */
    return mpiscope__window_feed(w, tau, start, end, end, s->elapsed_ns);
}

/* A window scheduler and the sample store it records into. */
static mpiscope__window_t *make(mpiscope_params_t *p, int raw)
{
    mpiscope__samples_t *samples = NULL;
    mpiscope__window_t *w = NULL;
    p->late_tolerance_ns = 100;
    CHECK_INT_EQ(mpiscope__samples_create(p, RANKS, raw, &samples), 0);
    CHECK_INT_EQ(mpiscope__window_create(p, samples, NULL, &w), 0);
    return w;
}

static void destroy(mpiscope__window_t *w)
{
    mpiscope__samples_destroy(w->samples);
    mpiscope__window_destroy(w);
}

static void run_until_done(sim_t *s, mpiscope__window_t *w, mpiscope_point_result_t *r)
{
    size_t launch = 0;
    for (int i = 0; i < 10000 && !run_stage(s, w, &launch); i++)
        ;
    CHECK_INT_EQ(mpiscope__samples_result(w->samples, r), 0);
    mpiscope__window_result(w, r);
}

static void test_steady_op(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.min_point_seconds = 0; /* the window's logic alone: stop at the target after two stages */
    mpiscope__window_t *w = make(&p, 1);
    sim_t s = {.base_ns = {500, 1000}};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    /* the op time is the max over ranks of each rank's own duration */
    CHECK_NEAR(r.stats.mean, 1000, 1e-9);
    CHECK_NEAR(r.stats.median, 1000, 1e-9);
    CHECK_INT_EQ(r.stop_reason, MPISCOPE_STOPPED_TARGET_ERROR);
    /* stage 0 discarded, a stage of 8, then the 2 still short of min_valid */
    CHECK_INT_EQ(r.stats.n_valid, 10);
    CHECK_INT_EQ(r.launches_total, 10);
    CHECK_INT_EQ(r.stages, 3);
    CHECK_INT_EQ(r.unstable, 0);
    CHECK_INT_EQ(r.invalid_late + r.invalid_overrun, 0);
    CHECK(r.skew_max_ns < 1e-9); /* both ranks start on the same slot */
    CHECK_NEAR(r.span_median_ns, 1000, 1e-9);
    /* the first window is 2 gamma x the median time of stage 0's later launches */
    CHECK_NEAR(r.window_initial_ns, 2 * 1.1 * 1000, 1e-9);
    CHECK(r.shrunk > 0 && r.window_final_ns < r.window_initial_ns);
    CHECK(w->samples->raw_flags[0] == 0);
    CHECK_NEAR(w->samples->raw_slot_ns[1] - w->samples->raw_slot_ns[0], r.window_initial_ns, 1e-9);
    CHECK_NEAR(w->samples->raw_end_ns[1] - w->samples->raw_start_ns[1], 1000, 1e-9);
    destroy(w);
}

static void test_late_initialisation_does_not_inflate_window(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}, .first_launch_ns = 5e6};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.window_initial_ns < 2 * 1.1 * 1000 + 1); /* the seed's rule would give ~1.4 ms */
    CHECK_NEAR(r.stats.mean, 1000, 1e-9);
    destroy(w);
}

static void test_overrun_widens(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}, .from_stage_ns = 8000, .change_stage = 1};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.widened > 0);
    CHECK(r.invalid_overrun > 0);
    CHECK(r.window_final_ns >= 8000);
    CHECK_NEAR(r.stats.median, 8000, 1e-9); /* valid launches carry the new time */
    destroy(w);
}

static void test_oversized_first_window_restarts(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    mpiscope__window_t *w = make(&p, 0);
    /* all of stage 0 slow (first use): the first window is 100x the need */
    sim_t s = {.base_ns = {1000, 1000}, .stage0_ns = 100000};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.window_restarts >= 1);
    CHECK(r.launches_discarded >= 8);          /* the stage in the oversized window */
    CHECK(r.window_final_ns < 2 * 1.1 * 1020); /* converged to the need */
    CHECK(r.gap_median_ns < 1000);             /* kept samples saw the small idle gap */
    CHECK_INT_EQ(r.launches_valid, r.stats.n_valid);
    destroy(w);
}

static void test_slower_op_later_widens_at_once(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.min_valid = 60;
    mpiscope__window_t *w = make(&p, 0);
    /* four stages of 1 us fill the history, then the op takes 8 us */
    sim_t s = {.base_ns = {1000, 1000}, .from_stage_ns = 8000, .change_stage = 5};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.window_final_ns >= 8000);
    CHECK(r.invalid_late + r.invalid_overrun <= 8); /* one stage lost, not many */
    destroy(w);
}

static void test_window_shrinks(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.min_valid = 40;
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {20000, 20000}, .from_stage_ns = 2000, .change_stage = 1};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.shrunk > 0);
    CHECK(r.window_final_ns < r.window_initial_ns / 4);
    CHECK(r.window_final_ns >= 2000);
    destroy(w);
}

static void test_descheduled_rank_is_late_not_widened(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    mpiscope__window_t *w = make(&p, 0);
    /* one interruption at the end of a stage: late and overrun, nothing else */
    sim_t s = {.base_ns = {1000, 1000}, .deschedule_ns = 3000, .deschedule_stage = 1, .deschedule_launch = 7};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK_INT_EQ(r.invalid_late, 1);
    /* sized by needs (gamma x 1020 ns), not widened by gamma on top */
    CHECK_INT_EQ(r.widened, 0);
    CHECK(r.window_final_ns < 1.05 * 1.1 * 1020);
    CHECK_NEAR(r.stats.mean, 1000, 1e-9);
    destroy(w);
}

static void one_stall(unsigned launch)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.min_valid = 40;
    mpiscope__window_t *w = make(&p, 0);
    /* one launch of stage 2 takes 20x: it and the launches behind it are invalid */
    sim_t s = {.base_ns = {1000, 1000}, .stall_ns = 20000, .stall_stage = 2, .stall_launch = launch};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.invalid_overrun + r.invalid_late >= 1);
    CHECK_INT_EQ(r.widened, 0);
    CHECK(r.window_final_ns < 1.05 * 1.1 * 1020);
    CHECK_NEAR(r.stats.median, 1000, 1e-9);
    destroy(w);
}

static void test_one_stall_does_not_inflate_window(void)
{
    one_stall(0); /* every later launch of the stage starts late */
    one_stall(2);
    one_stall(7);
}

static void test_spread_is_unstable(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.max_launches = 64;
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}, .alternate = 1};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(r.unstable & MPISCOPE_UNSTABLE_SPREAD);
    destroy(w);
}

static void test_cap_without_target_is_unstable(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.target_rse = 1e-12;
    p.max_launches = 40;
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}, .alternate = 1};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK_INT_EQ(r.stop_reason, MPISCOPE_STOPPED_MAX_LAUNCHES);
    CHECK(r.unstable & MPISCOPE_UNSTABLE_TARGET_MISSED);
    CHECK(r.launches_total >= 40 && r.launches_total < 48);
    destroy(w);
}

static void test_count_rule(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.stop_rule = MPISCOPE_STOP_COUNT;
    p.max_valid = 30;
    p.max_launches = 100;
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK_INT_EQ(r.stop_reason, MPISCOPE_STOPPED_MAX_VALID);
    CHECK_INT_EQ(r.stats.n_valid, 32);
    CHECK_INT_EQ(r.unstable & MPISCOPE_UNSTABLE_TARGET_MISSED, 0);
    destroy(w);
}

static void test_time_limit(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.max_point_seconds = 50e-6; /* 50 us of simulated time */
    p.target_rse = 1e-12;
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}, .alternate = 1};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK_INT_EQ(r.stop_reason, MPISCOPE_STOPPED_TIME_LIMIT);
    destroy(w);
}

/* A clock without noise (a simulator's): the deterministic rule runs the
 * initialization stage, then one stage of two launches, whose agreement
 * ends the point with an exact value: no spread, no interval, no flag. */
static void test_deterministic_rule_stops_at_two_launches(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.stop_rule = MPISCOPE_STOP_DETERMINISTIC;
    mpiscope__window_t *w = make(&p, 1);
    CHECK_INT_EQ(w->plan.k, 4); /* the initialization stage: k_init */
    sim_t s = {.base_ns = {500, 1000}};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK_INT_EQ(r.stop_reason, MPISCOPE_STOPPED_DETERMINISTIC);
    CHECK_INT_EQ(r.launches_total, 2);
    CHECK_INT_EQ(r.launches_valid, 2);
    CHECK_INT_EQ(r.stages, 2);
    CHECK_INT_EQ(r.unstable, 0);
    CHECK_NEAR(r.stats.mean, 1000, 1e-9);
    CHECK(r.stats.error == 0 && r.stats.se == 0 && r.stats.stddev == 0 && r.stats.error_floor_ns == 0);
    CHECK(r.stats.ci_low == r.stats.mean && r.stats.ci_high == r.stats.mean);
    CHECK(!r.stats.at_resolution);
    CHECK(w->samples->raw_flags[0] == 0 && w->samples->raw_flags[1] == 0);
    destroy(w);
}

/* Launches that read different times (every other one 3x): the rule
 * measures the point by the error rule, with stages of k again. */
static void test_deterministic_rule_hands_differing_launches_to_the_error_rule(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.stop_rule = MPISCOPE_STOP_DETERMINISTIC;
    p.max_launches = 64;
    mpiscope__window_t *w = make(&p, 0);
    sim_t s = {.base_ns = {1000, 1000}, .alternate = 1};
    mpiscope_point_result_t r;
    run_until_done(&s, w, &r);
    CHECK(w->samples->differed);
    CHECK(r.stop_reason != MPISCOPE_STOPPED_DETERMINISTIC);
    CHECK(r.launches_total > 2 + p.k); /* the pair, then whole stages */
    CHECK_INT_EQ(w->plan.k, p.k);
    CHECK(r.stats.error > 0);
    CHECK(r.unstable & MPISCOPE_UNSTABLE_SPREAD);
    destroy(w);
}

static void test_bad_arguments(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    mpiscope__window_t *w = NULL;
    mpiscope__samples_t *samples = NULL;
    CHECK_INT_EQ(mpiscope__samples_create(&p, 0, 0, &samples), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope__window_create(&p, NULL, NULL, &w), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope__samples_create(&p, 2, 0, &samples), 0);
    p.k = 65;
    CHECK_INT_EQ(mpiscope__window_create(&p, samples, NULL, &w), MPISCOPE_EINVAL);
    mpiscope__samples_destroy(samples);
    mpiscope_params_default(&p);
    p.gamma = 2.5;
    CHECK_INT_EQ(mpiscope_params_check(&p), MPISCOPE_ERANGE);
}

int main(void)
{
    test_steady_op();
    test_late_initialisation_does_not_inflate_window();
    test_overrun_widens();
    test_oversized_first_window_restarts();
    test_slower_op_later_widens_at_once();
    test_window_shrinks();
    test_descheduled_rank_is_late_not_widened();
    test_one_stall_does_not_inflate_window();
    test_spread_is_unstable();
    test_cap_without_target_is_unstable();
    test_count_rule();
    test_time_limit();
    test_deterministic_rule_stops_at_two_launches();
    test_deterministic_rule_hands_differing_launches_to_the_error_rule();
    test_bad_arguments();
    CHECK_DONE();
}
