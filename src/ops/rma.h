/* rma.h (internal to src/ops): the one-sided family. The first rank of a
 * pair (the `pairs` option) is the origin, the second the target whose
 * window holds one message. Options:
 *   sync  fence     every rank: MPI_Win_fence, the op, MPI_Win_fence
 *         pscw      origin MPI_Win_start/complete, target MPI_Win_post/wait
 *         lock      origin MPI_Win_lock(shared)/MPI_Win_unlock per launch
 *         lock_all  origin MPI_Win_lock_all for the whole point, the op
 *                   and MPI_Win_flush per launch
 *   win   create | allocate | dynamic: MPI_Win_create on the receive
 *         buffer, MPI_Win_allocate, MPI_Win_create_dynamic + attach
 * Buffers are fixed (the window binds them). Validation adds a barrier
 * before and after each launch so the target's window is written before
 * and read after the origin's access. */
#ifndef MPISCOPE_OPS_RMA_H
#define MPISCOPE_OPS_RMA_H

#include "layout.h"
#include "options.h"
#include "values.h"

enum { MPISCOPE__RMA_FENCE, MPISCOPE__RMA_PSCW, MPISCOPE__RMA_LOCK, MPISCOPE__RMA_LOCK_ALL };
enum {
    MPISCOPE__RMA_PUT,
    MPISCOPE__RMA_GET,
    MPISCOPE__RMA_ACCUMULATE,
    MPISCOPE__RMA_GET_ACCUMULATE,
    MPISCOPE__RMA_FETCH_AND_OP,
    MPISCOPE__RMA_COMPARE_AND_SWAP
};

typedef struct mpiscope__rma {
    int what; /* MPISCOPE__RMA_PUT ... */
    int sync; /* MPISCOPE__RMA_FENCE ... */
    int role; /* 1 origin, 0 target, -1 idle */
    int peer;
    MPI_Comm comm;
    MPI_Win win;
    MPI_Group peer_group; /* pscw: the partner */
    int epoch_open;       /* lock_all: the origin's epoch is open */
    void *memory;         /* the target's window memory */
    void *attached;       /* dynamic windows: what the target attached */
    size_t memory_bytes;
    MPI_Aint target_disp; /* where the target's message starts in its window */
    MPI_Datatype type;    /* message: a layout (put, get) or elements */
    int count;
    MPI_Op op;
    mpiscope__layout_t layout;
    mpiscope__values_t values;
} mpiscope__rma_t;

int mpiscope__rma_initialize(mpiscope_op_ctx_t *ctx, int what);
int mpiscope__rma_execute(mpiscope_op_ctx_t *ctx);
int mpiscope__rma_finalize(mpiscope_op_ctx_t *ctx);
int mpiscope__rma_validate(mpiscope_op_ctx_t *ctx, int phase);

/* The access itself, from the origin (rma_ops.c). */
int mpiscope__rma_access(const mpiscope__rma_t *r, const mpiscope_op_ctx_t *ctx);

#endif
