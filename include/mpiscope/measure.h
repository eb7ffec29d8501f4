/* mpiscope/measure.h: measuring operations with the synchronized-window
 * method, from mpiscope-bench or from inside an application (MPIBlib form).
 *
 *   mpiscope_params_t p;  mpiscope_params_default(&p);  p.confidence = 0.99;
 *   mpiscope_context_t *ctx;
 *   mpiscope_context_create(MPI_COMM_WORLD, &p, &ctx);      // collective: timer, clock sync
 *   mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;  spec.size_bytes = 1024;
 *   mpiscope_point_result_t r;
 *   mpiscope_context_measure(ctx, mpiscope_op_find("bcast"), &spec, &r); // collective
 *   // r.stats.mean, r.stats.ci_low, r.stats.ci_high ... valid on every rank
 *   mpiscope_context_destroy(ctx);
 */
#ifndef MPISCOPE_MEASURE_H
#define MPISCOPE_MEASURE_H

#include <stddef.h>
#include <mpi.h>
#include "mpiscope/export.h"
#include "mpiscope/op.h"
#include "mpiscope/stats.h"
#include "mpiscope/sync.h"
#include "mpiscope/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpiscope_stop_rule {
    MPISCOPE_STOP_ERROR = 0,    /* rse of the trimmed mean AND of the median <= target_rse, with
                                >= min_valid valid launches and >= min_point_seconds measured
                                (caps: max_launches, max_point_seconds) */
    MPISCOPE_STOP_COUNT,        /* > max_launches launches in all, or >= max_valid valid ones */
    MPISCOPE_STOP_DETERMINISTIC /* for a clock without noise (a simulator's: mpiscope run
                                   --launcher smpi makes it the default): measured stages of
                                   min(k, 2) launches, stopped as soon as two valid launches
                                   read the same time to the clock's rounding (1e-9 of the
                                   time, 1e-12 of the clock's reading), whose value is then
                                   exact; launches that differ (an op with random data, start
                                   times that fall between the clock's steps) go on under the
                                   error rule. Never on a real clock: two launches of a coarse
                                   one may read the same time by chance */
} mpiscope_stop_rule_t;

typedef enum mpiscope_stop_reason {
    MPISCOPE_STOPPED_NOT = 0,
    MPISCOPE_STOPPED_TARGET_ERROR,
    MPISCOPE_STOPPED_MAX_VALID,
    MPISCOPE_STOPPED_MAX_LAUNCHES,
    MPISCOPE_STOPPED_TIME_LIMIT,
    MPISCOPE_STOPPED_RESOLUTION,   /* error rule: the kept samples sit on one or two clock steps
                                       and half a step alone exceeds the target: more launches
                                       cannot narrow the interval (stats.at_resolution) */
    MPISCOPE_STOPPED_DETERMINISTIC /* deterministic rule: every valid launch read the same time;
                                       the statistics then have no spread (stddev, se, error 0,
                                       ci_low = ci_high = mean) */
} mpiscope_stop_reason_t;

/* Why a point cannot be trusted (bits of mpiscope_point_result_t.unstable). */
enum {
    MPISCOPE_UNSTABLE_INVALID_FRACTION = 1u << 0, /* more than half the launches invalid */
    MPISCOPE_UNSTABLE_SPREAD = 1u << 1,           /* interquartile range > half the median */
    MPISCOPE_UNSTABLE_TARGET_MISSED = 1u << 2,    /* error rule (or deterministic) ended by a cap */
    MPISCOPE_UNSTABLE_TOO_FEW_VALID = 1u << 3     /* fewer valid launches than min_valid */
};

/* Every parameter of a measurement. mpiscope_params_default() gives the
 * published MPIPerf defaults plus ours; every field is written into the
 * result document. */
