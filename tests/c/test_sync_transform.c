/* test_sync_transform.c: the grammar of injected clock transforms and the
 * timer reading through one (no MPI: the monotonic timer). */
#include <string.h>
#include "check.h"
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "timer_read.h"

static mpiscope_clock_transform_t parse_ok(const char *spec, int rank)
{
    mpiscope_clock_transform_t tf;
    char why[160] = "";
    int err = mpiscope_clock_transform_parse(spec, rank, &tf, why, sizeof why);
    if (err)
        fprintf(stderr, "'%s' refused: %s\n", spec, why);
    CHECK_INT_EQ(err, 0);
    return tf;
}

static void test_selectors_and_overrides(void)
{
    const char *spec = "all:drift=20;0:drift=0;3:offset=5e6;4-6:offset=-2e3,jitter=7";
    CHECK_NEAR(parse_ok(spec, 0).drift_ppm, 0, 0);
    CHECK_NEAR(parse_ok(spec, 1).drift_ppm, 20, 0);
    CHECK_NEAR(parse_ok(spec, 1).offset_ns, 0, 0);
    CHECK_NEAR(parse_ok(spec, 3).offset_ns, 5e6, 0);
    CHECK_NEAR(parse_ok(spec, 3).drift_ppm, 20, 0); /* a later item overrides only its keys */
    CHECK_NEAR(parse_ok(spec, 5).offset_ns, -2e3, 0);
    CHECK_NEAR(parse_ok(spec, 5).jitter_ns, 7, 0);
    CHECK_NEAR(parse_ok(spec, 7).jitter_ns, 0, 0);
    CHECK_NEAR(parse_ok("", 3).offset_ns, 0, 0);
    CHECK_NEAR(parse_ok(NULL, 3).drift_ppm, 0, 0);
}

static void test_random_is_bounded_and_seeded(void)
{
    double first = parse_ok("random:seed=9,offset=1e6,drift=50", 5).offset_ns;
    int differ = 0;
    for (int rank = 0; rank < 64; rank++) {
        mpiscope_clock_transform_t tf = parse_ok("random:seed=9,offset=1e6,drift=50", rank);
        CHECK(tf.offset_ns >= -1e6 && tf.offset_ns <= 1e6);
        CHECK(tf.drift_ppm >= -50 && tf.drift_ppm <= 50);
        differ += tf.offset_ns != first;
    }
    CHECK(differ >= 60);
    CHECK_NEAR(parse_ok("random:seed=9,offset=1e6", 5).offset_ns, first, 0); /* same seed, same draw */
    CHECK(parse_ok("random:seed=10,offset=1e6", 5).offset_ns != first);
}

static void test_bad_specs(void)
{
    const char *bad[] = {"x:offset=1",   "all",           "all:offset",     "all:speed=3", "all:offset=abc",
                         "3-1:offset=1", "all:jitter=-1", "all:drift=-1e6", "-2:offset=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mpiscope_clock_transform_t tf;
        char why[160] = "";
        CHECK_INT_EQ(mpiscope_clock_transform_parse(bad[i], 0, &tf, why, sizeof why), MPISCOPE_EINVAL);
        CHECK(strncmp(why, "clock transform: ", 17) == 0);
    }
}

static void test_check_for_a_rank_count(void)
{
    char why[160] = "";
    CHECK_INT_EQ(mpiscope_clock_transform_check("1:offset=5;0-1:drift=3", 2, why, sizeof why), 0);
    CHECK_INT_EQ(mpiscope_clock_transform_check("", 1, why, sizeof why), 0);
    /* a rank the run does not have, a number that is not one, no rank count */
    const char *bad[] = {"7:offset=5", "1-2:offset=5", "all:offset=nan", "all:drift=inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        CHECK_INT_EQ(mpiscope_clock_transform_check(bad[i], 2, why, sizeof why), MPISCOPE_EINVAL);
        CHECK(strncmp(why, "clock transform: ", 17) == 0);
    }
    CHECK_INT_EQ(mpiscope_clock_transform_check("all:offset=1", 0, why, sizeof why), MPISCOPE_EINVAL);
    /* the parse alone knows no rank count: a rank beyond any run selects nothing */
    mpiscope_clock_transform_t tf;
    CHECK_INT_EQ(mpiscope_clock_transform_parse("7:offset=5", 0, &tf, why, sizeof why), 0);
}

static void test_timer_reads_through_the_transform(void)
{
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0), 0);
    CHECK_INT_EQ(mpiscope_timer_get_transform(NULL), 0);
    mpiscope_clock_transform_t tf = {.offset_ns = 1e9, .drift_ppm = 100, .jitter_ns = 0}, back;
    CHECK_INT_EQ(mpiscope_timer_set_transform(&tf, 1), 0);
    CHECK_INT_EQ(mpiscope_timer_get_transform(&back), 1);
    CHECK_NEAR(back.drift_ppm, 100, 1e-9);
    /* Each transformed read between two raw reads of the same clock: the
     * transform must hold within those brackets. A preemption between two
     * reads widens a bracket, never breaks it: no dependence on speed. */
    const double scale = 1 + 1e-4;
    double raw0a = mpiscope__raw_now_ns(), t0 = mpiscope_timer_now_ns(), raw0b = mpiscope__raw_now_ns();
    mpiscope_timer_spin_until_ns(t0 + 2e7);
    double raw1a = mpiscope__raw_now_ns(), t1 = mpiscope_timer_now_ns(), raw1b = mpiscope__raw_now_ns();
    CHECK(t0 >= raw0a * scale + 1e9 && t0 <= raw0b * scale + 1e9); /* offset and drift applied */
    /* 20 ms of raw time read 2 us longer (100 ppm): without the drift the
     * lower bound fails unless a read pair took over 2 us */
    CHECK(t1 - t0 >= (raw1a - raw0b) * scale && t1 - t0 <= (raw1b - raw0a) * scale);
    tf.jitter_ns = 50;
    mpiscope_timer_set_transform(&tf, 7);
    int outside = 0;
    for (int i = 0; i < 1000; i++) {
        double raw = mpiscope__raw_now_ns(), t = mpiscope_timer_now_ns(), raw2 = mpiscope__raw_now_ns();
        outside += t < raw * (1 + 1e-4) + 1e9 - 50 || t > raw2 * (1 + 1e-4) + 1e9 + 50;
    }
    CHECK_INT_EQ(outside, 0);
    CHECK_INT_EQ(mpiscope_timer_set_transform(NULL, 0), 0);
    CHECK_INT_EQ(mpiscope_timer_get_transform(NULL), 0);
    tf.drift_ppm = -2e6;
    CHECK_INT_EQ(mpiscope_timer_set_transform(&tf, 0), MPISCOPE_EINVAL);
}

int main(void)
{
    test_selectors_and_overrides();
    test_random_is_bounded_and_seeded();
    test_bad_specs();
    test_check_for_a_rank_count();
    test_timer_reads_through_the_transform();
    CHECK_DONE();
}
