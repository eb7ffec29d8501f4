/* test_stats.c: mpiscope/stats.h on fixed data. Reference values come from
 * scipy 1.17.1 / numpy 2.4.6 (the call is given next to each constant) and
 * were cross-checked against 50-digit mpmath; tests/python/test_stats_c.py
 * compares against scipy live over a larger grid. */
#include "mpiscope/error.h"
#include "mpiscope/stats.h"

#include "check.h"

#include <string.h>

/* The contract is a relative error below 1e-10. Against 50-digit mpmath the
 * implementation stays below 1e-14 for df >= 1, so we hold it to 1e-13: a
 * loss of precision shows here long before it breaks the contract. */
#define T_REL_TOL 1e-13

/* |a - b| <= tol * |b|, printing both values (relative, even near zero). */
#define CHECK_REL(a, b, tol)                                                                                           \
    do {                                                                                                               \
        double ra_ = (a), rb_ = (b);                                                                                   \
        if (!(fabs(ra_ - rb_) <= (tol) * fabs(rb_))) {                                                                 \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.17g vs %.17g (rel %.3g > %g)\n", __FILE__, __LINE__, #a, #b,     \
                    ra_, rb_, fabs(ra_ - rb_) / fabs(rb_), (double)(tol));                                             \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_NAN(a)                                                                                                   \
    do {                                                                                                               \
        double na_ = (a);                                                                                              \
        if (!isnan(na_)) {                                                                                             \
            fprintf(stderr, "%s:%d: %s is %.17g, expected NAN\n", __FILE__, __LINE__, #a, na_);                        \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const double pi = 3.14159265358979323846;

static void test_t_scipy_values(void)
{
    static const struct {
        double p, df, t;
    } ref[] = {
        {0.975, 1, 12.706204736174694},        /* scipy.stats.t.ppf(0.975, 1) */
        {0.975, 2, 4.302652729749462},         /* scipy.stats.t.ppf(0.975, 2) */
        {0.95, 5, 2.0150483733330233},         /* scipy.stats.t.ppf(0.95, 5) */
        {0.995, 10, 3.16927267261695},         /* scipy.stats.t.ppf(0.995, 10) */
        {0.975, 29, 2.045229642132703},        /* scipy.stats.t.ppf(0.975, 29) */
        {0.975, 30, 2.0422724563012378},       /* scipy.stats.t.ppf(0.975, 30) */
        {0.975, 31, 2.039513446396408},        /* scipy.stats.t.ppf(0.975, 31) */
        {0.9, 100, 1.290074761346516},         /* scipy.stats.t.ppf(0.9, 100) */
        {0.975, 1e6, 1.959966356814107},       /* scipy.stats.t.ppf(0.975, 1e6) */
        {1e-6, 1, -318309.8861827435},         /* scipy.stats.t.ppf(1e-6, 1) */
        {1e-6, 3.5, -61.04512120772062},       /* scipy.stats.t.ppf(1e-6, 3.5) */
        {0.999999, 1e6, 4.7534523482738695},   /* scipy.stats.t.ppf(0.999999, 1e6) */
        {0.6, 2.5, 0.2814595127485477},        /* scipy.stats.t.ppf(0.6, 2.5) */
        {0.05, 7.25, -1.8847957180841035},     /* scipy.stats.t.ppf(0.05, 7.25) */
        {0.25, 12.5, -0.6946222139927906},     /* scipy.stats.t.ppf(0.25, 12.5) */
        {0.999, 1000.5, 3.0983980711528862},   /* scipy.stats.t.ppf(0.999, 1000.5) */
        {0.7, 1e5, 0.5244021842335456},        /* scipy.stats.t.ppf(0.7, 1e5) */
        {0.99, 1e6, 2.326351603120805},        /* scipy.stats.t.ppf(0.99, 1e6) */
        {0.01, 250000.5, -2.3263627903995028}, /* scipy.stats.t.ppf(0.01, 250000.5) */
        {0.995, 5e5, 2.575839136679437},       /* scipy.stats.t.ppf(0.995, 5e5) */
    };
    for (size_t i = 0; i < N_OF(ref); i++)
        CHECK_REL(mpiscope_student_t_quantile(ref[i].p, ref[i].df), ref[i].t, T_REL_TOL);
}

/* df = 1 (Cauchy) and df = 2 in forms that stay exact in both the tails
 * and the center, where a relative error of t is hardest to keep. */
static double t1_closed(double p)
{
    if (fabs(p - 0.5) < 0.25)
        return tan(pi * (p - 0.5));
    return p < 0.5 ? -1.0 / tan(pi * p) : 1.0 / tan(pi * (1.0 - p));
}

static double t2_closed(double p)
{
    double q = p < 0.5 ? p : 1.0 - p;
    return (2.0 * (p - 0.5)) / sqrt(2.0 * q * (1.0 - q));
}

static const double grid_p[] = {1e-6, 1e-4, 0.01,  0.025,    0.1,        0.2,         0.2499,    0.25,    0.2501,
                                0.3,  0.45, 0.499, 0.499999, 0.5 - 1e-9, 0.5 + 1e-12, 0.5000001, 0.51,    0.6,
                                0.75, 0.8,  0.9,   0.95,     0.975,      0.99,        0.999,     0.999999};

static void test_t_closed_forms(void)
{
    for (size_t i = 0; i < N_OF(grid_p); i++) {
        CHECK_REL(mpiscope_student_t_quantile(grid_p[i], 1.0), t1_closed(grid_p[i]), T_REL_TOL);
        CHECK_REL(mpiscope_student_t_quantile(grid_p[i], 2.0), t2_closed(grid_p[i]), T_REL_TOL);
    }
}

static void test_t_shape(void)
{
    static const double dfs[] = {0.5, 1, 1.5, 2, 3, 7.7, 30, 1e3, 1e6, 1e12};
    for (size_t j = 0; j < N_OF(dfs); j++) {
        double prev = -INFINITY;
        for (size_t i = 0; i < N_OF(grid_p); i++) {
            double t = mpiscope_student_t_quantile(grid_p[i], dfs[j]);
            CHECK(t > prev); /* strictly increasing in p */
            prev = t;
            if (grid_p[i] >= 0.5) /* 1 - p is exact: odd function */
                CHECK(t == -mpiscope_student_t_quantile(1.0 - grid_p[i], dfs[j]));
        }
        CHECK(mpiscope_student_t_quantile(0.5, dfs[j]) == 0.0);
    }
    /* decreasing in df towards the normal quantile 1.959963984540054 */
    CHECK(mpiscope_student_t_quantile(0.975, 1e3) > mpiscope_student_t_quantile(0.975, 1e6));
    CHECK_REL(mpiscope_student_t_quantile(0.975, INFINITY), 1.959963984540054, T_REL_TOL);
}

static void test_t_bad_arguments(void)
{
    CHECK_NAN(mpiscope_student_t_quantile(0.0, 5.0));
    CHECK_NAN(mpiscope_student_t_quantile(1.0, 5.0));
    CHECK_NAN(mpiscope_student_t_quantile(-0.1, 5.0));
    CHECK_NAN(mpiscope_student_t_quantile(NAN, 5.0));
    CHECK_NAN(mpiscope_student_t_quantile(0.9, 0.0));
    CHECK_NAN(mpiscope_student_t_quantile(0.9, -1.0));
    CHECK_NAN(mpiscope_student_t_quantile(0.9, NAN));
}

static void test_quantile_sorted(void)
{
    const double x[] = {1.0, 2.0, 3.0, 4.0};
    CHECK(mpiscope_quantile_sorted(x, 4, 0.0) == 1.0);
    CHECK(mpiscope_quantile_sorted(x, 4, 0.25) == 1.75); /* numpy.quantile([1,2,3,4], .25) */
    CHECK(mpiscope_quantile_sorted(x, 4, 0.5) == 2.5);
    CHECK(mpiscope_quantile_sorted(x, 4, 0.75) == 3.25);
    CHECK(mpiscope_quantile_sorted(x, 4, 1.0) == 4.0);
    CHECK(mpiscope_quantile_sorted(x, 1, 0.3) == 1.0);
    /* numpy's _lerp interpolates from the upper end when the weight >= 1/2:
     * plain a + (b - a) g would give 0.32500000000000007 and 0.30000000000000004 */
    const double y[] = {0.1, 0.4}, z[] = {0.1, 0.5};
    CHECK(mpiscope_quantile_sorted(y, 2, 0.75) == 0.325); /* numpy.quantile([.1, .4], .75) */
    CHECK(mpiscope_quantile_sorted(z, 2, 0.5) == 0.3);    /* numpy.quantile([.1, .5], .5) */
    CHECK_NAN(mpiscope_quantile_sorted(x, 0, 0.5));
    CHECK_NAN(mpiscope_quantile_sorted(NULL, 4, 0.5));
    CHECK_NAN(mpiscope_quantile_sorted(x, 4, -0.01));
    CHECK_NAN(mpiscope_quantile_sorted(x, 4, 1.01));
    CHECK_NAN(mpiscope_quantile_sorted(x, 4, NAN));
}

/* Twenty launch times (us) with two outliers, in arrival order. */
static const double sample[20] = {12.7, 11.9, 13.4, 12.1, 55.0, 12.3, 11.8, 12.9, 12.2, 12.6,
                                  9.0,  12.4, 12.0, 13.1, 12.5, 12.8, 11.7, 14.2, 12.2, 30.5};

static void test_compute_sample(void)
{
    mpiscope_stats_t s;
    double copy[20];
    memcpy(copy, sample, sizeof copy);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.25, 0.95, &s), 0);
    CHECK(memcmp(copy, sample, sizeof copy) == 0); /* input not modified */
    CHECK_INT_EQ(s.n_valid, 20);
    CHECK_INT_EQ(s.n_used, 10); /* floor(0.25 * 20) = 5 per end */
    CHECK(s.trim_fraction == 0.25 && s.confidence == 0.95);
    CHECK_REL(s.mean, 12.47, 1e-14);                /* scipy.stats.trim_mean(x, 0.25) */
    CHECK_REL(s.stddev, 0.2750757471437037, 1e-13); /* numpy.std(trimmed, ddof=1) */
    CHECK_REL(s.se, 0.086986589004666, 1e-13);
    CHECK_REL(s.rse, 0.086986589004666 / 12.47, 1e-13);
    CHECK_REL(s.t_quantile, 2.262157162798205, T_REL_TOL); /* scipy.stats.t.ppf(0.975, 9) */
    CHECK_REL(s.error, s.t_quantile * s.se, 1e-15);
    /* scipy.stats.t.interval(0.95, 9, loc=12.47, scale=se) */
    CHECK_REL(s.ci_low, 12.273222664615712, 1e-13);
    CHECK_REL(s.ci_high, 12.666777335384289, 1e-13);
    CHECK(s.min == 9.0 && s.max == 55.0);
    CHECK(s.trimmed_min == 12.1 && s.trimmed_max == 12.9);
    CHECK_REL(s.median, 12.45, 1e-15); /* numpy.median(x) */
    CHECK_REL(s.q25, 12.075, 1e-15);   /* numpy.quantile(x, 0.25) */
    CHECK_REL(s.q75, 12.95, 1e-15);    /* numpy.quantile(x, 0.75) */

    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.1, 0.99, &s), 0);
    CHECK_INT_EQ(s.n_used, 16);
    CHECK_REL(s.mean, 12.568750000000001, 1e-14);          /* scipy.stats.trim_mean(x, 0.1) */
    CHECK_REL(s.t_quantile, 2.946712883475238, T_REL_TOL); /* scipy.stats.t.ppf(0.995, 15) */
    CHECK_REL(s.ci_low, 12.111677920190855, 1e-13);        /* scipy.stats.t.interval(0.99, 15, ...) */
    CHECK_REL(s.ci_high, 13.025822079809148, 1e-13);
    CHECK(s.trimmed_min == 11.8 && s.trimmed_max == 14.2);
}

