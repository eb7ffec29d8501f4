/* test_samples.c: a point's launch store holds what the launches made so
 * far, not its cap (rank 0 at scale: the per-rank arrays are launches x
 * nprocs), and keeps every value as it grows. No MPI. */
#include <math.h>
#include "check.h"
#include "mpiscope/error.h"
#include "samples.h"

enum { NPROCS = 4096 };

static double start_ns[NPROCS], end_ns[NPROCS];

/* Launch t: rank r takes t + r ns from t * 1e6. */
static double add_launch(mpiscope__samples_t *s, size_t t)
{
    for (int r = 0; r < NPROCS; r++) {
        start_ns[r] = (double)t * 1e6;
        end_ns[r] = start_ns[r] + (double)t + r;
    }
    mpiscope__launch_t launch = {.start_ns = start_ns, .end_ns = end_ns, .stride = 1, .slot_ns = NAN};
    return mpiscope__samples_add_launch(s, &launch);
}

/* One launch's bytes at NPROCS ranks with raw samples: 3 per-rank doubles. */
#define LAUNCH_BYTES ((size_t)NPROCS * 3 * sizeof(double) + 64)

static void test_a_huge_cap_costs_nothing_up_front(void)
{
    mpiscope_params_t params;
    mpiscope__samples_t *s = NULL;
    mpiscope_params_default(&params);
    params.max_launches = 1000000; /* the plan's largest: 98 GB of per-rank arrays if allocated up front */
    CHECK_INT_EQ(mpiscope__samples_create(&params, NPROCS, 1, &s), 0);
    if (!s)
        return;
    CHECK(mpiscope__samples_bytes(s) <= 64 * LAUNCH_BYTES + NPROCS * sizeof(double));
    for (size_t t = 0; t < 200; t++)
        CHECK_NEAR(add_launch(s, t), (double)t + NPROCS - 1, 0);
    CHECK_INT_EQ(s->total, 200);
    CHECK_INT_EQ(s->valid, 200);
    CHECK(mpiscope__samples_bytes(s) <= 256 * LAUNCH_BYTES + NPROCS * sizeof(double));
    /* values written before the arrays grew are still there */
    CHECK_NEAR(s->rank_time_ns[3 * (size_t)NPROCS + 7], 3.0 + 7, 0);
    CHECK_NEAR(s->rank_time_ns[199 * (size_t)NPROCS + 4095], 199.0 + 4095, 0);
    CHECK_NEAR(s->raw_end_ns[10 * (size_t)NPROCS + 1], 10e6 + 11, 0);
    mpiscope__samples_destroy(s);
}

static void test_the_cap_still_holds(void)
{
    mpiscope_params_t params;
    mpiscope__samples_t *s = NULL;
    mpiscope_params_default(&params);
    params.max_launches = 10;
    params.stop_rule = MPISCOPE_STOP_COUNT;
    params.max_valid = 1000;
    CHECK_INT_EQ(mpiscope__samples_create(&params, NPROCS, 0, &s), 0);
    if (!s)
        return;
    for (size_t t = 0; t < 100; t++) {
        add_launch(s, t);
        mpiscope__samples_add_sample(s, (double)t);
        mpiscope__samples_view(s, 1, "view", 2.0 * (double)t);
    }
    CHECK_INT_EQ(s->total, 10 + 64); /* the cap plus one stage, as before */
    CHECK_INT_EQ(s->n_samples, 10 + 64);
    CHECK_INT_EQ(s->n_view_values[1], 10 + 64);
    CHECK_NEAR(s->view_ns[1][73], 146, 0);
    CHECK_NEAR(s->sample_ns[70], 70, 0);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_MAX_LAUNCHES);
    mpiscope__samples_destroy(s);
}

/* A quantised clock never meets the error rule by RSE 0: samples on one
 * step stop for the clock's resolution, not the target; a long enough
 * time meets the target at the same step; a floor is subtracted. */
