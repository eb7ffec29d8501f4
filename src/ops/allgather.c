/* allgather.c: MPI_Allgather and MPI_Allgatherv (equal counts). Every rank
 * receives all blocks in rank order. */
#include "common.h"

static int allgather_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_byte_buffers(ctx, 1, (size_t)ctx->nprocs);
}

static int allgather_execute(mpiscope_op_ctx_t *ctx)
{
    int n = (int)ctx->size_bytes;
    return mpiscope__ops_mpi(MPI_Allgather(ctx->send, n, MPI_BYTE, ctx->recv, n, MPI_BYTE, ctx->comm));
}

static int allgatherv_initialize(mpiscope_op_ctx_t *ctx)
{
    int rc = allgather_initialize(ctx);
    return rc ? rc : mpiscope__ops_vectors_create(ctx, ctx->size_bytes, 0);
}

static int allgatherv_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__ops_vectors_t *v = ctx->state;
    return mpiscope__ops_mpi(MPI_Allgatherv(ctx->send, (int)ctx->size_bytes, MPI_BYTE, ctx->recv, v->counts,
                                            v->displs, MPI_BYTE, ctx->comm));
}

const mpiscope_op_t mpiscope__op_allgather = {
    .name = "allgather",
    .description = "MPI_Allgather: every rank sends one message to every rank",
    .size_meaning = "bytes each rank contributes (each rank receives nprocs times that)",
    .flags = MPISCOPE_OP_USES_SIZE,
    .options = NULL,
    .initialize = allgather_initialize,
    .execute = allgather_execute,
    .finalize = mpiscope__ops_nothing,
};

const mpiscope_op_t mpiscope__op_allgatherv = {
    .name = "allgatherv",
    .description = "MPI_Allgatherv with equal counts: every rank sends one message to every rank",
    .size_meaning = "bytes each rank contributes (each rank receives nprocs times that)",
    .flags = MPISCOPE_OP_USES_SIZE,
    .options = NULL,
    .initialize = allgatherv_initialize,
    .execute = allgatherv_execute,
    .finalize = mpiscope__ops_vectors_free,
};
