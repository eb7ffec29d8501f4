/* test_model.c: mpiscope/model.h on synthetic data of known parameters:
 * the Hockney fit finds the breakpoints and the lines, whatever the order
 * of the points; the automatic segment count; T(s) of each kind; every
 * collective prediction against its formula computed by hand; bad input
 * rejected. tests/python/test_model_c_python.py compares with Python. */
#include "mpiscope/error.h"
#include "mpiscope/model.h"

#include "check.h"

#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A ping-pong-like one-way time with regimes: the line of the first
 * regime whose limit holds s. */
typedef struct regime {
    size_t to_bytes;
    double alpha, beta;
} regime_t;

static double regime_time(const regime_t *r, size_t n, size_t s)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s <= r[i].to_bytes)
            return r[i].alpha + r[i].beta * (double)s;
    return r[n - 1].alpha + r[n - 1].beta * (double)s;
}

/* Sizes 1, 2, 4, ... 2^20 and their times. */
enum { N_POW = 21 };
static void powers(const regime_t *r, size_t n_regimes, size_t *sizes, double *times)
{
    for (size_t i = 0; i < N_POW; i++) {
        sizes[i] = (size_t)1 << i;
        times[i] = regime_time(r, n_regimes, sizes[i]);
    }
}

static void check_segment(const mpiscope_model_t *m, size_t index, size_t from, size_t to, const regime_t *r)
{
    mpiscope_hockney_segment_t seg;

    CHECK_INT_EQ(mpiscope_model_segment(m, index, &seg), 0);
    CHECK_INT_EQ(seg.from_bytes, from);
    CHECK_INT_EQ(seg.to_bytes, to);
    CHECK_NEAR(seg.alpha_ns, r->alpha, 1e-9);
    CHECK_NEAR(seg.beta_ns_per_byte, r->beta, 1e-9);
    CHECK(seg.max_rel_error < 1e-12);
}

static void test_fit_two_regimes(void)
{
    static const regime_t eager_rndv[] = {{4096, 1000.0, 0.1}, {0, 20000.0, 0.08}};
    mpiscope_hockney_fit_options_t two = MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT;
    size_t sizes[N_POW];
    double times[N_POW], t;
    mpiscope_model_t *m;

    powers(eager_rndv, 2, sizes, times);
    two.segments = 2;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, N_POW, &two, &m), 0);
    CHECK_INT_EQ(mpiscope_model_kind(m), MPISCOPE_MODEL_HOCKNEY);
    CHECK_INT_EQ(mpiscope_model_segment_count(m), 2);
    check_segment(m, 0, 1, 4096, &eager_rndv[0]);
    check_segment(m, 1, 8192, MPISCOPE_MODEL_NO_LIMIT, &eager_rndv[1]);
    CHECK_INT_EQ(mpiscope_model_time(m, 4096, &t), 0);
    CHECK_NEAR(t, 1000.0 + 409.6, 1e-9);
    CHECK_INT_EQ(mpiscope_model_time(m, 6000, &t), 0); /* between the fitted ranges: the next */
    CHECK_NEAR(t, 20000.0 + 480.0, 1e-9);
    mpiscope_model_destroy(m);

    /* automatic: one line is far off, two are exact */
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, N_POW, NULL, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(m), 2);
    check_segment(m, 0, 1, 4096, &eager_rndv[0]);
    mpiscope_model_destroy(m);
}

