/* mpiscope/sync.h: a global clock from the local ones (MPIPerf section 3).
 *
 * Each rank i estimates its offset o_i to rank 0 of the communicator so
 * that global time = local time + o_i. The pairwise step is a ping-pong
 * that keeps the exchange with the minimum round-trip time and stops when
 * that minimum has not improved for `patience` exchanges (or at a cap). */
#ifndef MPISCOPE_SYNC_H
#define MPISCOPE_SYNC_H

#include "mpiscope/export.h"
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpiscope_sync_algorithm {
    MPISCOPE_SYNC_LINEAR = 0, /* rank 0 syncs with 1..n-1 in turn: O(n) time */
    MPISCOPE_SYNC_RING        /* i syncs with i-1, offsets summed along the ring: errors add up */
} mpiscope_sync_algorithm_t;

typedef struct mpiscope_sync_params {
    mpiscope_sync_algorithm_t algorithm;
    unsigned patience;       /* stop after this many exchanges without a smaller RTT (100) */
    unsigned max_exchanges;  /* cap per pair, so a noisy link cannot run forever (5000) */
} mpiscope_sync_params_t;

/* Defaults: linear, patience 100, cap 5000. Not collective. */
MPISCOPE_API void mpiscope_sync_params_default(mpiscope_sync_params_t *params);

/* "linear" or "ring": 0, else MPISCOPE_EINVAL. Not collective. */
MPISCOPE_API int mpiscope_sync_parse(const char *text, mpiscope_sync_algorithm_t *algorithm);
/* "linear" or "ring" (a static string). */
MPISCOPE_API const char *mpiscope_sync_algorithm_name(mpiscope_sync_algorithm_t algorithm);

/* The outcome of a synchronisation. Per-rank arrays are complete on rank 0
 * of the communicator; other ranks hold only their own entry at [rank]. */
typedef struct mpiscope_clock_sync {
    mpiscope_sync_algorithm_t algorithm;
    int nprocs;
    int rank;
    double offset_ns;          /* this rank's offset: global = local + offset_ns */
    double *offsets_ns;        /* [nprocs] */
    double *rtt_min_ns;        /* [nprocs] best round trip to the rank's sync partner */
    double *residual_ns;       /* [nprocs] offset left, measured again after sync (0 for rank 0) */
    double duration_ns;        /* wall time of the synchronisation on rank 0 */
    unsigned long exchanges;   /* ping-pongs made by all pairs together */
} mpiscope_clock_sync_t;

/* Synchronise the clocks of `comm` (collective) with the process-wide timer
 * (mpiscope_timer_init first), then measure the residual of every rank
 * against rank 0 with the synchronised clocks. *out is freed with
 * mpiscope_clock_sync_free(). Returns 0, MPISCOPE_ENOMEM, MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_clock_sync_run(MPI_Comm comm, const mpiscope_sync_params_t *params,
                                         mpiscope_clock_sync_t **out);

/* Measure again, now, what offset is left on each rank (collective); on
 * rank 0 residual_ns[nprocs] receives it (others may pass NULL). A growing
 * residual is clock drift since the synchronisation. */
MPISCOPE_API int mpiscope_clock_sync_verify(MPI_Comm comm, const mpiscope_clock_sync_t *sync,
                                            double *residual_ns);

/* The largest |residual| over the ranks: the precision of the global
 * clock. Complete on rank 0 only (others know their own residual). */
MPISCOPE_API double mpiscope_clock_sync_max_residual_ns(const mpiscope_clock_sync_t *sync);

/* The current time on the global clock of `sync` (not collective). */
MPISCOPE_API double mpiscope_clock_sync_now_ns(const mpiscope_clock_sync_t *sync);

/* Free what mpiscope_clock_sync_run() made (NULL is ignored). Not
 * collective. Never for the context's own (mpiscope_context_sync()). */
MPISCOPE_API void mpiscope_clock_sync_free(mpiscope_clock_sync_t *sync);

#ifdef __cplusplus
}
#endif
#endif
