/* mpiscope/stats.h: statistics of one measurement point (MPIPerf section 4; spec section 5).
 *
 * The same code serves every timing method. Not collective, no MPI. */
#ifndef MPISCOPE_STATS_H
#define MPISCOPE_STATS_H

#include "mpiscope/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Statistics of Q valid launch times. Units are those of the samples. */
typedef struct mpiscope_stats {
    size_t n_valid;                  /* Q: samples given (n_c) */
    size_t n_used;                   /* n_s: samples left after trimming */
    double trim_fraction;            /* g': fraction dropped from EACH end */
    double mean;                     /* T: mean of the trimmed sample */
    double stddev;                   /* unbiased std. deviation of the trimmed sample; NAN if n_used < 2 */
    double se;                       /* stddev / sqrt(n_used); NAN if n_used < 2 */
    double rse;                      /* se / |mean|; NAN if undefined */
    double median;                   /* of all Q samples */
    double min, max;                 /* of all Q samples (the true extremes) */
    double trimmed_min, trimmed_max; /* extremes of the trimmed sample */
    double q25, q75;                 /* quartiles of all Q samples (linear interpolation) */
    double confidence;               /* p */
    double t_quantile;               /* Student t_{(1+p)/2, n_used-1} (> 0); NAN if n_used < 2 */
    double error;                    /* E = t_quantile * se */
    double ci_low, ci_high;          /* mean -/+ error */
    double median_rse;               /* standard error of the median over the median, distribution-free:
                             (x_(u) - x_(l)) / (2 z) with l, u = n/2 -/+ z sqrt(n)/2, z = 1.96
                             (the binomial order-statistic interval); NAN if n < 2 or median 0 */
    /* The tail of all Q samples: the 0.90 and 0.99 quantiles (as median) and
     * their distribution-free interval at `confidence`: the order statistics
     * x_(l) <= x_(u) with P(B >= l) >= 1 - a/2 and P(B <= u - 1) >= 1 - a/2,
     * B ~ Binomial(Q, q), a = 1 - confidence (equal tails, conservative).
     * A bound that would need an order statistic beyond the sample is NAN:
     * too few samples for that quantile (see tail_min_samples). */
    double p90, p90_low, p90_high;
    double p99, p99_low, p99_high;
    /* The clock's limit (mpiscope_stats_apply_resolution; 0 until then). */
    double resolution_ns;  /* the timer's step */
    int at_resolution;     /* the kept samples lie within one step (they do not dither across
                              steps) and their interval was narrower than half a step: error,
                              ci_low and ci_high are then widened to error_floor */
    double error_floor_ns; /* half a step when the kept samples do not dither, else 0: no
                              interval of the mean at any confidence is narrower */
} mpiscope_stats_t;

/* Kept samples whose range is at most this many timer steps do not dither:
 * they sit on one or two adjacent readings of the clock. */
#define MPISCOPE_STATS_DITHER_STEPS 1.25

/* Compute the statistics of `n` samples (any order; not modified).
 * trim_fraction in [0, 0.5): floor(trim_fraction * n) smallest and as many
 * largest samples are dropped before the mean (the double product, as
 * scipy.stats.trim_mean's int(proportiontocut * n)); n_used >= 1 if n >= 1.
 * confidence in (0, 1). Samples must be finite.
 * n == 0 gives n_valid = n_used = 0 and NAN in every statistic;
 * trim_fraction and confidence are always echoed. Fields that need two
 * samples (stddev, se, rse, t_quantile, error, interval) are NAN when
 * n_used < 2; rse is also NAN when mean == 0. median, q25 and q75 are
 * mpiscope_quantile_sorted() at 0.5, 0.25, 0.75 (numpy.median may differ
 * from the median in the last bit).
 * Allocates a private sorted copy (n doubles): never call it in a timed
 * region. Reentrant; not collective.
 * Returns 0, MPISCOPE_EINVAL (out NULL, samples NULL with n > 0, an argument
 * out of range or NAN, a sample not finite) or MPISCOPE_ENOMEM. On error
 * *out (if not NULL) holds the n == 0 statistics. */
MPISCOPE_API int mpiscope_stats_compute(const double *samples, size_t n, double trim_fraction, double confidence,
                                        mpiscope_stats_t *out);

/* Apply the clock's limit to statistics from mpiscope_stats_compute():
 * when the kept samples span at most MPISCOPE_STATS_DITHER_STEPS timer
 * steps (resolution_ns), the quantisation error of their mean does not
 * average out, so error_floor_ns = resolution_ns / 2 and error (and the
 * interval) is at least that; at_resolution is set when that floor
 * widened it. The tails' bounds (order statistics: readings of the clock)
 * are moved to at least half a step from their quantile. resolution_ns <= 0 or NAN, or no kept sample: nothing
 * changes but resolution_ns is recorded. Not collective, no allocation. */
MPISCOPE_API void mpiscope_stats_apply_resolution(mpiscope_stats_t *stats, double resolution_ns);

/* The fewest samples for which a two-sided distribution-free interval of
 * the q-quantile (0 < q < 1) exists at `confidence`: the smallest n with
 * 1 - q^n >= (1 + confidence) / 2 and 1 - (1 - q)^n >= (1 + confidence) / 2
 * (368 for the 0.99 quantile at 95%, 36 for the 0.90). 0 for bad arguments. */
MPISCOPE_API size_t mpiscope_stats_tail_min_samples(double q, double confidence);

/* The p-quantile (inverse CDF) of Student's t distribution with `df`
 * degrees of freedom (df > 0, not necessarily whole; +INFINITY gives the
 * normal quantile), 0 < p < 1. Computed through the inverse regularized
 * incomplete beta function: relative error below 1e-10 (about 1e-14 in
 * practice for df >= 1, against 50-digit arithmetic), the center p -> 1/2
 * included. Odd: q(1 - p) == -q(p) exactly when 1 - p is exact. May be
 * +-INFINITY for tiny df and extreme p, where the quantile exceeds DBL_MAX.
 * NAN for bad arguments (NAN included). Reentrant, no allocation. */
MPISCOPE_API double mpiscope_student_t_quantile(double p, double df);

/* The q-quantile (0 <= q <= 1) of `n` ascending data, linear interpolation
 * between closest ranks, bit for bit numpy.quantile's default ('linear').
 * NAN when n == 0, sorted is NULL or q is outside [0, 1] or NAN. */
MPISCOPE_API double mpiscope_quantile_sorted(const double *sorted, size_t n, double q);

#ifdef __cplusplus
}
#endif
#endif
