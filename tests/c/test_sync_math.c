/* test_sync_math.c: clock-offset and drift arithmetic on synthetic
 * exchanges with known offsets, drift and delays. */
#include "check.h"
#include "sync_math.h"

/* One exchange between a client and a server whose clock is `offset`
 * ahead: forward delay f, return delay b (ns). */
static int exchange(mpiscope__rtt_tracker_t *t, double *client_clock, double offset, double f, double b,
                    unsigned patience, unsigned cap)
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

/* A server clock S(t) = offset + (1 + drift) t seen from a client reading
 * t: one minimum-RTT step at client time `at` with delays f and b. */
static mpiscope__fit_point_t step(double at, double offset, double drift, double f, double b)
{
    mpiscope__rtt_tracker_t t;
    mpiscope__rtt_tracker_reset(&t);
    mpiscope__rtt_tracker_add(&t, at, offset + (1 + drift) * (at + f), at + f + b, 1, 1);
    return (mpiscope__fit_point_t){.at_ns = t.at_ns, .offset_ns = t.offset_ns, .half_rtt_ns = 0.5 * t.rtt_min_ns};
}

/* The truth of a pair model at local time x: S(x) - x. */
static double true_offset(double offset, double drift, double x)
{
    return offset + drift * x;
}

static void test_fit_recovers_offset_and_drift_within_bound(void)
{
    const double offset = 12345.0, drift = 40e-6; /* 40 ppm */
    mpiscope__fit_point_t pts[8];
    for (int k = 0; k < 8; k++) /* asymmetric delays: each point off by up to (f - b) / 2 */
        pts[k] = step(1e6 + k * 1e7, offset, drift, 800 + 300 * (k % 3), 800 + 250 * (k % 2));
    mpiscope__clock_model_t m;
    CHECK_INT_EQ(mpiscope__model_fit(pts, 8, 0, &m), 0);
    CHECK(fabs(m.offset_ns - true_offset(offset, drift, m.t_ref_ns)) <= m.error_ns);
    CHECK(fabs(m.drift - drift) <= m.drift_error);
    CHECK(m.drift_error > 0 && m.drift_error < 100e-6); /* worst case: half the RTT over the lever arm */
    CHECK_NEAR(mpiscope__model_global(&m, m.t_ref_ns), m.t_ref_ns + m.offset_ns, 1e-12);
    CHECK_NEAR(mpiscope__model_local(&m, mpiscope__model_global(&m, 5e8)), 5e8, 1e-12);
    /* symmetric delays: exact */
    for (int k = 0; k < 8; k++)
        pts[k] = step(1e6 + k * 1e7, offset, drift, 500, 500);
    mpiscope__model_fit(pts, 8, 0, &m);
    CHECK_NEAR(m.drift, drift, 1e-9);
    CHECK_NEAR(m.offset_ns, true_offset(offset, drift, m.t_ref_ns), 1e-9);
}

static void test_one_point_is_offset_only(void)
{
    mpiscope__fit_point_t p = step(1000, -50, 0, 100, 300);
    mpiscope__clock_model_t m;
    mpiscope__model_fit(&p, 1, 5, &m);
    CHECK_NEAR(m.drift, 0, 0);
    CHECK(m.drift_error < 0);
    CHECK_NEAR(m.offset_ns, -50 - 100, 1e-12);  /* off by (f - b) / 2 */
    CHECK_NEAR(m.error_ns, 200 + 3 * 5, 1e-12); /* half the RTT, three reads */
    CHECK_INT_EQ(mpiscope__model_fit(&p, 0, 0, &m), -1);
}

/* Clocks C_i(t) = o_i + (1 + d_i) t; pair i -> j maps C_i to C_j exactly. */
static mpiscope__clock_model_t exact_pair(double o_i, double d_i, double o_j, double d_j, double t_ref, double err)
{
    double t = (t_ref - o_i) / (1 + d_i), cj = o_j + (1 + d_j) * t;
    return (mpiscope__clock_model_t){.offset_ns = cj - t_ref,
                                     .drift = (1 + d_j) / (1 + d_i) - 1,
                                     .t_ref_ns = t_ref,
                                     .error_ns = err,
                                     .drift_error = 1e-7,
                                     .hops = 1};
}

static void test_ring_and_compose_add_up(void)
{
    const double o[4] = {0, 1e5, -3e4, 7.5e3}, d[4] = {0, 20e-6, -35e-6, 5e-6};
    mpiscope__clock_model_t pairs[4], models[4];
    for (int i = 1; i < 4; i++)
        pairs[i] = exact_pair(o[i], d[i], o[i - 1], d[i - 1], 1e9 + i, 10);
    mpiscope__ring_models(pairs, 4, models);
    for (int i = 1; i < 4; i++) {
        double off, drift;
        mpiscope__transform_truth(o[i], d[i] * 1e6, o[0], d[0] * 1e6, models[i].t_ref_ns, &off, &drift);
        CHECK_NEAR(models[i].offset_ns, off, 1e-9);
        CHECK_NEAR(models[i].drift, drift, 1e-12);
        CHECK_INT_EQ(models[i].hops, i);
        CHECK(models[i].error_ns >= 10.0 * i); /* errors add up along the ring */
    }
    CHECK_NEAR(models[0].offset_ns, 0, 0);
}

static void test_tree_shape(void)
{
    CHECK_INT_EQ(mpiscope__tree_parent(0), -1);
    CHECK_INT_EQ(mpiscope__tree_parent(1), 0);
    CHECK_INT_EQ(mpiscope__tree_parent(6), 2);
    CHECK_INT_EQ(mpiscope__tree_parent(7), 3);
    CHECK_INT_EQ(mpiscope__tree_parent(1023), 511);
    CHECK_INT_EQ(mpiscope__tree_rounds(1), 0);
    CHECK_INT_EQ(mpiscope__tree_rounds(2), 1);
    CHECK_INT_EQ(mpiscope__tree_rounds(5), 3);
    CHECK_INT_EQ(mpiscope__tree_rounds(1024), 10);
}

static void test_pack_round_trip(void)
{
    mpiscope__clock_model_t m = {.offset_ns = 1,
                                 .drift = 2e-6,
                                 .t_ref_ns = 3,
                                 .error_ns = 4,
                                 .drift_error = -1,
                                 .hops = 5},
                            back;
    double v[MPISCOPE__MODEL_DOUBLES];
    mpiscope__model_pack(&m, v);
    mpiscope__model_unpack(v, &back);
    CHECK_NEAR(back.drift, m.drift, 0);
    CHECK_NEAR(back.drift_error, -1, 0);
    CHECK_INT_EQ(back.hops, 5);
    CHECK_NEAR(mpiscope__model_error_at(&back, 103), 4, 0); /* no drift bound: offset only */
}

int main(void)
{
    test_symmetric_minimum_gives_exact_offset();
    test_asymmetry_error_is_half_the_difference();
    test_patience_and_cap();
    test_fit_recovers_offset_and_drift_within_bound();
    test_one_point_is_offset_only();
    test_ring_and_compose_add_up();
    test_tree_shape();
    test_pack_round_trip();
    CHECK_DONE();
}
