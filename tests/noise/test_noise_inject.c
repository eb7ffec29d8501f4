/* test_noise_inject.c: the injector's schedule replayed without a clock:
 * periods on absolute deadlines, missed periods skipped (never caught up),
 * stopped time counted, jitter inside the period and reproducible. */
#include "check.h"
#include "inject_schedule.h"

#define MS 1000000.0

static void test_on_time(void)
{
    mpiscope__inject_schedule_t s;
    mpiscope__inject_schedule_init(&s, 10, 0, 1);
    for (int k = 0; k < 5; k++) {
        CHECK_NEAR(s.deadline_ns, k * 100 * MS, 0);
        mpiscope__inject_woke(&s, s.deadline_ns + 0.05 * MS); /* a little late: fine */
        mpiscope__inject_burst_done(&s, 1 * MS, 1 * MS);
        mpiscope__inject_next(&s, s.deadline_ns + 1.05 * MS);
    }
    CHECK_INT_EQ(s.k, 5);
    CHECK_INT_EQ(s.skipped, 0);
    CHECK_NEAR(s.stopped_ns, 0, 0);
}

static void test_stopped_two_seconds(void)
{
    mpiscope__inject_schedule_t s;
    mpiscope__inject_schedule_init(&s, 10, 0, 1);
    s.k = 5;
    s.deadline_ns = 500 * MS;
    /* SIGSTOP during the sleep, SIGCONT 2 s after the deadline */
    mpiscope__inject_woke(&s, 2500 * MS);
    CHECK_NEAR(s.stopped_ns, 2000 * MS, 1e-12);
    mpiscope__inject_burst_done(&s, 1 * MS, 1 * MS);
    mpiscope__inject_next(&s, 2501 * MS);
    CHECK_INT_EQ(s.k, 25);          /* the period we are in, not period 6 */
    CHECK_INT_EQ(s.skipped, 19);    /* 6..24 never served */
    CHECK_NEAR(s.deadline_ns, 2500 * MS, 1e-12); /* already due: served at once */
    mpiscope__inject_woke(&s, 2501.5 * MS);
    CHECK_NEAR(s.stopped_ns, 2000 * MS, 1e-12);  /* 1.5 ms late is not stopped */
    mpiscope__inject_next(&s, 2502.5 * MS);
    CHECK_INT_EQ(s.k, 26);
    CHECK_INT_EQ(s.skipped, 19);
}

static void test_stopped_inside_a_burst(void)
{
    mpiscope__inject_schedule_t s;
    mpiscope__inject_schedule_init(&s, 10, 0, 1);
    mpiscope__inject_woke(&s, 0);
    mpiscope__inject_burst_done(&s, 301 * MS, 1 * MS); /* 300 ms without CPU */
    CHECK_NEAR(s.stopped_ns, 300 * MS, 1e-12);
    mpiscope__inject_next(&s, 301 * MS);
    CHECK_INT_EQ(s.k, 3);
    CHECK_INT_EQ(s.skipped, 2);
}

static void test_jitter(void)
{
    mpiscope__inject_schedule_t a, b;
    mpiscope__inject_schedule_init(&a, 10, 0.5, 42);
    mpiscope__inject_schedule_init(&b, 10, 0.5, 42);
    int moved = 0;
    for (int k = 0; k < 1000; k++) {
        double offset = a.deadline_ns - (double)a.k * 100 * MS;
        CHECK(offset >= 0 && offset < 50 * MS);
        moved += offset > 0;
        CHECK_NEAR(a.deadline_ns, b.deadline_ns, 0); /* same seed, same schedule */
        double late = a.deadline_ns + 1 * MS;
        mpiscope__inject_woke(&a, a.deadline_ns);
        mpiscope__inject_next(&a, late);
        mpiscope__inject_next(&b, late);
    }
    CHECK(moved > 900);
    CHECK_INT_EQ(a.skipped, 0);
}

int main(void)
{
    test_on_time();
    test_stopped_two_seconds();
    test_stopped_inside_a_burst();
    test_jitter();
    CHECK_DONE();
}
