/* topology.h (internal to src/ops): the process topology of the
 * neighborhood collectives, from their options:
 *   graph=PATH   a graph file (below) -> MPI_Dist_graph_create_adjacent
 *   otherwise    a Cartesian grid of `dims` dimensions (MPI_Dims_create),
 *                periodic if periodic=1 -> MPI_Cart_create
 * Graph file: one line per rank that sends, "RANK: DEST DEST ...", the
 * rank's out-neighbors in order (repeats allowed); '#' starts a comment;
 * ranks not listed send to nobody. Every rank reads the whole file (it must
 * be readable at the same path everywhere); a rank outside the
 * communicator is an error. Ranks are not reordered. */
#ifndef MPISCOPE_OPS_TOPOLOGY_H
#define MPISCOPE_OPS_TOPOLOGY_H

#include "mpiscope/op.h"

typedef struct mpiscope__topology {
    MPI_Comm comm; /* ours; freed by mpiscope__topology_free */
    int in_degree, out_degree;
    int *sources;      /* [in_degree]: the rank receive block j comes from, MPI_PROC_NULL: none */
    int *source_block; /* [in_degree]: which of that rank's send blocks it is */
} mpiscope__topology_t;

/* Collective over ctx->comm. MPISCOPE_EINVAL (bad option or graph file),
 * MPISCOPE_EIO (file unreadable), MPISCOPE_ENOMEM, MPISCOPE_EMPI. */
int mpiscope__topology_create(const mpiscope_op_ctx_t *ctx, mpiscope__topology_t *topology);

/* Collective: free the communicator and arrays (safe on a zeroed one). */
void mpiscope__topology_free(mpiscope__topology_t *topology);

#endif