static void test_the_clock_limits_the_stop_rule(void)
{
    mpiscope_params_t params;
    mpiscope__samples_t *s = NULL;
    mpiscope_params_default(&params);
    params.min_point_seconds = 0;
    CHECK_INT_EQ(mpiscope__samples_create(&params, 2, 0, &s), 0);
    if (!s)
        return;
    s->resolution_ns = 20.0;
    for (int i = 0; i < 50; i++) /* 50 ns: half a step is 20% of it */
        mpiscope__samples_add_sample(s, 50.0);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_RESOLUTION);
    mpiscope_point_result_t r;
    CHECK_INT_EQ(mpiscope__samples_result(s, &r), 0);
    CHECK(r.stats.at_resolution && r.stats.error == 10.0 && r.unstable == 0);
    s->n_samples = 0;
    for (int i = 0; i < 50; i++) /* 2 us: the half step is 0.5% of it */
        mpiscope__samples_add_sample(s, 2000.0);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_TARGET_ERROR);
    mpiscope__samples_destroy(s);
    params.floor_ns = 30.0;
    params.floor_se_ns = 4.0;
    CHECK_INT_EQ(mpiscope__samples_create(&params, 2, 0, &s), 0);
    if (!s)
        return;
    for (int i = 0; i < 50; i++)
        mpiscope__samples_add_sample(s, 2030.0 + (i % 7));
    CHECK_INT_EQ(mpiscope__samples_result(s, &r), 0);
    CHECK_NEAR(r.stats.median, 2003.0, 1e-9);
    CHECK(r.stats.se >= 4.0); /* the floor's own standard error is in every interval */
    mpiscope__samples_destroy(s);
}

/* The deterministic rule's agreement: to 1e-9 of the time plus 1e-12 of
 * the clock's reading (a double's rounding of absolute times), no more. */
static void test_samples_agree_to_the_clocks_rounding(void)
{
    mpiscope_params_t params;
    mpiscope__samples_t *s = NULL;
    mpiscope_params_default(&params);
    params.stop_rule = MPISCOPE_STOP_DETERMINISTIC;
    CHECK_INT_EQ(mpiscope__samples_create(&params, 2, 0, &s), 0);
    if (!s)
        return;
    mpiscope__samples_add_sample(s, 5000.0);
    CHECK(!mpiscope__samples_agree(s)); /* one sample says nothing yet */
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_NOT);
    mpiscope__samples_add_sample(s, 5000.0 + 3e-9); /* SMPI's launches: ~1e-12 of the time apart */
    CHECK(mpiscope__samples_agree(s));
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_DETERMINISTIC);
    mpiscope__samples_add_sample(s, 5000.1); /* 0.1 ns: a difference, not a rounding */
    CHECK(!mpiscope__samples_agree(s));
    s->clock_max_ns = 1e12; /* 1,000 s into the run: a double's ns carry 1e-4 ns of rounding */
    CHECK(mpiscope__samples_agree(s));
    s->clock_max_ns = 0;
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_NOT); /* now the error rule's */
    CHECK(s->differed);
    mpiscope__samples_destroy(s);
}

/* A window restart drops the valid launches so far: the raw samples keep
 * them, and kept_from says where the ones the statistics use begin (the
 * result's raw.discarded). */
static void test_a_restart_marks_where_the_kept_launches_start(void)
{
    mpiscope_params_t params;
    mpiscope__samples_t *s = NULL;
    mpiscope_params_default(&params);
    CHECK_INT_EQ(mpiscope__samples_create(&params, NPROCS, 1, &s), 0);
    if (!s)
        return;
    CHECK_INT_EQ(s->kept_from, 0);
    for (size_t t = 0; t < 5; t++)
        add_launch(s, t);
    mpiscope__samples_restart(s);
    for (size_t t = 5; t < 8; t++)
        add_launch(s, t);
    CHECK_INT_EQ(s->kept_from, 5);
    CHECK_INT_EQ(s->discarded, 5);
    CHECK_INT_EQ(s->valid, 3);
    CHECK_INT_EQ(s->total, 8);
    CHECK_NEAR(s->raw_time_ns[0], 0.0 + NPROCS - 1, 0); /* the raw samples keep the dropped ones */
    mpiscope__samples_destroy(s);
}

int main(void)
{
    test_the_clock_limits_the_stop_rule();
    test_samples_agree_to_the_clocks_rounding();
    test_a_huge_cap_costs_nothing_up_front();
    test_the_cap_still_holds();
    test_a_restart_marks_where_the_kept_launches_start();
    CHECK_DONE();
}