static void test_fit_three_regimes_any_order(void)
{
    static const regime_t three[] = {{256, 500.0, 1.0}, {32768, 900.0, 0.2}, {0, 9000.0, 0.05}};
    size_t sizes[N_POW], shuffled_sizes[N_POW];
    double times[N_POW], shuffled_times[N_POW];
    mpiscope_model_t *m, *s;
    mpiscope_hockney_segment_t a, b;

    powers(three, 3, sizes, times);
    for (size_t i = 0; i < N_POW; i++) { /* 8 is prime to 21: a permutation */
        shuffled_sizes[i] = sizes[(i * 8) % N_POW];
        shuffled_times[i] = times[(i * 8) % N_POW];
    }
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, N_POW, NULL, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(m), 3);
    check_segment(m, 0, 1, 256, &three[0]);
    check_segment(m, 1, 512, 32768, &three[1]);
    check_segment(m, 2, 65536, MPISCOPE_MODEL_NO_LIMIT, &three[2]);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(shuffled_sizes, shuffled_times, N_POW, NULL, &s), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(s), 3);
    for (size_t i = 0; i < 3; i++) { /* bit for bit: the points are sorted first */
        CHECK_INT_EQ(mpiscope_model_segment(m, i, &a), 0);
        CHECK_INT_EQ(mpiscope_model_segment(s, i, &b), 0);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    mpiscope_model_destroy(m);
    mpiscope_model_destroy(s);
}

/* One line: one segment; non-positive times are left out; more segments
 * asked than there are min_points for: fewer. */
static void test_fit_one_line_and_dropped_points(void)
{
    size_t sizes[] = {0, 8, 64, 512, 4096, 32768, 9, 10};
    double times[] = {300.0, 304.0, 332.0, 556.0, 2348.0, 16684.0, 0.0, -5.0};
    mpiscope_hockney_fit_options_t one = MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT;
    mpiscope_hockney_segment_t seg;
    mpiscope_model_t *m;

    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, N_OF(sizes), NULL, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(m), 1);
    CHECK_INT_EQ(mpiscope_model_segment(m, 0, &seg), 0);
    CHECK_INT_EQ(seg.points, 6); /* the 0 and -5 ns points are not fitted */
    CHECK_NEAR(seg.alpha_ns, 300.0, 1e-9);
    CHECK_NEAR(seg.beta_ns_per_byte, 0.5, 1e-9);
    mpiscope_model_destroy(m);

    /* more segments asked than min_points allows: fewer */
    one.segments = 4;
    one.min_points = 3;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, N_OF(sizes), &one, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(m), 2);
    mpiscope_model_destroy(m);
}

/* No count within tolerance (1%): the least BIC. Golden values from the
 * Python rule (python/mpiscope/models/hockney.py fit_hockney_auto(sizes,
 * times, 4, 0.01) on tests/python/test_model_c_python.py's
 * mpich_like_points(4), noisy by up to 4%), printed with repr(). */
static void test_fit_least_bic_golden(void)
{
    static const double times[] = {
        1018.0392010661545, 1007.0705568434419, 1031.5305490239023, 1011.6437561321595, 1004.6290872300531,
        1033.241035690027,  1077.750156426826,  1070.8960840880204, 1073.8259023829216, 1039.3918822308667,
        1089.26699386228,   1111.9335217278938, 1192.258930919573,  1364.26032264406,   1736.6727680651084,
        2600.5530499010993, 12061.762945624718, 14860.863971885883, 20491.006053659283, 30259.323475262092,
        64519.27584454724,  110139.35836023942, 199700.9052123223,  380628.4332061346,
    };
    static const struct {
        size_t from, to;
        double alpha, beta;
        size_t points;
        double worst;
    } want[] = {
        {0, 128, 1020.4438615695713, 0.545665595095611, 9, 0.036970531228032656},
        {256, 16384, 1014.5459839179183, 0.09259582541199994, 7, 0.026500925422611548},
        {32768, 262144, 9527.202389212034, 0.08061668233035371, 4, 0.01938479140570028},
        {524288, MPISCOPE_MODEL_NO_LIMIT, 19452.961103746504, 0.08612615506220497, 4, 0.003419105500456749},
    };
    mpiscope_hockney_fit_options_t o = MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT;
    size_t sizes[N_OF(times)];
    mpiscope_hockney_segment_t seg;
    mpiscope_model_t *m;

    for (size_t i = 0; i < N_OF(times); i++)
        sizes[i] = i ? (size_t)1 << (i - 1) : 0;
    o.tolerance = 0.01;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, N_OF(times), &o, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(m), N_OF(want));
    for (size_t i = 0; i < N_OF(want) && mpiscope_model_segment(m, i, &seg) == 0; i++) {
        CHECK_INT_EQ(seg.from_bytes, want[i].from);
        CHECK_INT_EQ(seg.to_bytes, want[i].to);
        CHECK_INT_EQ(seg.points, want[i].points);
        CHECK_NEAR(seg.alpha_ns, want[i].alpha, 1e-12);
        CHECK_NEAR(seg.beta_ns_per_byte, want[i].beta, 1e-12);
        CHECK_NEAR(seg.max_rel_error, want[i].worst, 1e-12);
    }
    mpiscope_model_destroy(m);
}

