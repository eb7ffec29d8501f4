/* sync_internal.h (internal): the MPI side of clock synchronization, split
 * by concern: pairwise rounds of each algorithm (sync_rounds.c), node
 * leaders (sync_node.c), the public API and results (sync.c). */
#ifndef MPISCOPE_SYNC_INTERNAL_H
#define MPISCOPE_SYNC_INTERNAL_H

#include <mpi.h>
#include "mpiscope/sync.h"
#include "sync_math.h"

enum { MPISCOPE__SYNC_TAG = 7411, MPISCOPE__SYNC_MAX_FITPOINTS = 64 };

/* What one rank learned as a client of its partner. */
typedef struct mpiscope__pair_fit {
    mpiscope__fit_point_t pts[MPISCOPE__SYNC_MAX_FITPOINTS];
    unsigned n;              /* fit points so far */
    double rtt_min_ns;       /* best round trip over them (0: no partner) */
    unsigned long exchanges; /* ping-pongs this rank made as a client */
} mpiscope__pair_fit_t;

/* This rank's model of rank 0's clock, from the public fields of `sync`. */
void mpiscope__sync_model(const mpiscope_clock_sync_t *sync, mpiscope__clock_model_t *m);

/* One minimum-RTT step of client and server; clocks read through the
 * models (NULL: the local clock). The client appends a fit point. */
void mpiscope__sync_serve(MPI_Comm comm, int client, const mpiscope__clock_model_t *shift);
void mpiscope__sync_ping(MPI_Comm comm, int server, const mpiscope__clock_model_t *shift,
                         const mpiscope_sync_params_t *p, mpiscope__pair_fit_t *fit);

/* Collective over comm: one step of every rank > 0 with rank 0, in turn. */
void mpiscope__sync_linear_round(MPI_Comm comm, const mpiscope__clock_model_t *shift, const mpiscope_sync_params_t *p,
                                 mpiscope__pair_fit_t *fit);

/* Collective over comm: `fitpoints` rounds of `algorithm`, fit_gap_ns
 * apart, then the model of this rank's clock to rank 0's in *model (the
 * algorithm's composition: one hop, along the ring, down the tree). */
int mpiscope__sync_models(MPI_Comm comm, const mpiscope_sync_params_t *p, double read_error_ns,
                          mpiscope__clock_model_t *model, mpiscope__pair_fit_t *fit);

/* Collective over comm: models for every rank, through node leaders when
 * every node's ranks are verified to share one clock (p->node_leaders).
 * *node_residual_ns: this rank's measured offset to its leader (0 for a
 * leader); *nodes, *shared: as in mpiscope_clock_sync_t. */
int mpiscope__sync_with_leaders(MPI_Comm comm, const mpiscope_sync_params_t *p, double read_error_ns,
                                mpiscope__clock_model_t *model, mpiscope__pair_fit_t *fit, double *node_residual_ns,
                                int *nodes, int *shared);

#endif
