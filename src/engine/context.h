/* context.h (internal): what a measurement context holds. */
#ifndef MPISCOPE_CONTEXT_H
#define MPISCOPE_CONTEXT_H

#include "mpiscope/measure.h"
#include "opctx.h"
#include "samples.h"

enum { MPISCOPE__MAX_SUBCOMMS = 64 };

struct mpiscope_context {
    MPI_Comm comm; /* a duplicate of the user's communicator */
    int rank, nprocs;
    mpiscope_params_t params; /* with t_bcast_ns and late_tolerance_ns resolved */
    mpiscope_timer_info_t timer;
    mpiscope_clock_sync_t *sync;
    unsigned resyncs;     /* synchronizations after the first */
    int one_clock;        /* every rank reads one clock, verified by the first sync
                             (a simulator's): no resync, no end-of-run check */
    double synced_at_ns;  /* local time of the last synchronization */
    char last_error[256]; /* see mpiscope_context_last_error() */
    mpiscope__buffer_pool_t *pool;
    int keep_raw;              /* keep per-launch samples of the last point (rank 0) */
    mpiscope__samples_t *last; /* rank 0: the last point's launches, for the result writer */
    int last_nprocs;
    /* rank 0: the last point's notes and the name of its parts (ops'
     * mpiscope_op_ctx_note, mpiscope_op_ctx_parts), for the result writer */
    size_t n_notes;
    char note_keys[MPISCOPE_OP_MAX_NOTES][32];
    char note_values[MPISCOPE_OP_MAX_NOTES][1024];
    char part_name[32];
    MPI_Comm subcomm[MPISCOPE__MAX_SUBCOMMS]; /* first-n-ranks communicators, by n */
    int subcomm_n[MPISCOPE__MAX_SUBCOMMS];
    int n_subcomms;
};

/* Collective, between points: synchronize again when the last sync is
 * params.sync.resync_seconds old (0: never). 0 or an MPISCOPE_E* code. */
int mpiscope__context_resync_if_due(mpiscope_context_t *ctx);

/* Rank 0, after a point: keep its op's notes and part name for the writer. */
void mpiscope__notes_keep(mpiscope_context_t *ctx, const mpiscope__op_engine_t *engine);

/* Keep raw per-launch samples of every point (for --raw). */
void mpiscope__context_keep_raw(mpiscope_context_t *ctx, int keep);

#endif