/* alpha >= 0 and beta >= 0: a line that would go below zero is refitted. */
static void test_fit_nonnegative(void)
{
    size_t sizes[] = {100, 200, 300};
    double falling[] = {300.0, 200.0, 100.0}, steep[] = {1.0, 200.0, 400.0};
    mpiscope_hockney_fit_options_t one = MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT;
    mpiscope_hockney_segment_t seg;
    mpiscope_model_t *m;

    one.segments = 1;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, falling, 3, &one, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment(m, 0, &seg), 0);
    CHECK(seg.beta_ns_per_byte == 0.0 && seg.alpha_ns > 0.0);
    mpiscope_model_destroy(m);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, steep, 3, &one, &m), 0);
    CHECK_INT_EQ(mpiscope_model_segment(m, 0, &seg), 0);
    CHECK(seg.alpha_ns == 0.0 && seg.beta_ns_per_byte > 0.0);
    mpiscope_model_destroy(m);
}

/* The Hockney model of the prediction tests: T(s) = 1000 + 0.5 s up to
 * 1 KiB, 5000 + 0.1 s above; gamma 0.25 ns/B. */
static double hand_t(double s)
{
    return s <= 1024 ? 1000.0 + 0.5 * s : 5000.0 + 0.1 * s;
}

static mpiscope_model_t *prediction_model(void)
{
    static const mpiscope_hockney_segment_t segs[] = {
        {.from_bytes = 0, .to_bytes = 1024, .alpha_ns = 1000.0, .beta_ns_per_byte = 0.5},
        {.from_bytes = 2048, .to_bytes = 0, .alpha_ns = 5000.0, .beta_ns_per_byte = 0.1},
    };
    mpiscope_model_t *m = NULL;

    CHECK_INT_EQ(mpiscope_model_create_hockney(segs, 2, &m), 0);
    CHECK_INT_EQ(mpiscope_model_set_gamma(m, 0.25), 0);
    return m;
}

static double predict(const mpiscope_model_t *m, const char *name, int p, double s)
{
    double ns = -1.0;

    CHECK_INT_EQ(mpiscope_model_predict(m, name, p, s, &ns), 0);
    return ns;
}