static void test_compute_trim_zero(void)
{
    mpiscope_stats_t s;
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.0, 0.90, &s), 0);
    CHECK_INT_EQ(s.n_used, 20);
    CHECK_REL(s.mean, 15.364999999999998, 1e-14);           /* numpy.mean(x) */
    CHECK_REL(s.stddev, 10.220787640881696, 1e-13);         /* numpy.std(x, ddof=1) */
    CHECK_REL(s.t_quantile, 1.7291328115213682, T_REL_TOL); /* scipy.stats.t.ppf(0.95, 19) */
    CHECK_REL(s.ci_low, 11.413174866042885, 1e-13);
    CHECK_REL(s.ci_high, 19.316825133957106, 1e-13);
    CHECK(s.trimmed_min == s.min && s.trimmed_max == s.max);
}

/* floor(g * n) is taken on the double product, as scipy's int(g * n):
 * 0.29 * 100 = 28.999999999999996 drops 28, not 29. */
static void test_compute_trim_count(void)
{
    double x[100];
    mpiscope_stats_t s;
    for (int i = 0; i < 100; i++)
        x[i] = 99.0 - i;
    CHECK_INT_EQ(mpiscope_stats_compute(x, 100, 0.29, 0.95, &s), 0);
    CHECK_INT_EQ(s.n_used, 44);
    CHECK(s.trimmed_min == 28.0 && s.trimmed_max == 71.0);
    CHECK(s.mean == 49.5); /* scipy.stats.trim_mean(x, 0.29) */
    CHECK_INT_EQ(mpiscope_stats_compute(x, 3, 0.4999999, 0.95, &s), 0);
    CHECK_INT_EQ(s.n_used, 1);
}

