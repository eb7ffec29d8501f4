/* scan.c: MPI_Scan and MPI_Exscan of ctx->count elements of ctx->dtype
 * with ctx->reduce_op. */
#include "common.h"

static int scan_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_element_buffers(ctx, 1, 1);
}

static int scan_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(
        MPI_Scan(ctx->send, ctx->recv, (int)ctx->count, ctx->dtype, ctx->reduce_op, ctx->comm));
}

static int exscan_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(
        MPI_Exscan(ctx->send, ctx->recv, (int)ctx->count, ctx->dtype, ctx->reduce_op, ctx->comm));
}

const mpiscope_op_t mpiscope__op_scan = {
    .name = "scan",
    .description = "MPI_Scan: rank i receives the reduction of the vectors of ranks 0..i",
    .size_meaning = "bytes of the reduced vector",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION,
    .options = mpiscope__ops_reduction_options,
    .initialize = scan_initialize,
    .execute = scan_execute,
    .finalize = mpiscope__ops_nothing,
};

const mpiscope_op_t mpiscope__op_exscan = {
    .name = "exscan",
    .description = "MPI_Exscan: rank i receives the reduction of the vectors of ranks 0..i-1",
    .size_meaning = "bytes of the reduced vector",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION,
    .options = mpiscope__ops_reduction_options,
    .initialize = scan_initialize,
    .execute = exscan_execute,
    .finalize = mpiscope__ops_nothing,
};