typedef struct mpiscope_params {
    mpiscope_timer_kind_t timer;    /* AUTO */
    mpiscope_sync_params_t sync;    /* linear, patience 100 */
    unsigned k_init;                /* launches of stage 0, discarded (4) */
    unsigned k;                     /* launches per stage (8) */
    double invalid_threshold;       /* widen when more launches of a stage than this fraction overran (0.25) */
    double gamma;                   /* window scale factor, 1 < gamma < 2 (1.1) */
    double window_min_ns;           /* the window never shrinks below this (1000 ns) */
    double window_quantile;         /* the window is gamma x this quantile of recent needs (0.9) */
    double late_tolerance_ns;       /* a start later than the schedule by more is late (0: auto) */
    double late_tolerance_fraction; /* ... or by more than this fraction of the window (0.01) */
    double t_bcast_ns;              /* stage start lead time (0: measured at context creation) */
    double window_ns;               /* > 0: a fixed window, never sized from needs (0) */
    double gap_ns;                  /* idle time before each launch: after the observed end of
                                         the previous one (roundtime), after the barrier
                                         (barrier-each, max, root, global); 0 */
    mpiscope_stop_rule_t stop_rule; /* ERROR */
    double target_rse;              /* 0.05 */
    unsigned min_valid;             /* 10 */
    unsigned max_valid;             /* 30 (count rule) */
    unsigned max_launches;          /* 1000 (count rule: 100) */
    double max_point_seconds;       /* 30: a point never takes longer */
    double min_point_seconds;       /* 0.0005: the error rule never stops a point sooner
                                         (hundreds of launches for small messages) */
    double trim_fraction;           /* 0.25 from each end */
    double confidence;              /* 0.95 */
    int cache_cold;                 /* 1: rotate buffers larger than the LLC */
    size_t alignment_bytes;         /* 64 */
    size_t pool_limit_bytes;        /* 0: 256 MiB */
    double floor_ns;                /* > 0: subtracted from every launch time before the
                                         statistics (the measurement floor, WaitPatternNull's
                                         median; 0: nothing subtracted) */
    double floor_se_ns;             /* the floor's own standard error (at least its half step
                                         over t when it sits at the clock's resolution): added in
                                         quadrature to every point's se when floor_ns > 0 */
    unsigned flags;                 /* must be 0 */
} mpiscope_params_t;

MPISCOPE_API void mpiscope_params_default(mpiscope_params_t *params);
/* 0 if consistent, else MPISCOPE_EINVAL / MPISCOPE_ERANGE. */
MPISCOPE_API int mpiscope_params_check(const mpiscope_params_t *params);

/* What to measure for one point. */
typedef struct mpiscope_point_spec {
    size_t size_bytes;               /* message size, bytes */
    int nprocs;                      /* 0: the whole communicator; else its first nprocs ranks */
    int root;                        /* for ops with a root, rank in the point's communicator */
    const char *dtype;               /* element type name for reductions, NULL: "double" */
    const char *reduce_op;           /* reduction name, NULL: "sum" */
    const char *const *option_names; /* op-specific options (n_options entries) */
    const char *const *option_values;
    size_t n_options;
    int validate;                                /* check every received buffer (ops with a validate hook);
                                         timings then include no checking, but the caches do */
    const char *method;                          /* timing method by name (mpiscope_method_count/name), NULL:
                                         "window"; ignored when method_handle is set */
    const double *arrival_ns;                    /* [nprocs] delay of each rank's start after the schedule
                                         (window, roundtime), NULL: all at once */
    int cache_cold;                              /* -1: the context's mode; 0 warm; 1 cold */
    const struct mpiscope_method *method_handle; /* the method looked up once
                                         (mpiscope_method_find); NULL: by `method` */
} mpiscope_point_spec_t;
#define MPISCOPE_POINT_SPEC_INIT {0, 0, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, -1, NULL}

typedef struct mpiscope_point_result {
    int participated;          /* 0 on ranks outside the point's communicator */
    mpiscope_stats_t stats;    /* of the method's samples (window: each valid launch's
                                         max over ranks of the rank's own duration) */
    size_t launches_total;     /* n_t (stages >= 1) */
    size_t launches_valid;     /* n_c */
    size_t launches_discarded; /* valid launches dropped while the window converged */
    size_t invalid_late, invalid_overrun;
    double invalid_fraction;
    double span_median_ns, span_mean_ns, span_max_ns; /* global span of valid launches */
    double skew_median_ns, skew_mean_ns, skew_max_ns; /* start skew of valid launches */
    double gap_median_ns, gap_min_ns;                 /* idle time of the ranks before a launch (min over ranks) */
    double first_launch_ns;                           /* the point's first launch (stage 0, discarded): max over
                                         ranks of each rank's own duration (late initialization) */
    char view_names[4][32];                           /* method-specific series (barrier: "rank0_ns" ...) */
    double view_median_ns[4];
    int n_views;
    double window_initial_ns, window_final_ns, window_min_ns, window_max_ns;
    unsigned stages, widened, shrunk;
    unsigned window_restarts; /* times the samples were dropped after a large shrink */
    mpiscope_stop_reason_t stop_reason;
    unsigned unstable;          /* MPISCOPE_UNSTABLE_* bits, 0 if trusted */
    double elapsed_ns;          /* wall time of the point */
    size_t actual_bytes;        /* bytes per message actually moved (reductions round to elements) */
    size_t buffer_slots;        /* distinct buffer pairs rotated through (1: warm) */
    size_t buffer_region_bytes; /* memory they span; cold only if larger than the LLC */
    size_t validated_launches;  /* launches checked on every rank (spec.validate) */
    size_t validation_failures; /* rank-launches whose check failed, all ranks together */
    int first_mismatch_rank;    /* lowest rank with a failure, -1 if none */
    size_t first_mismatch_launch;
    char first_mismatch[256]; /* its message */
} mpiscope_point_result_t;

