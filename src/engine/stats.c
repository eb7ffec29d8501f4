/* stats.c: statistics of one measurement point and the Student t quantile.
 *
 * The t quantile inverts the regularized incomplete beta function
 * I_x(df/2, 1/2) (continued fraction, modified Lentz; for df >= 30 in the
 * tail, the TOMS 708 asymptotic expansion) by Halley/Newton steps in
 * u = log(t / sqrt(df)), safeguarded by bisection. Reentrant: no static
 * mutable state, not even lgamma's (it writes the global signgam; we need
 * only lgamma(a) - lgamma(a + 1/2), computed without cancellation).
 * Not collective, no MPI. */
#include "mpiscope/stats.h"
#include "mpiscope/error.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STATS_PI 3.14159265358979323846
#define STATS_LOG_SQRT_PI 0.57236494292470008707 /* log(sqrt(pi)) = lgamma(1/2) */
#define STATS_CF_MAX_ITER 10000                  /* used: below 30 terms (df >= 30 uses BGRAT) */
#define STATS_SOLVE_MAX_ITER 200
#define STATS_BGRAT_TERMS 30
#define STATS_DF_NORMAL 1e20  /* t_df is the normal quantile to 1e-17 beyond */
#define STATS_SOLVE_TOL 1e-12 /* last Halley/Newton step, relative to max(1,|u|) */

/* ---- special functions ------------------------------------------------ */