static void test_predictions_by_hand(void)
{
    mpiscope_model_t *m = prediction_model();
    const double s = 4096.0, g = 0.25, T = hand_t(s);

    CHECK_NEAR(predict(m, "bcast:linear", 8, s), 7 * T, 1e-12);
    CHECK_NEAR(predict(m, "bcast:binomial", 8, s), 3 * T, 1e-12);
    CHECK_NEAR(predict(m, "bcast:binomial", 6, s), 3 * T, 1e-12);
    CHECK_NEAR(predict(m, "scatter:linear", 5, 100.0), 4 * hand_t(100.0), 1e-12);
    CHECK_NEAR(predict(m, "gather:linear", 5, 100.0), 4 * hand_t(100.0), 1e-12);
    CHECK_NEAR(predict(m, "alltoall:bruck", 8, 100.0), 3 * hand_t(400.0), 1e-12);
    CHECK_NEAR(predict(m, "alltoall:bruck", 6, 100.0), 3 * hand_t(300.0), 1e-12);
    CHECK_NEAR(predict(m, "alltoall:bruck", 5, 1000.0), 3 * hand_t(3000.0), 1e-12);
    CHECK_NEAR(predict(m, "alltoall:pairwise", 6, 100.0), 5 * hand_t(100.0), 1e-12);
    CHECK_NEAR(predict(m, "alltoall:linear", 6, 100.0), 5 * hand_t(100.0), 1e-12);
    CHECK_NEAR(predict(m, "allgather:ring", 4, 2048.0), 3 * hand_t(2048.0), 1e-12);
    CHECK_NEAR(predict(m, "barrier:dissemination", 8, s), 3 * 1000.0, 1e-12);
    CHECK_NEAR(predict(m, "barrier:dissemination", 9, 0.0), 4 * 1000.0, 1e-12);
    /* power of two: log2 p steps; otherwise floor(log2 p) and two extra */
    CHECK_NEAR(predict(m, "allreduce:recursive_doubling", 8, s), 3 * (T + s * g), 1e-12);
    CHECK_NEAR(predict(m, "allreduce:recursive_doubling", 6, s), 2 * (T + s * g) + 2 * T + s * g, 1e-12);
    CHECK_NEAR(predict(m, "allreduce:rabenseifner", 8, s),
               2 * (hand_t(2048) + hand_t(1024) + hand_t(512)) + 7.0 / 8 * s * g, 1e-12);
    CHECK_NEAR(predict(m, "allreduce:rabenseifner", 6, s),
               2 * (hand_t(2048) + hand_t(1024)) + 3.0 / 4 * s * g + 2 * T + s * g, 1e-12);
    CHECK_NEAR(predict(m, "allreduce:rabenseifner", 2, s), 2 * hand_t(2048) + 0.5 * s * g, 1e-12);
    for (size_t i = 0; i < mpiscope_model_collective_count(); i++) {
        CHECK(mpiscope_model_collective_formula(i) != NULL);
        CHECK(predict(m, mpiscope_model_collective_name(i), 1, s) == 0.0); /* one process: nothing */
        CHECK(predict(m, mpiscope_model_collective_name(i), 64, s) > 0.0);
    }
    mpiscope_model_destroy(m);
}

static void test_collective_names(void)
{
    static const char *const names[] = {
        "bcast:linear",           "bcast:binomial",    "scatter:linear",        "gather:linear",
        "alltoall:bruck",         "alltoall:pairwise", "alltoall:linear",       "allreduce:recursive_doubling",
        "allreduce:rabenseifner", "allgather:ring",    "barrier:dissemination",
    };

    CHECK_INT_EQ(mpiscope_model_collective_count(), N_OF(names));
    for (size_t i = 0; i < N_OF(names); i++)
        CHECK(mpiscope_model_collective_name(i) && strcmp(mpiscope_model_collective_name(i), names[i]) == 0);
    CHECK(mpiscope_model_collective_name(N_OF(names)) == NULL);
    CHECK(mpiscope_model_collective_formula(N_OF(names)) == NULL);
}