/* A large common offset: a one-pass sum of squares would lose it all. */
static void test_compute_offset(void)
{
    double x[10];
    mpiscope_stats_t s;
    for (int i = 0; i < 10; i++)
        x[i] = 1e9 + i;
    CHECK_INT_EQ(mpiscope_stats_compute(x, 10, 0.0, 0.95, &s), 0);
    CHECK(s.mean == 1000000004.5);
    CHECK_REL(s.stddev, 3.0276503540974917, 1e-15); /* numpy.std(1e9 + arange(10), ddof=1) */
}

static void test_compute_small(void)
{
    mpiscope_stats_t s;
    CHECK_INT_EQ(mpiscope_stats_compute(NULL, 0, 0.25, 0.95, &s), 0);
    CHECK_INT_EQ(s.n_valid, 0);
    CHECK_INT_EQ(s.n_used, 0);
    CHECK(s.trim_fraction == 0.25 && s.confidence == 0.95);
    CHECK_NAN(s.mean);
    CHECK_NAN(s.stddev);
    CHECK_NAN(s.median);
    CHECK_NAN(s.min);
    CHECK_NAN(s.max);
    CHECK_NAN(s.q25);
    CHECK_NAN(s.t_quantile);
    CHECK_NAN(s.ci_high);

    const double one = 7.5;
    CHECK_INT_EQ(mpiscope_stats_compute(&one, 1, 0.25, 0.95, &s), 0);
    CHECK_INT_EQ(s.n_valid, 1);
    CHECK_INT_EQ(s.n_used, 1);
    CHECK(s.mean == 7.5 && s.median == 7.5 && s.min == 7.5 && s.max == 7.5);
    CHECK(s.q25 == 7.5 && s.q75 == 7.5 && s.trimmed_min == 7.5 && s.trimmed_max == 7.5);
    CHECK_NAN(s.stddev);
    CHECK_NAN(s.se);
    CHECK_NAN(s.rse);
    CHECK_NAN(s.t_quantile);
    CHECK_NAN(s.error);
    CHECK_NAN(s.ci_low);
    CHECK_NAN(s.ci_high);

    const double two[2] = {3.0, 1.0};
    CHECK_INT_EQ(mpiscope_stats_compute(two, 2, 0.25, 0.95, &s), 0);
    CHECK_INT_EQ(s.n_used, 2); /* floor(0.5) = 0 dropped */
    CHECK(s.mean == 2.0 && s.median == 2.0 && s.min == 1.0 && s.max == 3.0);
    CHECK_REL(s.stddev, sqrt(2.0), 1e-15);
    CHECK_REL(s.se, 1.0, 1e-15);
    CHECK_REL(s.t_quantile, 12.706204736174694, T_REL_TOL); /* scipy.stats.t.ppf(0.975, 1) */
    CHECK_REL(s.ci_low, 2.0 - 12.706204736174694, T_REL_TOL);
    CHECK_REL(s.ci_high, 2.0 + 12.706204736174694, T_REL_TOL);
}

