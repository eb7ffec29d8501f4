/* mpiscope/check.h: can this machine be trusted? The machine check
 * (`mpiscope check`): every timer and every clock synchronization
 * measured, the numbers only (the verdicts are the front end's).
 *
 *   mpiscope_check_t *check;
 *   mpiscope_check_run(MPI_COMM_WORLD, NULL, 2.0, 0, &check);   // collective, ~4 s
 *   // open a result on a context, then:
 *   mpiscope_result_add_check(res, check);                      // the "check" section
 *   mpiscope_check_free(check);
 */
#ifndef MPISCOPE_CHECK_H
#define MPISCOPE_CHECK_H

#include <stddef.h>
#include <mpi.h>
#include "mpiscope/export.h"
#include "mpiscope/measure.h"
#include "mpiscope/result.h"
#include "mpiscope/sync.h"
#include "mpiscope/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MPISCOPE_CHECK_MAX_TIMERS = 4,                  /* tsc, monotonic, gettimeofday, wtime */
    MPISCOPE_CHECK_MAX_SYNCS = MPISCOPE_SYNC_COUNT, /* linear, ring, tree */
    MPISCOPE_CHECK_MAX_WAITPATTERNS = 3,            /* waitpattern_null, _up, _down */
    MPISCOPE_CHECK_STATE_RUNS = 16                  /* short runs of the states check */
};

/* A ground-truth operation (known true time) measured with one timer. */
typedef struct mpiscope_check_waitpattern {
    const char *op;                          /* "waitpattern_null", ... (static) */
    double expected_ns;                      /* its true time: 0, or 1000 ns x ranks */
    double median_ns, ci_low_ns, ci_high_ns; /* what the window method measured */
    double span_median_ns;                   /* global span (first start to last end) */
    double skew_median_ns;                   /* start skew between ranks */
} mpiscope_check_waitpattern_t;

/* One timer. Unless said otherwise a value is this rank's; rank 0's are
 * the ones a result document gets. */
typedef struct mpiscope_check_timer {
    mpiscope_timer_kind_t kind;
    int available;                      /* 1 if every rank could select it; else only
                                         kind and unavailable_error are set */
    int unavailable_error;              /* the lowest MPISCOPE_E* code over the ranks
                                         (MPISCOPE_ENOTIMER: not trustworthy here) */
    mpiscope_timer_info_t info;         /* source, invariant, frequency_hz, wtime_is_global */
    unsigned long reads;                /* consecutive reads made for the next three */
    unsigned long monotonic_violations; /* reads going backwards, all ranks together */
    double resolution_ns;               /* smallest non-zero step between two reads */
    double read_overhead_ns;            /* mean cost of one read */
    double frequency_error_ppm;         /* tsc: rate against CLOCK_MONOTONIC_RAW over 0.5 s,
                                         the worst rank's, signed; NAN for the other timers */
    mpiscope_check_waitpattern_t waitpatterns[MPISCOPE_CHECK_MAX_WAITPATTERNS];
    size_t n_waitpatterns;
} mpiscope_check_timer_t;

/* One clock synchronization algorithm, on the automatic timer. Residuals
 * are complete on rank 0 only. */
typedef struct mpiscope_check_sync {
    mpiscope_sync_algorithm_t algorithm;
    double duration_ns;               /* wall time of the synchronization, rank 0 */
    double max_abs_residual_ns;       /* largest |offset left| right after it */
    double after_seconds;             /* the wait before measuring again, s */
    double max_abs_residual_after_ns; /* the same after the wait */
    double drift_ppm;                 /* (after - before) / wait, ppm; NAN for a wait of 0 */
    unsigned long exchanges;          /* ping-pongs of the synchronization, all pairs */
    unsigned fitpoints;               /* fit points per pair (>= 2: drift fitted) */
    int max_hops;                     /* most pairwise steps from a rank to rank 0 */
    int nodes, node_shared;           /* as in mpiscope_clock_sync_t */
    double max_error_ns;              /* largest reported offset error bound */
    double max_drift_error_ppm;       /* largest reported drift bound (-1: not estimated) */
    double max_abs_drift_fitted_ppm;  /* largest |drift| the model estimated */
    int recovered;                    /* injected transform: 1 if every estimate is within
                                         its bound of the truth, 0 if not; -1: none injected */
    double max_offset_miss_ns;        /* largest |estimate - truth| of an offset (NAN: none) */
    double max_drift_miss_ppm;        /* and of a drift (NAN: none, or not estimated) */
} mpiscope_check_sync_t;