static void test_loggp_plogp(void)
{
    static const size_t sizes[] = {0, 1024, 4096};
    static const double o_s[] = {100.0, 300.0, 900.0}, o_r[] = {200.0, 400.0, 1000.0}, g[] = {50.0, 250.0, 850.0};
    mpiscope_model_t *m;
    double t, L, os, orr, gap, G;

    CHECK_INT_EQ(mpiscope_model_create_loggp(1000.0, 100.0, 300.0, 40.0, 0.5, &m), 0);
    CHECK_INT_EQ(mpiscope_model_kind(m), MPISCOPE_MODEL_LOGGP);
    CHECK_INT_EQ(mpiscope_model_time(m, 101.0, &t), 0);
    CHECK_NEAR(t, 1000.0 + 2 * 200.0 + 100 * 0.5, 1e-12);
    CHECK_INT_EQ(mpiscope_model_time(m, 0.0, &t), 0);
    CHECK_NEAR(t, 1400.0, 1e-12); /* max(s - 1, 0) */
    CHECK_INT_EQ(mpiscope_model_logp_params(m, 0.0, &L, &os, &orr, &gap, &G), 0);
    CHECK(L == 1000.0 && os == 100.0 && orr == 300.0 && gap == 40.0 && G == 0.5);
    CHECK_NEAR(predict(m, "bcast:binomial", 4, 101.0), 2 * 1450.0, 1e-12);
    mpiscope_model_destroy(m);

    CHECK_INT_EQ(mpiscope_model_create_plogp(700.0, sizes, o_s, o_r, g, 3, &m), 0);
    CHECK_INT_EQ(mpiscope_model_kind(m), MPISCOPE_MODEL_PLOGP);
    CHECK_INT_EQ(mpiscope_model_time(m, 512.0, &t), 0);
    CHECK_NEAR(t, 700.0 + 150.0, 1e-12); /* interpolated */
    CHECK_INT_EQ(mpiscope_model_time(m, 8192.0, &t), 0);
    CHECK_NEAR(t, 700.0 + 850.0 + 600.0 * 4096 / 3072, 1e-12); /* the last segment extended */
    CHECK_INT_EQ(mpiscope_model_logp_params(m, 2560.0, &L, &os, &orr, &gap, &G), 0);
    CHECK(L == 700.0 && G == 0.0);
    CHECK_NEAR(os, 600.0, 1e-12);
    CHECK_NEAR(orr, 700.0, 1e-12);
    CHECK_NEAR(gap, 550.0, 1e-12);
    CHECK_INT_EQ(mpiscope_model_logp_params(m, 0.0, NULL, NULL, NULL, NULL, NULL), 0);
    mpiscope_model_destroy(m);

    /* one row: constant; a negative interpolated gap counts as 0 */
    {
        static const size_t one_size[] = {64}, two_sizes[] = {0, 100};
        static const double neg[] = {10.0, -30.0};
        CHECK_INT_EQ(mpiscope_model_create_plogp(500.0, one_size, o_s, o_r, g, 1, &m), 0);
        CHECK_INT_EQ(mpiscope_model_time(m, 1e6, &t), 0);
        CHECK_NEAR(t, 550.0, 1e-12);
        mpiscope_model_destroy(m);
        CHECK_INT_EQ(mpiscope_model_create_plogp(500.0, two_sizes, o_s, o_r, neg, 2, &m), 0);
        CHECK_INT_EQ(mpiscope_model_time(m, 100.0, &t), 0);
        CHECK_NEAR(t, 500.0, 1e-12);
        mpiscope_model_destroy(m);
    }
}