static void test_compute_all_equal(void)
{
    double x[9];
    mpiscope_stats_t s;
    for (int i = 0; i < 9; i++)
        x[i] = 4.25;
    CHECK_INT_EQ(mpiscope_stats_compute(x, 9, 0.25, 0.99, &s), 0);
    CHECK_INT_EQ(s.n_used, 5);
    CHECK(s.mean == 4.25 && s.median == 4.25 && s.q25 == 4.25 && s.q75 == 4.25);
    CHECK(s.stddev == 0.0 && s.se == 0.0 && s.rse == 0.0 && s.error == 0.0);
    CHECK(s.ci_low == 4.25 && s.ci_high == 4.25);
    CHECK_REL(s.t_quantile, 4.604094871349992, T_REL_TOL); /* scipy.stats.t.ppf(0.995, 4) */
}

static void test_compute_order_independent(void)
{
    double rev[20];
    mpiscope_stats_t a, b;
    for (int i = 0; i < 20; i++)
        rev[i] = sample[19 - i];
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.2, 0.95, &a), 0);
    CHECK_INT_EQ(mpiscope_stats_compute(rev, 20, 0.2, 0.95, &b), 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
}

static void test_compute_bad_arguments(void)
{
    mpiscope_stats_t s;
    const double bad_nan[3] = {1.0, NAN, 2.0}, bad_inf[3] = {1.0, INFINITY, 2.0};
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.25, 0.95, NULL), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(NULL, 3, 0.25, 0.95, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, -0.01, 0.95, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.5, 0.95, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, NAN, 0.95, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.25, 0.0, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.25, 1.0, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.25, NAN, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(NULL, 0, 0.25, 1.5, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(bad_nan, 3, 0.25, 0.95, &s), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_stats_compute(sample, 20, 0.25, 0.95, &s), 0);
    CHECK_INT_EQ(mpiscope_stats_compute(bad_inf, 3, 0.25, 0.95, &s), MPISCOPE_EINVAL);
    /* an error leaves the empty statistics, never stale or uninitialized ones */
    CHECK_INT_EQ(s.n_valid, 0);
    CHECK_INT_EQ(s.n_used, 0);
    CHECK_NAN(s.mean);
    CHECK_NAN(s.median);
    CHECK_NAN(s.ci_low);
    CHECK_NAN(s.max);
}