typedef struct mpiscope_context mpiscope_context_t;

/* Collective over comm: select the timer (all ranks of a node share the
 * node leader's TSC frequency), synchronize clocks, measure t_bcast.
 * params NULL: the defaults. The context duplicates comm and owns its
 * buffers and clock synchronization; free it with
 * mpiscope_context_destroy() (collective) before MPI_Finalize.
 * Returns 0, or the same code on every rank: MPISCOPE_EINVAL (out NULL),
 * MPISCOPE_ERANGE (a parameter out of range, see mpiscope_params_check),
 * MPISCOPE_ENOTIMER (the timer asked for is not available on some rank),
 * MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_context_create(MPI_Comm comm, const mpiscope_params_t *params, mpiscope_context_t **out);

/* Collective over the context's communicator: measure `op` for one point.
 * The result is complete on every participating rank; ranks outside the
 * point's communicator (spec->nprocs) return 0 with result->participated 0.
 * Returns 0 or: MPISCOPE_EINVAL (NULL argument, unknown method, or an
 * option value the op refused: mpiscope_context_last_error() says which),
 * MPISCOPE_ERANGE (root or nprocs out of range), MPISCOPE_ENOTSUP (the
 * method does not apply to the op, an arrival pattern with an unscheduled
 * method, or an MPI-4 call this MPI lacks), MPISCOPE_EMPI, MPISCOPE_ENOMEM.
 * A validation failure is not an error: see result->validation_failures. */
MPISCOPE_API int mpiscope_context_measure(mpiscope_context_t *ctx, const mpiscope_op_t *op,
                                          const mpiscope_point_spec_t *spec, mpiscope_point_result_t *result);

/* Collective: synchronize the clocks again (same algorithm and
 * parameters), e.g. before each point of a long run, where clocks of
 * different nodes drift by microseconds per second. Under SimGrid SMPI,
 * where every rank reads the one simulated clock and the context's sync
 * found every offset 0, it does nothing and counts no resync (the clock
 * sync is verified once; with an injected clock transform it runs). */
MPISCOPE_API int mpiscope_context_resync(mpiscope_context_t *ctx);

/* Why the last mpiscope_context_measure() failed, when an operation said
 * more than its error code (e.g. which option value it refused); "" else.
 * Not collective; rank 0's is the one to print. */
MPISCOPE_API const char *mpiscope_context_last_error(const mpiscope_context_t *ctx);

/* The synchronization the context made (owned by the context). */
MPISCOPE_API const mpiscope_clock_sync_t *mpiscope_context_sync(const mpiscope_context_t *ctx);
MPISCOPE_API const mpiscope_params_t *mpiscope_context_params(const mpiscope_context_t *ctx);

/* Collective: free everything. */
MPISCOPE_API void mpiscope_context_destroy(mpiscope_context_t *ctx);

/* The timing methods: "window" (default), "roundtime", "barrier",
 * "barrier-each", "none", "root", "max", "global", "bcast-supinski".
 * Descriptors are static (never freed). Not collective; callable before
 * MPI_Init. */
typedef struct mpiscope_method mpiscope_method_t;
/* The method named `name` (NULL: "window"); NULL if unknown. Look a method
 * up once and pass the handle in mpiscope_point_spec_t.method_handle. */
MPISCOPE_API const mpiscope_method_t *mpiscope_method_find(const char *name);
MPISCOPE_API const mpiscope_method_t *mpiscope_method_at(size_t index);             /* NULL past the end */
MPISCOPE_API const char *mpiscope_method_get_name(const mpiscope_method_t *method); /* NULL: NULL */
/* 1 if `method` can measure `op` (bcast-supinski: broadcasts only), else 0
 * (also for NULL arguments). */
MPISCOPE_API int mpiscope_method_applies_to(const mpiscope_method_t *method, const mpiscope_op_t *op);
/* By index and by name, as above. */
MPISCOPE_API size_t mpiscope_method_count(void);
MPISCOPE_API const char *mpiscope_method_name(size_t index);        /* NULL past the end */
MPISCOPE_API const char *mpiscope_method_description(size_t index); /* NULL past the end */
/* 1 if `method` (NULL: window) can measure `op`, else 0. */
MPISCOPE_API int mpiscope_method_applies(const char *method, const mpiscope_op_t *op);

/* Names for the result document. */
MPISCOPE_API const char *mpiscope_stop_reason_name(mpiscope_stop_reason_t reason);
MPISCOPE_API const char *mpiscope_stop_rule_name(mpiscope_stop_rule_t rule);
/* Name of the lowest set MPISCOPE_UNSTABLE_* bit of `bit`. */
MPISCOPE_API const char *mpiscope_unstable_reason_name(unsigned bit);

#ifdef __cplusplus
}
#endif
#endif
