/* common.h (internal to src/ops): what the built-in op families share:
 * MPI return codes, buffers sized in whole messages, the per-rank arrays
 * of the v-variants, and the option lists. */
#ifndef MPISCOPE_OPS_COMMON_H
#define MPISCOPE_OPS_COMMON_H

#include <stddef.h>
#include "mpiscope/error.h"
#include "mpiscope/op.h"

/* An MPI return code as 0 or MPISCOPE_EMPI. */
static inline int mpiscope__ops_mpi(int mpi_rc)
{
    return mpi_rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

/* n on the root, 0 elsewhere: for buffers only the root uses. */
static inline size_t mpiscope__ops_at_root(const mpiscope_op_ctx_t *ctx, size_t n)
{
    return ctx->rank == ctx->root ? n : 0;
}

/* Ask for send and receive buffers of send_messages and recv_messages whole
 * messages. A message is ctx->size_bytes of MPI_BYTE (data movement) or
 * ctx->count elements of ctx->dtype (reductions). MPISCOPE_ERANGE if a
 * message does not fit an MPI count (int), else as mpiscope_op_ctx_buffers. */
int mpiscope__ops_byte_buffers(mpiscope_op_ctx_t *ctx, size_t send_messages, size_t recv_messages);
int mpiscope__ops_element_buffers(mpiscope_op_ctx_t *ctx, size_t send_messages, size_t recv_messages);

/* The per-rank arrays of the v-variants, kept in ctx->state: every rank
 * gets `count` units at displacement rank * count; types (alltoallw only)
 * are all MPI_BYTE, else NULL. */
typedef struct mpiscope__ops_vectors {
    int *counts;
    int *displs;
    MPI_Datatype *types;
} mpiscope__ops_vectors_t;

/* Build the arrays into ctx->state (left NULL on failure). MPISCOPE_ERANGE
 * if nprocs * count does not fit an int, MPISCOPE_ENOMEM. */
int mpiscope__ops_vectors_create(mpiscope_op_ctx_t *ctx, size_t count, int with_types);

/* A finalize hook: frees what mpiscope__ops_vectors_create built. */
int mpiscope__ops_vectors_free(mpiscope_op_ctx_t *ctx);

/* An initialize or finalize hook for ops with nothing to set up. */
int mpiscope__ops_nothing(mpiscope_op_ctx_t *ctx);

/* Option lists (ending with {NULL}) shared by the families. */
extern const mpiscope_op_option_t mpiscope__ops_root_options[];        /* root */
extern const mpiscope_op_option_t mpiscope__ops_reduction_options[];   /* dtype, op */
extern const mpiscope_op_option_t mpiscope__ops_root_reduction_options[]; /* root, dtype, op */

#endif
