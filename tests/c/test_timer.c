/* test_timer.c: timer selection, parsing, monotonicity and precision
 * (no MPI: wtime must refuse before MPI_Init). */
#include <string.h>
#include "check.h"
#include "mpiscope/error.h"
#include "mpiscope/timer.h"

static void check_monotonic(int reads)
{
    double prev = mpiscope_timer_now_ns();
    int backwards = 0;
    for (int i = 0; i < reads; i++) {
        double t = mpiscope_timer_now_ns();
        backwards += t < prev;
        prev = t;
    }
    CHECK_INT_EQ(backwards, 0);
}

static void test_parse(void)
{
    mpiscope_timer_kind_t k;
    CHECK_INT_EQ(mpiscope_timer_parse("tsc", &k), 0);
    CHECK_INT_EQ(k, MPISCOPE_TIMER_TSC);
    CHECK_INT_EQ(mpiscope_timer_parse("wtime", &k), 0);
    CHECK_INT_EQ(k, MPISCOPE_TIMER_WTIME);
    CHECK_INT_EQ(mpiscope_timer_parse("TSC", &k), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_timer_parse(NULL, &k), MPISCOPE_EINVAL);
    CHECK(strcmp(mpiscope_timer_kind_name(MPISCOPE_TIMER_GETTIMEOFDAY), "gettimeofday") == 0);
}

static void test_kind(mpiscope_timer_kind_t kind)
{
    mpiscope_timer_info_t info;
    CHECK_INT_EQ(mpiscope_timer_init(kind, 0), 0);
    CHECK_INT_EQ(mpiscope_timer_info(&info), 0);
    CHECK_INT_EQ(info.kind, kind);
    CHECK(info.resolution_ns > 0);
    CHECK(info.read_overhead_ns > 0);
    CHECK(mpiscope_timer_now_ns() < 3600e9); /* readings start near 0 at init */
    check_monotonic(100000);
    double target = mpiscope_timer_now_ns() + 20000;
    CHECK(mpiscope_timer_spin_until_ns(target) >= target);
    CHECK(mpiscope_timer_now_ns() >= target);
}

static void test_gettimeofday_keeps_microseconds(void)
{
    mpiscope_timer_info_t info;
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_GETTIMEOFDAY, 0), 0);
    mpiscope_timer_info(&info);
    /* its quantum is exactly 1 us; epoch nanoseconds in a double would blur it */
    CHECK_NEAR(info.resolution_ns, 1000, 1e-9);
    CHECK_INT_EQ(mpiscope_timer_set_frequency(1e9), MPISCOPE_EINVAL); /* tsc only */
}

static void test_tsc_or_refusal(void)
{
    int err = mpiscope_timer_init(MPISCOPE_TIMER_TSC, 0);
    CHECK(err == 0 || err == MPISCOPE_ENOTIMER);
    if (err == 0) {
        mpiscope_timer_info_t info;
        mpiscope_timer_info(&info);
        CHECK(info.invariant);
        CHECK(info.frequency_hz > 1e6);
        CHECK_INT_EQ(mpiscope_timer_set_frequency(info.frequency_hz), 0);
        test_kind(MPISCOPE_TIMER_TSC);
    }
}

int main(void)
{
    mpiscope_timer_info_t info;
    mpiscope_timer_prepare(); /* the calibration's first pair, as the bench reads it */
    mpiscope_timer_prepare(); /* idempotent */
    CHECK_INT_EQ(mpiscope_timer_info(&info), MPISCOPE_EINVAL); /* before init: prepare selects nothing */
    test_parse();
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_WTIME, 0), MPISCOPE_ENOTIMER);
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 1), MPISCOPE_EINVAL);
    test_kind(MPISCOPE_TIMER_MONOTONIC);
    test_kind(MPISCOPE_TIMER_GETTIMEOFDAY);
    test_gettimeofday_keeps_microseconds();
    test_tsc_or_refusal();
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0), 0);
    CHECK_DONE();
}
