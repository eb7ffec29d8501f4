/* reduce_scatter.c: MPI_Reduce_scatter (equal counts) and
 * MPI_Reduce_scatter_block. Every rank contributes nprocs blocks of
 * ctx->count elements; rank i receives the reduction of the blocks i. */
#include "common.h"

static int reduce_scatter_block_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_element_buffers(ctx, (size_t)ctx->nprocs, 1);
}

static int reduce_scatter_block_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(MPI_Reduce_scatter_block(ctx->send, ctx->recv, (int)ctx->count, ctx->dtype,
                                                      ctx->reduce_op, ctx->comm));
}

static int reduce_scatter_initialize(mpiscope_op_ctx_t *ctx)
{
    int rc = reduce_scatter_block_initialize(ctx);
    return rc ? rc : mpiscope__ops_vectors_create(ctx, ctx->count, 0);
}

static int reduce_scatter_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__ops_vectors_t *v = ctx->state;
    return mpiscope__ops_mpi(
        MPI_Reduce_scatter(ctx->send, ctx->recv, v->counts, ctx->dtype, ctx->reduce_op, ctx->comm));
}

const mpiscope_op_t mpiscope__op_reduce_scatter = {
    .name = "reduce_scatter",
    .description = "MPI_Reduce_scatter with equal counts: a reduction whose result is split among the ranks",
    .size_meaning = "bytes of the reduced block each rank receives (each rank sends nprocs times that)",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION,
    .options = mpiscope__ops_reduction_options,
    .initialize = reduce_scatter_initialize,
    .execute = reduce_scatter_execute,
    .finalize = mpiscope__ops_vectors_free,
};

const mpiscope_op_t mpiscope__op_reduce_scatter_block = {
    .name = "reduce_scatter_block",
    .description = "MPI_Reduce_scatter_block: a reduction whose result is split in equal blocks among the ranks",
    .size_meaning = "bytes of the reduced block each rank receives (each rank sends nprocs times that)",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION,
    .options = mpiscope__ops_reduction_options,
    .initialize = reduce_scatter_block_initialize,
    .execute = reduce_scatter_block_execute,
    .finalize = mpiscope__ops_nothing,
};
