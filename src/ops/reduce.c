/* reduce.c: MPI_Reduce and MPI_Allreduce of ctx->count elements of
 * ctx->dtype with ctx->reduce_op. */
#include "common.h"

static int reduce_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_element_buffers(ctx, 1, mpiscope__ops_at_root(ctx, 1));
}

static int reduce_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(MPI_Reduce(ctx->send, ctx->recv, (int)ctx->count, ctx->dtype, ctx->reduce_op,
                                        ctx->root, ctx->comm));
}

static int allreduce_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_element_buffers(ctx, 1, 1);
}

static int allreduce_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(
        MPI_Allreduce(ctx->send, ctx->recv, (int)ctx->count, ctx->dtype, ctx->reduce_op, ctx->comm));
}

const mpiscope_op_t mpiscope__op_reduce = {
    .name = "reduce",
    .description = "MPI_Reduce: the root receives the element-wise reduction of every rank's vector",
    .size_meaning = "bytes of the reduced vector",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_USES_REDUCTION,
    .options = mpiscope__ops_root_reduction_options,
    .initialize = reduce_initialize,
    .execute = reduce_execute,
    .finalize = mpiscope__ops_nothing,
};

const mpiscope_op_t mpiscope__op_allreduce = {
    .name = "allreduce",
    .description = "MPI_Allreduce: every rank receives the element-wise reduction of every rank's vector",
    .size_meaning = "bytes of the reduced vector",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION,
    .options = mpiscope__ops_reduction_options,
    .initialize = allreduce_initialize,
    .execute = allreduce_execute,
    .finalize = mpiscope__ops_nothing,
};