/* One short run of the states check: one point measured (1 MiB Bcast,
 * barrier-each, warm buffer), rank 0's statistics. */
typedef struct mpiscope_check_state_run {
    double at_ns;                     /* its start, ns after the first run's (rank 0) */
    double median_ns, q25_ns, q75_ns; /* of its valid launches; NAN if none */
    unsigned launches_valid;
} mpiscope_check_state_run_t;
typedef struct mpiscope_check {
    mpiscope_check_timer_t timers[MPISCOPE_CHECK_MAX_TIMERS];
    size_t n_timers;
    mpiscope_check_sync_t syncs[MPISCOPE_CHECK_MAX_SYNCS];
    size_t n_syncs;
    /* The machine's states: the same point measured in short runs spread
     * over some seconds; the front end groups them into modes. */
    const char *states_op;     /* "bcast" (static) */
    const char *states_method; /* "barrier-each" (static), warm buffer */
    size_t states_size_bytes;  /* 1 MiB */
    double states_gap_seconds; /* pause between two runs, s */
    mpiscope_check_state_run_t state_runs[MPISCOPE_CHECK_STATE_RUNS];
    size_t n_state_runs;
} mpiscope_check_t;

/* Collective over comm: for every timer, whether every rank can select it,
 * then 2,000,000 reads (monotonicity, resolution, cost), the TSC's rate,
 * and the three ground-truth operations measured with a context on it
 * (params: its measurement parameters, NULL: the defaults; its timer is
 * replaced by each one in turn). Then for every synchronization algorithm
 * (params' patience and cap): the residual right after it and after
 * waiting drift_seconds (>= 0, in seconds). Then the states check: a 1 MiB
 * Bcast measured in MPISCOPE_CHECK_STATE_RUNS short runs 0.25 s apart (each
 * at most 0.5 s). Takes about 1 s per timer plus twice drift_seconds plus
 * 4 to 12 s. The process-wide timer is left at the automatic
 * one. `flags` must be 0. *out is allocated here and freed with
 * mpiscope_check_free(). A timer that is not available is a finding, not
 * an error. Returns 0, or: MPISCOPE_EINVAL (out NULL, flags not 0,
 * drift_seconds negative or not finite), MPISCOPE_ERANGE (a parameter out
 * of range, see mpiscope_params_check), MPISCOPE_ENOTIMER (no automatic
 * timer), MPISCOPE_EMPI, MPISCOPE_ENOMEM; then *out is not set. */
MPISCOPE_API int mpiscope_check_run(MPI_Comm comm, const mpiscope_params_t *params, double drift_seconds,
                                    unsigned flags, mpiscope_check_t **out);

/* Free what mpiscope_check_run() made (NULL is ignored). Not collective. */
MPISCOPE_API void mpiscope_check_free(mpiscope_check_t *check);

/* Write `check` into the document as its "check" section (schema 1.1,
 * docs/result-schema.md); it is on disk after mpiscope_result_close().
 * The values are copied. Call on every rank: not collective, rank 0's
 * counts. Returns 0, MPISCOPE_EINVAL (NULL argument, or the document
 * has its check already), MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_result_add_check(mpiscope_result_t *res, const mpiscope_check_t *check);

#ifdef __cplusplus
}
#endif
#endif