static void test_bad_input(void)
{
    size_t sizes[] = {1, 2, 3}, many_sizes[1025];
    double times[] = {10.0, 20.0, 30.0}, nan_times[] = {10.0, NAN, 30.0}, inf_times[] = {10.0, INFINITY, 3.0},
           one_positive[] = {10.0, 0.0, -1.0}, many_times[1025], t;
    mpiscope_hockney_fit_options_t o = MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT;
    mpiscope_hockney_segment_t segs[2] = {{.to_bytes = 100, .alpha_ns = 1.0}, {.to_bytes = 50, .alpha_ns = 2.0}};
    mpiscope_hockney_segment_t bad_segs[2] = {{.to_bytes = 100, .alpha_ns = NAN}, {.alpha_ns = 2.0}};
    size_t same_sizes[] = {8, 8};
    mpiscope_model_t *m = (mpiscope_model_t *)&t, *good;

    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 3, NULL, NULL), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(NULL, times, 3, NULL, &m), MPISCOPE_EINVAL);
    CHECK(m == NULL); /* *out cleared on error */
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 1, NULL, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 0, NULL, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, nan_times, 3, NULL, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, inf_times, 3, NULL, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, one_positive, 3, NULL, &m), MPISCOPE_EINVAL);
    o.segments = -1;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 3, &o, &m), MPISCOPE_EINVAL);
    o.segments = 0;
    o.max_segments = 0;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 3, &o, &m), MPISCOPE_EINVAL);
    o.max_segments = 4;
    o.tolerance = NAN;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 3, &o, &m), MPISCOPE_EINVAL);
    o.tolerance = 0.05;
    o.min_points = 0;
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 3, &o, &m), MPISCOPE_EINVAL);
    o.min_points = 4; /* more than the points */
    CHECK_INT_EQ(mpiscope_model_fit_hockney(sizes, times, 3, &o, &m), MPISCOPE_EINVAL);
    for (size_t i = 0; i < N_OF(many_sizes); i++) {
        many_sizes[i] = i;
        many_times[i] = 1.0 + (double)i;
    }
    CHECK_INT_EQ(mpiscope_model_fit_hockney(many_sizes, many_times, N_OF(many_sizes), NULL, &m), MPISCOPE_ERANGE);

    CHECK_INT_EQ(mpiscope_model_create_hockney(segs, 2, &m), 0); /* the last's to_bytes is ignored */
    mpiscope_model_destroy(m);
    segs[1].to_bytes = 50;
    {
        mpiscope_hockney_segment_t three[3] = {segs[0], segs[1], segs[1]};
        CHECK_INT_EQ(mpiscope_model_create_hockney(three, 3, &m), MPISCOPE_EINVAL); /* 100 then 50 */
    }
    CHECK_INT_EQ(mpiscope_model_create_hockney(bad_segs, 2, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_create_hockney(segs, 0, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_create_loggp(NAN, 1, 1, 1, 1, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_create_plogp(1.0, same_sizes, times, times, times, 2, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_create_plogp(1.0, sizes, times, nan_times, times, 3, &m), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_create_plogp(1.0, sizes, times, times, NULL, 3, &m), MPISCOPE_EINVAL);
    CHECK(m == NULL);

    CHECK_INT_EQ(mpiscope_model_create_loggp(1, 1, 1, 1, 1, &good), 0);
    CHECK_INT_EQ(mpiscope_model_predict(good, "bcast:flat", 4, 8.0, &t), MPISCOPE_ENOOP);
    CHECK_INT_EQ(mpiscope_model_predict(good, "bcast:linear", 0, 8.0, &t), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_predict(good, "bcast:linear", 4, -1.0, &t), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_predict(good, "bcast:linear", 4, NAN, &t), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_predict(good, NULL, 4, 8.0, &t), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_predict(NULL, "bcast:linear", 4, 8.0, &t), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_time(good, INFINITY, &t), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_time(good, 8.0, NULL), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_set_gamma(good, -1.0), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_model_set_gamma(NULL, 1.0), MPISCOPE_EINVAL);
    CHECK(mpiscope_model_gamma(good) == 0.0 && isnan(mpiscope_model_gamma(NULL)));
    CHECK_INT_EQ(mpiscope_model_segment_count(good), 0);
    CHECK_INT_EQ(mpiscope_model_segment(good, 0, &segs[0]), MPISCOPE_EINVAL);
    mpiscope_model_destroy(good);
    CHECK_INT_EQ(mpiscope_model_kind(NULL), 0);
    CHECK_INT_EQ(mpiscope_model_segment_count(NULL), 0);
    mpiscope_model_destroy(NULL);
}

int main(void)
{
    test_fit_two_regimes();
    test_fit_three_regimes_any_order();
    test_fit_one_line_and_dropped_points();
    test_fit_least_bic_golden();
    test_fit_nonnegative();
    test_predictions_by_hand();
    test_collective_names();
    test_loggp_plogp();
    test_bad_input();
    CHECK_DONE();
}
