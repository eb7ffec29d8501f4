/* mpiscope/model.h: communication performance models inside an
 * application (the MPIBlib/CPM form): fit a piecewise Hockney model from
 * (size, time) points the application measured itself, or build a Hockney,
 * LogGP or PLogP model from known parameters; query the time T(s) of one
 * s-byte message; predict the cost of collective algorithms by name.
 *
 * Units: sizes in bytes, times in ns, per-byte costs in ns per byte.
 * Nothing here is collective or needs MPI (callable before MPI_Init);
 * every function is reentrant; a model is immutable once built except for
 * mpiscope_model_set_gamma(), so threads may query one model at once.
 * `mpiscope model fit` (Python, python/mpiscope/models/) computes the same
 * numbers: the same Hockney rule and the same collective formulas, names
 * and results (tests/python/test_model_c_python.py checks both sides).
 *
 *   mpiscope_model_t *m;
 *   double t;
 *   mpiscope_model_fit_hockney(sizes, times_ns, n, NULL, &m);    // one-way times
 *   mpiscope_model_predict(m, "bcast:binomial", 64, 65536, &t);  // ns
 *   mpiscope_model_destroy(m);
 *
 * examples/library/model_fit.c is a whole program; docs/library.md
 * ("Models from C") shows its output. */
#ifndef MPISCOPE_MODEL_H
#define MPISCOPE_MODEL_H

#include "mpiscope/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A fitted or given model (opaque; mpiscope_model_destroy() frees it). */
typedef struct mpiscope_model mpiscope_model_t;

typedef enum mpiscope_model_kind {
    MPISCOPE_MODEL_HOCKNEY = 1, /* piecewise alpha_k + beta_k * s */
    MPISCOPE_MODEL_LOGGP = 2,   /* T(s) = L + 2o + max(s - 1, 0) * G, o = (o_s + o_r) / 2 */
    MPISCOPE_MODEL_PLOGP = 3    /* T(s) = L + g(s), g(s) from a table, linearly interpolated */
} mpiscope_model_kind_t;

/* to_bytes of the last Hockney segment: it applies to every larger size. */
#define MPISCOPE_MODEL_NO_LIMIT SIZE_MAX

/* One protocol regime of a Hockney model: T(s) = alpha_ns + beta_ns_per_byte * s.
 * The segment applying to s is the first whose to_bytes >= s (so sizes
 * between two segments' fitted ranges take the next one, and sizes below
 * the first take the first). */
typedef struct mpiscope_hockney_segment {
    size_t from_bytes;       /* smallest size fitted in it (informative) */
    size_t to_bytes;         /* largest size it applies to; MPISCOPE_MODEL_NO_LIMIT for the last */
    double alpha_ns;         /* latency, ns, >= 0 when fitted */
    double beta_ns_per_byte; /* time per byte, ns/byte, >= 0 when fitted */
    size_t points;           /* points fitted in it (0 for given segments) */
    double max_rel_error;    /* largest |alpha + beta s - t| / t of those points (0 if given) */
} mpiscope_hockney_segment_t;

/* How mpiscope_model_fit_hockney() chooses its segments. */
typedef struct mpiscope_hockney_fit_options {
    int segments;      /* > 0: exactly this many segments (fewer only when there are not
                           min_points points for each); 0: as many as the data need (below) */
    int max_segments;  /* segments == 0: at most this many, >= 1 (default 4) */
    double tolerance;  /* segments == 0: the relative error every point must be within,
                           >= 0 (default 0.05) */
    size_t min_points; /* points per segment, >= 1 (default 2) */
} mpiscope_hockney_fit_options_t;

#define MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT {0, 4, 0.05, 2}

/* Fit a piecewise Hockney model to n points (sizes_bytes[i], times_ns[i]),
 * the one-way time of one message (e.g. ping-pong round trip / 2), in any
 * order, sizes may repeat. Points whose time is not > 0 are left out (as
 * the Python fit does); at least 2 must remain.
 *
 * The rule (the one of python/mpiscope/models/hockney.py, fit_hockney and
 * fit_hockney_auto, ported operation for operation so that both give the
 * same numbers):
 *  - the points are sorted by size (then time); a segment is a run of
 *    consecutive points and its line alpha + beta*s minimizes the squared
 *    relative error sum(((alpha + beta s - t) / t)^2) by weighted least
 *    squares, alpha and beta kept >= 0 (a negative one is refitted at 0);
 *  - for k segments, the breakpoints are those that minimize the total
 *    squared relative error over every split of the sorted points into k
 *    runs of at least min_points (dynamic programming; ties: the earlier
 *    breakpoint); k = max(1, min(segments, n / min_points));
 *  - segments == 0: k = 1, 2, ... max_segments, the first whose every point
 *    is within `tolerance` of its line; if none is, the k of least BIC,
 *    n ln(SSE/n + 1e-12) + 3k ln n (SSE: the squared relative errors of
 *    the model, a segment costing alpha, beta and its breakpoint; ties:
 *    fewer segments), so one outlier does not buy a segment of its own.
 * Each segment's to_bytes is its largest size (MPISCOPE_MODEL_NO_LIMIT for
 * the last). options NULL: MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT.
 * The work grows as n^3 (about a second at the limit): at most 1024 points.
 * On success *out is a new model the caller destroys; on error *out is NULL.
 * Returns 0, MPISCOPE_EINVAL (NULL pointer, a time NAN or infinite, fewer
 * than 2 positive times, fewer than min_points, an option out of range),
 * MPISCOPE_ERANGE (more than 1024 points) or MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_model_fit_hockney(const size_t *sizes_bytes, const double *times_ns, size_t n,
                                            const mpiscope_hockney_fit_options_t *options, mpiscope_model_t **out);

/* A Hockney model of n >= 1 given segments (copied), e.g. read from the
 * "segments" of `mpiscope model fit --model hockney`. to_bytes must
 * increase strictly; the last one's is treated as MPISCOPE_MODEL_NO_LIMIT
 * whatever it holds. alpha, beta finite. Returns 0, MPISCOPE_EINVAL or
 * MPISCOPE_ENOMEM; *out as above. */