/* log(1 + exp(z)) without overflow. */
static double softplus(double z)
{
    return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* Stirling series remainder: lgamma(z) - ((z - 1/2) log z - z + log(2 pi)/2),
 * for z >= 8 (first omitted term below 1e-15 of the value there). */
static double stirling_remainder(double z)
{
    double r = 1.0 / (z * z);
    return (1.0 / 12
            + r
                  * (-1.0 / 360
                     + r
                           * (1.0 / 1260
                              + r * (-1.0 / 1680 + r * (1.0 / 1188 + r * (-691.0 / 360360 + r * (1.0 / 156)))))))
           / z;
}

/* lgamma(a) - lgamma(a + 1/2) for a > 0, without the cancellation of two
 * large lgamma values (df = 1e6 would lose 1e-9 relative in I_x), by
 * shifting a up to 8 and using Stirling's series there. */
static double lgamma_ratio_half(double a)
{
    double shift = 0.0;
    while (a < 8.0) {
        shift += log1p(0.5 / a); /* log((a + 1/2) / a) */
        a += 1.0;
    }
    double b = 0.5;
    return shift - (a - 0.5) * log1p(b / a) - b * log(a + b) + b + stirling_remainder(a) - stirling_remainder(a + b);
}

/* Continued fraction of I_x(a, b) (modified Lentz): I_x(a, b) =
 * x^a (1-x)^b / (a B(a, b)) * beta_cf(a, b, x), fast for x < (a+1)/(a+b+2).
 * NAN if it does not converge. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= STATS_CF_MAX_ITER; m++) {
        double m2 = 2.0 * m;
        double coef[2] = {
            m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2)),
        };
        double del = 1.0;
        for (int k = 0; k < 2; k++) {
            d = 1.0 + coef[k] * d;
            c = 1.0 + coef[k] / c;
            d = 1.0 / (fabs(d) < tiny ? tiny : d);
            c = fabs(c) < tiny ? tiny : c;
            del = d * c;
            h *= del;
        }
        if (fabs(del - 1.0) <= DBL_EPSILON)
            return h;
    }
    return NAN;
}

/* exp(z) erfc(sqrt(z)) sqrt(pi / z) for z > 0: erfc directly while it
 * cannot underflow, then its asymptotic series (terms below 1e-17 by k = 12). */
static double scaled_erfc_half(double z)
{
    if (z < 600.0)
        return exp(z) * erfc(sqrt(z)) * sqrt(STATS_PI / z);
    double sum = 1.0, term = 1.0;
    for (int k = 1; k <= 20 && fabs(term) > 0.25 * DBL_EPSILON; k++) {
        term *= -(2.0 * k - 1.0) / (2.0 * z);
        sum += term;
    }
    return sum / z;
}

/* log I_x(a, 1/2) for a >= 15 by the asymptotic expansion BGRAT of
 * DiDonato and Morris (ACM TOMS 708, 1992) with b = 1/2, where the
 * incomplete gamma ratio is Q(1/2, z) = erfc(sqrt(z)). The continued
 * fraction loses about eps/(1-x) there (partial denominators cancel near
 * x = 1 for large a); this expansion has no cancellation.
 * lgr = lgamma(a) - lgamma(a + 1/2). NAN if the expansion fails. */
static double log_beta_bgrat_half(double a, double log_x, double lgr)
{
    const double b = 0.5, bm1 = -0.5;
    double nu = a + 0.5 * bm1, z = -nu * log_x;
    if (!(z > 0.0))
        return NAN;
    /* with u = z^b x^nu Gamma(a+b) / (Gamma(b) Gamma(a) nu^b), I_x = u sum */
    double log_u = 0.5 * log(z / nu) - z - lgr - STATS_LOG_SQRT_PI;
    double j = scaled_erfc_half(z); /* Q(b, z) / (e^-z z^b / Gamma(b)) */
    double v = 0.25 / (nu * nu), t2 = 0.25 * log_x * log_x;
    double sum = j, t = 1.0, cn = 1.0, n2 = 0.0;
    double c[STATS_BGRAT_TERMS], d[STATS_BGRAT_TERMS];
    for (int n = 1; n <= STATS_BGRAT_TERMS; n++) {
        double bp2n = b + n2;
        j = (bp2n * (bp2n + 1.0) * j + (z + bp2n + 1.0) * t) * v;
        n2 += 2.0;
        t *= t2;
        cn /= n2 * (n2 + 1.0);
        c[n - 1] = cn;
        double s = 0.0, coef = b - n;
        for (int i = 1; i < n; i++, coef += b)
            s += coef * c[i - 1] * d[n - 1 - i];
        d[n - 1] = bm1 * cn + s / n;
        double dj = d[n - 1] * j;
        sum += dj;
        if (!(sum > 0.0))
            return NAN;
        if (fabs(dj) <= 0.5 * DBL_EPSILON * sum)
            return log_u + log(sum);
    }
    return NAN;
}

/* log(1 - exp(l)) for l < 0, accurate on both sides of l = -log 2. */
static double log1mexp(double l)
{
    return l > -0.6931471805599453 ? log(-expm1(l)) : log1p(-exp(l));
}

/* I_x(a, 1/2) and its complement at x = 1/(1+r^2), r = exp(u), in logs so
 * that nothing underflows far in the tails. */
struct tbeta {
    double log_w;     /* log I_x(a, 1/2) = log 2 P(T > t), t = r sqrt(df) */
    double log_w1;    /* log(1 - w) = log I_y(1/2, a) = log 2 P(0 < T < t) */
    double log_front; /* log(x^a y^(1/2) / B(a, 1/2)); dw1/du = 2 front */
    double x, y;      /* 1/(1+r^2) and r^2/(1+r^2) */
};

/* The smaller of w and w1 is computed directly, the other as 1 minus it. */
static struct tbeta tbeta_eval(double u, double a, double lgr)
{
    struct tbeta e;
    double log_x = -softplus(2.0 * u), log_y = -softplus(-2.0 * u);
    e.x = exp(log_x);
    e.y = exp(log_y);
    e.log_front = a * log_x + 0.5 * log_y - lgr - STATS_LOG_SQRT_PI;
    e.log_w = NAN;
    if (a >= 15.0 && a * e.y > 0.5 && e.y < 0.29) /* TOMS 708's domain */
        e.log_w = log_beta_bgrat_half(a, log_x, lgr);
    if (isnan(e.log_w) && e.x * (a + 2.5) < a + 1.0)
        e.log_w = e.log_front + log(beta_cf(a, 0.5, e.x) / a);
    if (!isnan(e.log_w)) {
        e.log_w1 = log1mexp(e.log_w);
    } else {
        e.log_w1 = e.log_front + log(beta_cf(0.5, a, e.y) / 0.5);
        e.log_w = log1mexp(e.log_w1);
    }
    return e;
}

/* ---- starting guesses for the quantile -------------------------------- */

/* Standard normal quantile for a lower-tail probability 0 < p <= 1/2
 * (Acklam's rational approximation, relative error 1.2e-9): a start only. */
static double normal_quantile_start(double p)
{
    static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00};
    if (p < 0.02425) {
        double q = sqrt(-2.0 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
               / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
           / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* Hill (1970, CACM algorithm 396) approximation of the upper quantile
 * t > 0 with two-sided tail probability P = 2 P(T > t), for df >= 1. */
static double hill_start(double P, double df)
{
    double a = 1.0 / (df - 0.5), b = 48.0 / (a * a);
    double c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36;
    double d = ((94.5 / (b + c) - 3.0) / b + 1.0) * sqrt(a * STATS_PI / 2.0) * df;
    double y = pow(d * P, 2.0 / df);
    if ((df < 2.1 && P > 0.5) || y > 0.05 + a) { /* expansion about the normal */
        double x = normal_quantile_start(0.5 * P);
        y = x * x;
        if (df < 5.0)
            c += 0.3 * (df - 4.5) * (x + 0.6);
        c = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c;
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x;
        y = expm1(a * y * y);
    } else {
        y = ((1.0 / (((df + 6.0) / (df * y) - 0.089 * d - 0.822) * (df + 2.0) * 3.0) + 0.5 / (df + 4.0)) * y - 1.0)
                * (df + 1.0) / (df + 2.0)
            + 1.0 / y;
    }
    return sqrt(df * y);
}

/* Starting u = log(t / sqrt(df)) for the upper quantile with one-sided
 * tail probability q (tail mode) or central probability c = 1/2 - q. */
static double t_start(double q, double c, double df, int tail_mode, double lgr)
{
    double log_beta = lgr + STATS_LOG_SQRT_PI; /* log B(df/2, 1/2) */
    if (df >= 1.0) {
        double t = hill_start(2.0 * q, df);
        if (t > 0.0 && isfinite(t))
            return log(t) - 0.5 * log(df);
    }
    /* pdf(0) of t / sqrt(df) is 1 / B(df/2, 1/2) */
    if (!tail_mode)
        return log(c) + log_beta;
    /* tail: P(T > t) ~ r^-df / (df B(df/2, 1/2)), r = t / sqrt(df) */
    return (-log(q) - log(df) - log_beta) / df;
}

/* ---- the quantile ------------------------------------------------------- */

/* Solve for u = log(t / sqrt(df)), t > 0 the upper quantile. In tail mode
 * the equation is log I_x(a, 1/2) = log(target), otherwise
 * log I_y(1/2, a) = log(target): whichever side is the smaller, so that
 * both the target and the computed side carry full relative precision.
 * h(u) below is increasing; [lo, hi] brackets the root once finite. */
static double t_solve(double target, double a, double lgr, int tail_mode, double u)
{
    const double s = tail_mode ? -1.0 : 1.0;
    const double log_target = log(target);
    double lo = -INFINITY, hi = INFINITY, span = 1.0;
    for (int it = 0; it < STATS_SOLVE_MAX_ITER; it++) {
        struct tbeta e = tbeta_eval(u, a, lgr);
        double log_side = tail_mode ? e.log_w : e.log_w1;
        double h = s * (log_side - log_target);
        double dh = 2.0 * exp(e.log_front - log_side); /* h'(u) > 0 */
        if (h == 0.0)
            return u;
        if (h < 0.0)
            lo = u;
        else
            hi = u;
        double newton = -h / dh;
        double k = e.x - 2.0 * a * e.y - s * dh; /* h''(u) / h'(u) */
        double corr = 0.5 * newton * k;
        double step = fabs(corr) <= 0.5 ? newton / (1.0 + corr) : newton; /* Halley */
        double next = u + step;
        if (next > lo && next < hi) {
            if (fabs(step) <= STATS_SOLVE_TOL * fmax(1.0, fabs(u)))
                return next;
        } else if (isfinite(lo) && isfinite(hi)) {
            next = 0.5 * (lo + hi);
            if (hi - lo <= 4.0 * DBL_EPSILON * fmax(1.0, fabs(u)))
                return next;
        } else {
            next = h < 0.0 ? u + span : u - span; /* no bracket yet: widen */
            span *= 2.0;
        }
        u = next;
    }
    return u;
}

double mpiscope_student_t_quantile(double p, double df)
{
    if (!(p > 0.0 && p < 1.0) || !(df > 0.0)) /* also NAN arguments */
        return NAN;
    /* Beyond 1e20 (and for df = +inf, the normal limit), t_df differs from
     * t_1e20 by about (z^2 + 1) / (4e20) relative: below 1e-17 for p > 1e-300. */
    df = fmin(df, STATS_DF_NORMAL);
    if (p == 0.5)
        return 0.0;
    /* q = upper tail, c = 1/2 - q: both exact when they are the smaller */
    double q = p < 0.5 ? p : 1.0 - p;
    double c = p < 0.5 ? 0.5 - p : p - 0.5;
    double a = 0.5 * df;
    double lgr = lgamma_ratio_half(a);
    int tail_mode = q < 0.25;
    double u0 = t_start(q, c, df, tail_mode, lgr);
    double u = t_solve(tail_mode ? 2.0 * q : 2.0 * c, a, lgr, tail_mode, u0);
    double t = sqrt(df) * exp(u);
    return p < 0.5 ? -t : t;
}

/* ---- order statistics ------------------------------------------------- */

double mpiscope_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (sorted == NULL || n == 0 || !(q >= 0.0 && q <= 1.0))
        return NAN;
    double h = (double)(n - 1) * q; /* numpy 'linear': virtual index */
    double lo_d = floor(h);
    if (lo_d >= (double)(n - 1))
        return sorted[n - 1];
    size_t lo = (size_t)lo_d;
    double g = h - lo_d, a = sorted[lo], b = sorted[lo + 1], diff = b - a;
    return g >= 0.5 ? b - diff * (1.0 - g) : a + diff * g; /* numpy's _lerp */
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Mean and unbiased standard deviation (NAN if n < 2) of x[0..n), n >= 1:
 * compensated sum, then the corrected two-pass variance. */
static void mean_stddev(const double *x, size_t n, double *mean, double *stddev)
{
    double sum = 0.0, comp = 0.0;
    for (size_t i = 0; i < n; i++) { /* Neumaier summation */
        double t = sum + x[i];
        comp += fabs(sum) >= fabs(x[i]) ? (sum - t) + x[i] : (x[i] - t) + sum;
        sum = t;
    }
    double m = (sum + comp) / (double)n;
    double ss = 0.0, sd = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - m;
        sd += d;
        ss += d * d;
    }
    *mean = m;
    *stddev = n < 2 ? NAN : sqrt(fmax(0.0, ss - sd * sd / (double)n) / (double)(n - 1));
}

static void stats_empty(double trim_fraction, double confidence, mpiscope_stats_t *out)
{
    memset(out, 0, sizeof *out); /* padding too: equal inputs give equal bytes */
    double *fields[] = {&out->mean,       &out->stddev,     &out->se,          &out->rse,         &out->median,
                        &out->min,        &out->max,        &out->trimmed_min, &out->trimmed_max, &out->q25,
                        &out->q75,        &out->t_quantile, &out->error,       &out->ci_low,      &out->ci_high,
                        &out->median_rse, &out->p90,        &out->p90_low,     &out->p90_high,    &out->p99,
                        &out->p99_low,    &out->p99_high};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = NAN;
    out->n_valid = 0;
    out->n_used = 0;
    out->trim_fraction = trim_fraction;
    out->confidence = confidence;
    out->resolution_ns = 0.0;
    out->at_resolution = 0;
    out->error_floor_ns = 0.0;
}

/* The median's relative standard error from the order statistics that
 * bound its 95% distribution-free interval (no assumption on the shape:
 * launch times are skewed and often bimodal). */
static double median_rse_sorted(const double *x, size_t n, double median)
{
    const double z = 1.959963984540054;
    if (n < 2 || median == 0.0)
        return NAN;
    double half = z * sqrt((double)n) / 2.0, lo = floor((double)n / 2.0 - half), hi = ceil((double)n / 2.0 + half);
    size_t l = lo<0.0 ? 0 : (size_t)lo, u = hi>(double)(n - 1) ? n - 1 : (size_t)hi;
    return (x[u] - x[l]) / (2.0 * z) / fabs(median);
}

/* The distribution-free interval of the q-quantile of the sorted x[0..n)
 * at `confidence` (mpiscope_stats_t): the equal-tailed order statistics
 * from the Binomial(n, q) distribution function, summed from its log
 * probabilities (nothing underflows that matters). NAN for a bound beyond
 * the sample. */
static void quantile_interval(const double *x, size_t n, double q, double confidence, double *low, double *high)
{
    double tail = 0.5 * (1.0 - confidence), log_ratio = log(q) - log1p(-q);
    double log_pmf = (double)n * log1p(-q), cdf = 0.0;
    *low = *high = NAN;
    for (size_t k = 0; k < n; k++) {
        cdf += exp(log_pmf);
        if (cdf <= tail)
            *low = x[k]; /* the largest k with P(B <= k) <= a/2 */
        if (cdf >= 1.0 - tail) {
            *high = x[k]; /* the smallest k with P(B <= k) >= 1 - a/2 */
            return;
        }
        log_pmf += log((double)(n - k) / (double)(k + 1)) + log_ratio;
    }
}

static void tail_from_sorted(const double *x, size_t n, double confidence, mpiscope_stats_t *out)
{
    out->p90 = mpiscope_quantile_sorted(x, n, 0.90);
    out->p99 = mpiscope_quantile_sorted(x, n, 0.99);
    quantile_interval(x, n, 0.90, confidence, &out->p90_low, &out->p90_high);
    quantile_interval(x, n, 0.99, confidence, &out->p99_low, &out->p99_high);
}

size_t mpiscope_stats_tail_min_samples(double q, double confidence)
{
    if (!(q > 0.0 && q < 1.0) || !(confidence > 0.0 && confidence < 1.0))
        return 0;
    double tail = 0.5 * (1.0 - confidence);
    /* both extreme order statistics must be allowed: q^n <= a/2 and (1-q)^n <= a/2 */
    double n = fmax(log(tail) / log(q), log(tail) / log1p(-q));
    size_t m = (size_t)ceil(n - 1e-9);
    return m < 1 ? 1 : m;
}

/* A quantile's bound at least half a step from it (a NAN bound stays NAN). */
static void widen_bounds(double value, double half, double *low, double *high)
{
    if (!isnan(*low))
        *low = fmin(*low, value - half);
    if (!isnan(*high))
        *high = fmax(*high, value + half);
}

void mpiscope_stats_apply_resolution(mpiscope_stats_t *s, double resolution_ns)
{
    if (s == NULL)
        return;
    s->resolution_ns = resolution_ns > 0.0 ? resolution_ns : 0.0;
    s->at_resolution = 0;
    s->error_floor_ns = 0.0;
    if (resolution_ns > 0.0) { /* order statistics on one clock step: the step's width at least */
        widen_bounds(s->p90, 0.5 * resolution_ns, &s->p90_low, &s->p90_high);
        widen_bounds(s->p99, 0.5 * resolution_ns, &s->p99_low, &s->p99_high);
    }
    if (!(resolution_ns > 0.0) || s->n_used == 0
        || s->trimmed_max - s->trimmed_min > MPISCOPE_STATS_DITHER_STEPS * resolution_ns)
        return;
    s->error_floor_ns = 0.5 * resolution_ns;
    if (isnan(s->error) || s->error >= s->error_floor_ns)
        return;
    s->at_resolution = 1;
    s->error = s->error_floor_ns;
    s->ci_low = s->mean - s->error;
    s->ci_high = s->mean + s->error;
}

/* Everything from the sorted sample x[0..n), n >= 1, over stats_empty(). */
static void stats_from_sorted(const double *x, size_t n, double trim_fraction, double confidence, mpiscope_stats_t *out)
{
    size_t k = (size_t)floor(trim_fraction * (double)n);
    if (2 * k >= n) /* cannot happen for trim_fraction < 1/2; keep one sample */
        k = (n - 1) / 2;
    size_t m = n - 2 * k;
    out->n_valid = n;
    out->n_used = m;
    mean_stddev(x + k, m, &out->mean, &out->stddev);
    out->median = mpiscope_quantile_sorted(x, n, 0.5);
    out->q25 = mpiscope_quantile_sorted(x, n, 0.25);
    out->q75 = mpiscope_quantile_sorted(x, n, 0.75);
    out->min = x[0];
    out->max = x[n - 1];
    out->trimmed_min = x[k];
    out->trimmed_max = x[n - 1 - k];
    out->median_rse = median_rse_sorted(x, n, out->median);
    tail_from_sorted(x, n, confidence, out);
    if (m < 2)
        return;
    out->se = out->stddev / sqrt((double)m);
    out->rse = out->mean != 0.0 ? out->se / fabs(out->mean) : NAN; /* a floor-subtracted mean may be < 0 */
    /* t_{(1+p)/2} = -t_{(1-p)/2}: the latter argument is exact */
    out->t_quantile = -mpiscope_student_t_quantile(0.5 * (1.0 - confidence), (double)(m - 1));
    out->error = out->t_quantile * out->se;
    out->ci_low = out->mean - out->error;
    out->ci_high = out->mean + out->error;
}

static int stats_check(const double *samples, size_t n, double trim_fraction, double confidence)
{
    if ((samples == NULL && n > 0) || !(trim_fraction >= 0.0 && trim_fraction < 0.5)
        || !(confidence > 0.0 && confidence < 1.0))
        return MPISCOPE_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(samples[i]))
            return MPISCOPE_EINVAL;
    return n > SIZE_MAX / sizeof(double) ? MPISCOPE_ENOMEM : 0;
}

int mpiscope_stats_compute(const double *samples, size_t n, double trim_fraction, double confidence,
                           mpiscope_stats_t *out)
{
    if (out == NULL)
        return MPISCOPE_EINVAL;
    stats_empty(trim_fraction, confidence, out); /* also what an error leaves */
    int err = stats_check(samples, n, trim_fraction, confidence);
    if (err || n == 0)
        return err;
    double *sorted = malloc(n * sizeof(double));
    if (sorted == NULL)
        return MPISCOPE_ENOMEM;
    memcpy(sorted, samples, n * sizeof(double));
    qsort(sorted, n, sizeof(double), cmp_double);
    stats_from_sorted(sorted, n, trim_fraction, confidence, out);
    free(sorted);
    return 0;
}