/* The clock's limit: samples on one or two steps get half a step. */
static void test_resolution_floor(void)
{
    double x[40];
    mpiscope_stats_t s;
    for (int i = 0; i < 40; i++)
        x[i] = 50.0;
    CHECK_INT_EQ(mpiscope_stats_compute(x, 40, 0.25, 0.95, &s), 0);
    mpiscope_stats_apply_resolution(&s, 20.0);
    CHECK(s.at_resolution == 1 && s.error == 10.0 && s.error_floor_ns == 10.0);
    CHECK(s.ci_low == 40.0 && s.ci_high == 60.0);
    CHECK(s.p90_low == 40.0 && s.p90_high == 60.0 && s.p99_low == 40.0 && isnan(s.p99_high));
    for (int i = 0; i < 40; i++) /* two adjacent readings: still no dither */
        x[i] = i % 3 ? 50.0 : 70.0;
    CHECK_INT_EQ(mpiscope_stats_compute(x, 40, 0.25, 0.95, &s), 0);
    mpiscope_stats_apply_resolution(&s, 20.0);
    CHECK(s.error_floor_ns == 10.0 && s.error >= 10.0);
    for (int i = 0; i < 40; i++) /* across five steps: the samples' own interval */
        x[i] = 50.0 + 20.0 * (i % 5);
    CHECK_INT_EQ(mpiscope_stats_compute(x, 40, 0.25, 0.95, &s), 0);
    double own = s.error;
    mpiscope_stats_apply_resolution(&s, 20.0);
    CHECK(s.at_resolution == 0 && s.error_floor_ns == 0.0 && s.error == own);
    mpiscope_stats_apply_resolution(&s, 0.0); /* no step known: nothing changes */
    CHECK(s.error == own && s.resolution_ns == 0.0);
}

/* The tails' distribution-free intervals (scipy.stats.binom.cdf, equal tails). */
static void test_tail_intervals(void)
{
    static double x[400];
    mpiscope_stats_t s;
    for (int i = 0; i < 400; i++)
        x[i] = 399.0 - i; /* x_(k) = k - 1 once sorted */
    CHECK_INT_EQ(mpiscope_stats_compute(x, 400, 0.25, 0.95, &s), 0);
    CHECK(s.p90_low == 347.0 && s.p90_high == 371.0);
    CHECK(s.p99_low == 391.0 && s.p99_high == 399.0);
    CHECK_REL(s.p99, 395.01, 1e-12);
    CHECK_INT_EQ(mpiscope_stats_compute(x, 100, 0.25, 0.95, &s), 0); /* 399..300 */
    CHECK(s.p90_low == 300.0 + 83 && s.p90_high == 300.0 + 95);
    CHECK(isnan(s.p99_high) && s.p99_low == 300.0 + 96);
    CHECK_INT_EQ(mpiscope_stats_compute(x, 20, 0.25, 0.95, &s), 0);
    CHECK(isnan(s.p90_high) && isnan(s.p99_high));
    CHECK_INT_EQ((int)mpiscope_stats_tail_min_samples(0.99, 0.95), 368);
    CHECK_INT_EQ((int)mpiscope_stats_tail_min_samples(0.90, 0.95), 36);
    CHECK_INT_EQ((int)mpiscope_stats_tail_min_samples(1.5, 0.95), 0);
}

int main(void)
{
    test_resolution_floor();
    test_tail_intervals();
    test_t_scipy_values();
    test_t_closed_forms();
    test_t_shape();
    test_t_bad_arguments();
    test_quantile_sorted();
    test_compute_sample();
    test_compute_trim_zero();
    test_compute_trim_count();
    test_compute_offset();
    test_compute_small();
    test_compute_all_equal();
    test_compute_order_independent();
    test_compute_bad_arguments();
    CHECK_DONE();
}
