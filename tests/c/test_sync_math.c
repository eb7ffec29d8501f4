/* test_sync_math.c: clock-offset arithmetic on synthetic exchanges with
 * known offsets and delays. */
#include "check.h"
#include "sync_math.h"

/* One exchange between a client and a server whose clock is `offset`
 * ahead: forward delay f, return delay b (ns). */
static int exchange(mpiscope__rtt_tracker_t *t, double *client_clock, double offset, double f,
                    double b, unsigned patience, unsigned cap)
{
    double t_send = *client_clock;
    double t_server = t_send + f + offset;
    double t_recv = t_send + f + b;
    *client_clock = t_recv + 100;
    return mpiscope__rtt_tracker_add(t, t_send, t_server, t_recv, patience, cap);
}

static void test_symmetric_minimum_gives_exact_offset(void)
{
    mpiscope__rtt_tracker_t t;
    mpiscope__rtt_tracker_reset(&t);
    double clock = 1e6, offset = -4321.5;
    /* noisy exchanges, then one symmetric and fastest */
    exchange(&t, &clock, offset, 900, 300, 100, 5000);
    exchange(&t, &clock, offset, 250, 700, 100, 5000);
    exchange(&t, &clock, offset, 200, 200, 100, 5000);
    exchange(&t, &clock, offset, 600, 250, 100, 5000);
    CHECK_NEAR(t.rtt_min_ns, 400, 1e-12);
    CHECK_NEAR(t.offset_ns, offset, 1e-12);
    CHECK_INT_EQ(t.since_improvement, 1);
}

static void test_asymmetry_error_is_half_the_difference(void)
{
    mpiscope__rtt_tracker_t t;
    mpiscope__rtt_tracker_reset(&t);
    double clock = 0;
    exchange(&t, &clock, 1000, 300, 100, 100, 5000);
    /* estimate = offset + (f - b) / 2 */
    CHECK_NEAR(t.offset_ns, 1000 + 100, 1e-12);
}

static void test_patience_and_cap(void)
{
    mpiscope__rtt_tracker_t t;
    mpiscope__rtt_tracker_reset(&t);
    double clock = 0;
    int done = 0, n = 0;
    while (!done && n < 1000) {
        done = exchange(&t, &clock, 0, 500, 500, 10, 5000); /* never improves after the first */
        n++;
    }
    CHECK_INT_EQ(n, 11);
    mpiscope__rtt_tracker_reset(&t);
    n = 0;
    done = 0;
    while (!done && n < 1000) {
        done = exchange(&t, &clock, 0, 500 - n, 500 - n, 10, 25); /* always improves */
        n++;
    }
    CHECK_INT_EQ(n, 25);
}

static void test_ring_offsets_add_up(void)
{
    /* o_{i,i-1}: rank i's clock relative to i-1 */
    double pairs[4] = {0, 10, -3, 7.5}, offsets[4];
    mpiscope__ring_offsets(pairs, 4, offsets);
    CHECK_NEAR(offsets[0], 0, 0);
    CHECK_NEAR(offsets[1], 10, 1e-12);
    CHECK_NEAR(offsets[2], 7, 1e-12);
    CHECK_NEAR(offsets[3], 14.5, 1e-12);
}

int main(void)
{
    test_symmetric_minimum_gives_exact_offset();
    test_asymmetry_error_is_half_the_difference();
    test_patience_and_cap();
    test_ring_offsets_add_up();
    CHECK_DONE();
}
