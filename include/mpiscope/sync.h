/* mpiscope/sync.h: a global clock from the local ones (MPIPerf section 3,
 * with ReproMPI's drift regression and a tree; docs/clock-sync.md).
 *
 * Each rank i estimates a linear model of rank 0's clock (the global one):
 * global = local + offset_ns + drift_ppm 1e-6 (local - t_ref_ns). The
 * pairwise step is a ping-pong that keeps the exchange with the minimum
 * round-trip time and stops when that minimum has not improved for
 * `patience` exchanges (or at a cap); `fitpoints` such steps spread in
 * time give the drift by least squares. Ranks of one node that read one
 * counter share a clock: once verified, only node leaders synchronize. */
#ifndef MPISCOPE_SYNC_H
#define MPISCOPE_SYNC_H

#include "mpiscope/export.h"
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpiscope_sync_algorithm {
    MPISCOPE_SYNC_LINEAR = 0, /* rank 0 syncs with 1..n-1 in turn: O(n) time, one hop */
    MPISCOPE_SYNC_RING,       /* i syncs with i-1, models composed along the ring: errors add up */
    MPISCOPE_SYNC_TREE,       /* binomial tree: O(log n) rounds, errors add over log n hops */
    MPISCOPE_SYNC_COUNT
} mpiscope_sync_algorithm_t;

/* The longest clock transform spec a plan may give (mpiscope/timer.h). */
#define MPISCOPE_CLOCK_TRANSFORM_MAX 256

typedef struct mpiscope_sync_params {
    mpiscope_sync_algorithm_t algorithm;
    unsigned patience;      /* stop after this many exchanges without a smaller RTT (100) */
    unsigned max_exchanges; /* cap per pair, so a noisy link cannot run forever (5000) */
    unsigned fitpoints;     /* minimum-RTT steps per pair, spread in time (1: offset only) */
    double fit_gap_ns;      /* wait between two fit points (1e7 ns) */
    unsigned node_leaders;  /* 1: verify node-shared clocks, sync node leaders only (1) */
    double resync_seconds;  /* re-sync before a point when the last is this old (0: never) */
    /* injected clock transform of every rank (mpiscope_clock_transform_parse;
     * "" none; the context also reads MPISCOPE_CLOCK_TRANSFORM when empty) */
    char clock_transform[MPISCOPE_CLOCK_TRANSFORM_MAX];
} mpiscope_sync_params_t;

/* Defaults: linear, patience 100, cap 5000, 1 fit point 10 ms apart, node
 * leaders on, no re-sync, no transform. Not collective. */
MPISCOPE_API void mpiscope_sync_params_default(mpiscope_sync_params_t *params);

/* "linear", "ring" or "tree": 0, else MPISCOPE_EINVAL. Not collective. */
MPISCOPE_API int mpiscope_sync_parse(const char *text, mpiscope_sync_algorithm_t *algorithm);
/* "linear", "ring" or "tree" (a static string). */
MPISCOPE_API const char *mpiscope_sync_algorithm_name(mpiscope_sync_algorithm_t algorithm);

/* The outcome of a synchronization. Per-rank arrays are complete on rank 0
 * of the communicator; other ranks hold only their own entry at [rank] of
 * offsets_ns, rtt_min_ns and residual_ns, and NULL for the other arrays
 * (this rank's own values are in the scalar fields). */
typedef struct mpiscope_clock_sync {
    mpiscope_sync_algorithm_t algorithm;
    int nprocs;
    int rank;
    double offset_ns;         /* this rank's offset at t_ref_ns: global = local + offset_ns + ... */
    double drift_ppm;         /* ... + drift_ppm 1e-6 (local - t_ref_ns) */
    double t_ref_ns;          /* this rank's reference time (local clock) */
    double error_ns;          /* this rank's error bound at t_ref_ns (worst case, hops added) */
    double drift_error_ppm;   /* this rank's drift bound; -1: drift not estimated (1 fit point) */
    double *offsets_ns;       /* [nprocs] offset_ns of each rank */
    double *drifts_ppm;       /* [nprocs] */
    double *t_refs_ns;        /* [nprocs] */
    double *errors_ns;        /* [nprocs] */
    double *drift_errors_ppm; /* [nprocs] */
    int *hops;                /* [nprocs] pairwise steps from the rank to rank 0 */
    double *rtt_min_ns;       /* [nprocs] best round trip to the rank's sync partner */
    double *residual_ns;      /* [nprocs] offset left, measured again after sync (0 for rank 0) */
    double *node_residual_ns; /* [nprocs] offset to the node leader, measured, when node_shared */
    double duration_ns;       /* wall time of the synchronization on rank 0 (verification excluded) */
    unsigned long exchanges;  /* ping-pongs made by all pairs together (node verification included) */
    unsigned fitpoints;       /* fit points per pair */
    int nodes;                /* nodes (MPI_COMM_TYPE_SHARED groups) */
    int node_shared;          /* 1: node clocks verified shared, only node leaders synchronized */
    int transformed;          /* 1: an injected clock transform was in effect on some rank */
    double *true_offsets_ns;  /* [nprocs] with a transform: the true offset at each t_ref (else NULL) */
    double *true_drifts_ppm;  /* [nprocs] and the true drift */
} mpiscope_clock_sync_t;

/* Synchronize the clocks of `comm` (collective) with the process-wide timer
 * (mpiscope_timer_init first), then measure the residual of every rank
 * against rank 0 with the synchronized clocks (a verification round of
 * patience min(30, params->patience): a check, not a fit). *out is freed
 * with mpiscope_clock_sync_free(). Returns 0, MPISCOPE_ENOMEM,
 * MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_clock_sync_run(MPI_Comm comm, const mpiscope_sync_params_t *params,
                                         mpiscope_clock_sync_t **out);

/* Measure again, now, what offset is left on each rank (collective; a
 * round of patience 30); on rank 0 residual_ns[nprocs] receives it
 * (others may pass NULL). A growing residual is clock drift since the
 * synchronization. */
MPISCOPE_API int mpiscope_clock_sync_verify(MPI_Comm comm, const mpiscope_clock_sync_t *sync, double *residual_ns);

/* The largest |residual| over the ranks: the precision of the global
 * clock. Complete on rank 0 only (others know their own residual). */
MPISCOPE_API double mpiscope_clock_sync_max_residual_ns(const mpiscope_clock_sync_t *sync);

/* The current time on the global clock of `sync` (not collective). */
MPISCOPE_API double mpiscope_clock_sync_now_ns(const mpiscope_clock_sync_t *sync);

/* This rank's local time `local_ns` on the global clock, and back (not
 * collective). */
MPISCOPE_API double mpiscope_clock_sync_global_ns(const mpiscope_clock_sync_t *sync, double local_ns);
MPISCOPE_API double mpiscope_clock_sync_local_ns(const mpiscope_clock_sync_t *sync, double global_ns);

/* Complete on rank 0: 1 if every rank's estimate is within its reported
 * error of the injected truth (offset, and drift when estimated), 0 if
 * not, -1 without a transform. */
MPISCOPE_API int mpiscope_clock_sync_recovered(const mpiscope_clock_sync_t *sync);

/* Free what mpiscope_clock_sync_run() made (NULL is ignored). Not
 * collective. Never for the context's own (mpiscope_context_sync()). */
MPISCOPE_API void mpiscope_clock_sync_free(mpiscope_clock_sync_t *sync);

#ifdef __cplusplus
}
#endif
#endif