MPISCOPE_API int mpiscope_model_create_hockney(const mpiscope_hockney_segment_t *segments, size_t n,
                                               mpiscope_model_t **out);

/* A LogGP model (Alexandrov et al. 1995) of given parameters, all finite:
 * L latency, o_s and o_r send and receive overheads, g gap (ns), G gap
 * per byte (ns/byte). T(s) = L + 2o + max(s - 1, 0) G with
 * o = (o_s + o_r) / 2. Returns 0, MPISCOPE_EINVAL or MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_model_create_loggp(double L_ns, double o_s_ns, double o_r_ns, double g_ns,
                                             double G_ns_per_byte, mpiscope_model_t **out);

/* A PLogP model (Kielmann, Bal, Verstoep 2000): latency L_ns and, at n >= 1
 * strictly increasing sizes, the send overhead o_s(m), receive overhead
 * o_r(m) and gap g(m) in ns (the arrays are copied; all finite). Between
 * the sizes the tables are interpolated linearly; outside them the end
 * segments are extended (one size: constant). T(s) = L + max(g(s), 0).
 * Returns 0, MPISCOPE_EINVAL or MPISCOPE_ENOMEM; *out as above. */
MPISCOPE_API int mpiscope_model_create_plogp(double L_ns, const size_t *sizes_bytes, const double *o_s_ns,
                                             const double *o_r_ns, const double *g_ns, size_t n,
                                             mpiscope_model_t **out);

/* Free a model. NULL is ignored. */
MPISCOPE_API void mpiscope_model_destroy(mpiscope_model_t *model);

/* The reduction cost gamma in ns per byte (finite, >= 0) the Allreduce
 * predictions add; 0 until set (e.g. from the `reduce_local` op: time /
 * size). Not thread-safe against concurrent queries of the same model.
 * Returns 0 or MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_model_set_gamma(mpiscope_model_t *model, double gamma_ns_per_byte);

/* The model's gamma, ns per byte (NAN for a NULL model). */
MPISCOPE_API double mpiscope_model_gamma(const mpiscope_model_t *model);

/* The kind of a model (0 for NULL). */
MPISCOPE_API mpiscope_model_kind_t mpiscope_model_kind(const mpiscope_model_t *model);

/* T(s): the time in ns of one message of size_bytes (>= 0, finite; not
 * necessarily whole: the collective formulas split messages).
 * Returns 0 or MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_model_time(const mpiscope_model_t *model, double size_bytes, double *time_ns);

/* The segments of a Hockney model: their count (0 for other kinds or
 * NULL), and segment `index` copied to *out (0, or MPISCOPE_EINVAL for a
 * bad index, another kind or a NULL pointer). */
MPISCOPE_API size_t mpiscope_model_segment_count(const mpiscope_model_t *model);
MPISCOPE_API int mpiscope_model_segment(const mpiscope_model_t *model, size_t index, mpiscope_hockney_segment_t *out);

/* The parameters of a LogGP model, or of a PLogP model at size_bytes (its
 * tables interpolated; G = 0 and g = g(size) for PLogP; L, o_s, o_r, g as
 * named, G ns/byte). Any output pointer may be NULL. Hockney models have
 * none: MPISCOPE_EINVAL. Returns 0 or MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_model_logp_params(const mpiscope_model_t *model, double size_bytes, double *L_ns,
                                            double *o_s_ns, double *o_r_ns, double *g_ns, double *G_ns_per_byte);

/* Predict the time in ns of one collective algorithm on nprocs (>= 1)
 * processes, from the model's T(s) and gamma, by its name ("bcast:binomial";
 * the list below). size_bytes (>= 0, finite) is what the engine op of that
 * collective calls its size (docs/operations.md): bcast and allreduce the
 * vector bytes, scatter, gather and allgather the bytes per process,
 * alltoall the bytes per destination. nprocs == 1 predicts 0.
 * The formulas are Thakur, Rabenseifner and Gropp (IJHPCA 2005) with T(s)
 * in place of alpha + s*beta (mpiscope_model_collective_formula()).
 * Returns 0, MPISCOPE_ENOOP (unknown name) or MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_model_predict(const mpiscope_model_t *model, const char *collective, int nprocs,
                                        double size_bytes, double *time_ns);

/* The collective algorithms mpiscope_model_predict() knows: their number,
 * and the name and formula (static text) of the one at `index` (NULL past
 * the end). The same names as the Python side's models/collectives.py:
 * bcast:linear, bcast:binomial, scatter:linear, gather:linear,
 * alltoall:bruck, alltoall:pairwise, alltoall:linear,
 * allreduce:recursive_doubling, allreduce:rabenseifner, allgather:ring,
 * barrier:dissemination. */
MPISCOPE_API size_t mpiscope_model_collective_count(void);
MPISCOPE_API const char *mpiscope_model_collective_name(size_t index);
MPISCOPE_API const char *mpiscope_model_collective_formula(size_t index);

#ifdef __cplusplus
}
#endif
#endif
