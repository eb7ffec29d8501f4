/* scatter.c: MPI_Scatter and MPI_Scatterv (equal counts). The root sends
 * block i of its buffer to rank i. */
#include "common.h"

static int scatter_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_byte_buffers(ctx, mpiscope__ops_at_root(ctx, (size_t)ctx->nprocs), 1);
}

static int scatter_execute(mpiscope_op_ctx_t *ctx)
{
    int n = (int)ctx->size_bytes;
    return mpiscope__ops_mpi(MPI_Scatter(ctx->send, n, MPI_BYTE, ctx->recv, n, MPI_BYTE, ctx->root, ctx->comm));
}

static int scatterv_initialize(mpiscope_op_ctx_t *ctx)
{
    int rc = scatter_initialize(ctx);
    return rc ? rc : mpiscope__ops_vectors_create(ctx, ctx->size_bytes, 0);
}

static int scatterv_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__ops_vectors_t *v = ctx->state;
    return mpiscope__ops_mpi(MPI_Scatterv(ctx->send, v->counts, v->displs, MPI_BYTE, ctx->recv,
                                          (int)ctx->size_bytes, MPI_BYTE, ctx->root, ctx->comm));
}

const mpiscope_op_t mpiscope__op_scatter = {
    .name = "scatter",
    .description = "MPI_Scatter: the root sends a different message to every rank",
    .size_meaning = "bytes sent by the root to each rank",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT,
    .options = mpiscope__ops_root_options,
    .initialize = scatter_initialize,
    .execute = scatter_execute,
    .finalize = mpiscope__ops_nothing,
};

const mpiscope_op_t mpiscope__op_scatterv = {
    .name = "scatterv",
    .description = "MPI_Scatterv with equal counts: the root sends a different message to every rank",
    .size_meaning = "bytes sent by the root to each rank",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT,
    .options = mpiscope__ops_root_options,
    .initialize = scatterv_initialize,
    .execute = scatterv_execute,
    .finalize = mpiscope__ops_vectors_free,
};
