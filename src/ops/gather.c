/* gather.c: MPI_Gather and MPI_Gatherv (equal counts). The root receives
 * the blocks in rank order. */
#include "common.h"

static int gather_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_byte_buffers(ctx, 1, mpiscope__ops_at_root(ctx, (size_t)ctx->nprocs));
}

static int gather_execute(mpiscope_op_ctx_t *ctx)
{
    int n = (int)ctx->size_bytes;
    return mpiscope__ops_mpi(MPI_Gather(ctx->send, n, MPI_BYTE, ctx->recv, n, MPI_BYTE, ctx->root, ctx->comm));
}

static int gatherv_initialize(mpiscope_op_ctx_t *ctx)
{
    int rc = gather_initialize(ctx);
    return rc ? rc : mpiscope__ops_vectors_create(ctx, ctx->size_bytes, 0);
}

static int gatherv_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__ops_vectors_t *v = ctx->state;
    return mpiscope__ops_mpi(MPI_Gatherv(ctx->send, (int)ctx->size_bytes, MPI_BYTE, ctx->recv, v->counts,
                                         v->displs, MPI_BYTE, ctx->root, ctx->comm));
}

const mpiscope_op_t mpiscope__op_gather = {
    .name = "gather",
    .description = "MPI_Gather: every rank sends one message to the root",
    .size_meaning = "bytes each rank sends to the root",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT,
    .options = mpiscope__ops_root_options,
    .initialize = gather_initialize,
    .execute = gather_execute,
    .finalize = mpiscope__ops_nothing,
};

const mpiscope_op_t mpiscope__op_gatherv = {
    .name = "gatherv",
    .description = "MPI_Gatherv with equal counts: every rank sends one message to the root",
    .size_meaning = "bytes each rank sends to the root",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT,
    .options = mpiscope__ops_root_options,
    .initialize = gatherv_initialize,
    .execute = gatherv_execute,
    .finalize = mpiscope__ops_vectors_free,
};
