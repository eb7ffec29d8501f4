/* mpiscope/stats.h: statistics of one measurement point (MPIPerf section 4).
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
    size_t n_valid;       /* Q: samples given (n_c) */
    size_t n_used;        /* n_s: samples left after trimming */
    double trim_fraction; /* g': fraction dropped from EACH end */
    double mean;          /* T: mean of the trimmed sample */
    double stddev;        /* unbiased standard deviation of the trimmed sample */
    double se;            /* stddev / sqrt(n_used); NAN if n_used < 2 */
    double rse;           /* se / mean; NAN if undefined */
    double median;        /* of all Q samples */
    double min, max;      /* of all Q samples (the true extremes) */
    double trimmed_min, trimmed_max; /* extremes of the trimmed sample */
    double q25, q75;      /* quartiles of all Q samples (linear interpolation) */
    double confidence;    /* p */
    double t_quantile;    /* Student t_{(1+p)/2, n_used-1}; NAN if n_used < 2 */
    double error;         /* E = t_quantile * se */
    double ci_low, ci_high; /* mean -/+ error */
} mpiscope_stats_t;

/* Compute the statistics of `n` samples (any order; not modified).
 * trim_fraction in [0, 0.5): floor(trim_fraction * n) smallest and as many
 * largest samples are dropped before the mean. confidence in (0, 1).
 * n == 0 gives n_valid = 0 and NAN everywhere else. Fields that need two
 * samples (se, error, interval) are NAN when n_used < 2.
 * Returns 0, MPISCOPE_EINVAL (bad arguments) or MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_stats_compute(const double *samples, size_t n, double trim_fraction,
                           double confidence, mpiscope_stats_t *out);

/* The p-quantile (inverse CDF) of Student's t distribution with `df`
 * degrees of freedom (df > 0, not necessarily whole), 0 < p < 1.
 * Computed exactly through the inverse regularized incomplete beta function
 * (relative error below 1e-10). NAN for bad arguments. */
MPISCOPE_API double mpiscope_student_t_quantile(double p, double df);

/* The q-quantile (0 <= q <= 1) of sorted data, linear interpolation between
 * closest ranks (numpy's default). NAN when n == 0. */
MPISCOPE_API double mpiscope_quantile_sorted(const double *sorted, size_t n, double q);

#ifdef __cplusplus
}
#endif
#endif
