/* common.h (internal to src/ops): what every built-in op family shares.
 * The families: coll.h (collectives, nonblocking, persistent,
 * neighborhood, MPIBlib's linear ones), p2p.h (point-to-point), rma.h
 * (one-sided), waitpattern.c (ground truth); their parts: layout.h (the
 * datatype option), pattern.h and values.h (validation data), options.h,
 * pairs.h, topology.h. */
#ifndef MPISCOPE_OPS_COMMON_H
#define MPISCOPE_OPS_COMMON_H

#include <stddef.h>
#include "mpiscope/error.h"
#include "mpiscope/op.h"

/* Around a large-count (_c) call: the _c call where the MPI
 * library has it (CMake: MPISCOPE_HAVE_LARGE_COUNT); else initialize
 * refuses the point with one line before any call. */
#ifdef MPISCOPE_HAVE_LARGE_COUNT
#define MPISCOPE__LARGE(call) (call)
#else
#define MPISCOPE__LARGE(call) MPI_ERR_UNSUPPORTED_OPERATION
#endif

/* The refusal of a large-count op where the MPI library has no _c calls. */
int mpiscope__ops_large_refused(mpiscope_op_ctx_t *ctx);

/* Collective over ctx->comm: refuse the point (MPISCOPE_ENOMEM, one line
 * naming the host) when the buffers the ranks of a node ask for, `bytes`
 * on this rank, exceed what the node has available (MemAvailable, less a
 * tenth kept for MPI and the system); otherwise note the figures. */
int mpiscope__ops_memory_check(mpiscope_op_ctx_t *ctx, size_t bytes);

/* An MPI return code as 0 or MPISCOPE_EMPI. */
static inline int mpiscope__ops_mpi(int mpi_rc)
{
    return mpi_rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

#endif
