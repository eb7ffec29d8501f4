/* test_timer.c: timer selection, parsing and precision (no MPI: wtime
 * must refuse before MPI_Init), and what the reads of a clock are said to
 * show: reads going backwards counted, the smallest step, the mean cost,
 * on clocks of the test's own. Whether this machine's clocks go backwards
 * is not for a test to assert (an NTP step moves gettimeofday back): the
 * product counts it (mpiscope check's monotonic_violations). */
#include <math.h>
#include <string.h>
#include "check.h"
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "timer_read.h"

/* A clock that returns the readings of a list, one per call. */
typedef struct fake_clock {
    const double *ns;
    int n, next;
} fake_clock_t;

static double fake_now(void *ctx)
{
    fake_clock_t *c = ctx;
    return c->ns[c->next < c->n ? c->next++ : c->n - 1];
}

static mpiscope__timer_reads_t read_fake(const double *ns, int n)
{
    fake_clock_t c = {ns, n, 0};
    mpiscope__timer_reads_t r = mpiscope__timer_reads(fake_now, &c, n - 1);
    CHECK_INT_EQ(c.next, n); /* every reading read once */
    return r;
}

static void test_reads_counted(void)
{
    /* steps +10 +10 -5 +15 0 -5 +15: two backwards, smallest step 10 */
    static const double steps[] = {0, 10, 20, 15, 30, 30, 25, 40};
    mpiscope__timer_reads_t r = read_fake(steps, 8);
    CHECK_INT_EQ(r.backwards, 2);
    CHECK_NEAR(r.resolution_ns, 10, 0);
    CHECK_NEAR(r.overhead_ns, 40.0 / 7, 1e-12);
    /* gettimeofday stepped back a second by NTP once among microsecond ticks */
    static const double ntp[] = {5e9, 5e9 + 1e3, 5e9 + 2e3, 4e9 + 3e3, 4e9 + 4e3, 4e9 + 4e3};
    r = read_fake(ntp, 6);
    CHECK_INT_EQ(r.backwards, 1);
    CHECK_NEAR(r.resolution_ns, 1e3, 1e-12);
    CHECK(r.overhead_ns < 0); /* the mean says so too */
    /* a clock that never moves: no step, no cost, nothing backwards */
    static const double stuck[] = {7, 7, 7};
    r = read_fake(stuck, 3);
    CHECK_INT_EQ(r.backwards, 0);
    CHECK(isinf(r.resolution_ns));
    CHECK_NEAR(r.overhead_ns, 0, 0);
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
    mpiscope_timer_prepare();                                  /* the calibration's first pair, as the bench reads it */
    mpiscope_timer_prepare();                                  /* idempotent */
    CHECK_INT_EQ(mpiscope_timer_info(&info), MPISCOPE_EINVAL); /* before init: prepare selects nothing */
    test_parse();
    test_reads_counted();
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_WTIME, 0), MPISCOPE_ENOTIMER);
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 1), MPISCOPE_EINVAL);
    test_kind(MPISCOPE_TIMER_MONOTONIC);
    test_kind(MPISCOPE_TIMER_GETTIMEOFDAY);
    test_gettimeofday_keeps_microseconds();
    test_tsc_or_refusal();
    CHECK_INT_EQ(mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0), 0);
    CHECK_DONE();
}
