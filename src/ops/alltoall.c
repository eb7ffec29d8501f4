/* alltoall.c: MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw (equal counts,
 * MPI_BYTE for every peer). Block i of the send buffer goes to rank i;
 * block i of the receive buffer comes from rank i. */
#include "common.h"

static int alltoall_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_byte_buffers(ctx, (size_t)ctx->nprocs, (size_t)ctx->nprocs);
}

static int alltoall_execute(mpiscope_op_ctx_t *ctx)
{
    int n = (int)ctx->size_bytes;
    return mpiscope__ops_mpi(MPI_Alltoall(ctx->send, n, MPI_BYTE, ctx->recv, n, MPI_BYTE, ctx->comm));
}

static int alltoallv_initialize(mpiscope_op_ctx_t *ctx)
{
    int rc = alltoall_initialize(ctx);
    return rc ? rc : mpiscope__ops_vectors_create(ctx, ctx->size_bytes, 0);
}

static int alltoallv_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__ops_vectors_t *v = ctx->state;
    return mpiscope__ops_mpi(MPI_Alltoallv(ctx->send, v->counts, v->displs, MPI_BYTE, ctx->recv, v->counts,
                                           v->displs, MPI_BYTE, ctx->comm));
}

/* With MPI_BYTE types, alltoallw's byte displacements equal the counts'. */
static int alltoallw_initialize(mpiscope_op_ctx_t *ctx)
{
    int rc = alltoall_initialize(ctx);
    return rc ? rc : mpiscope__ops_vectors_create(ctx, ctx->size_bytes, 1);
}

static int alltoallw_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__ops_vectors_t *v = ctx->state;
    return mpiscope__ops_mpi(MPI_Alltoallw(ctx->send, v->counts, v->displs, v->types, ctx->recv, v->counts,
                                           v->displs, v->types, ctx->comm));
}

const mpiscope_op_t mpiscope__op_alltoall = {
    .name = "alltoall",
    .description = "MPI_Alltoall: every rank sends a different message to every rank",
    .size_meaning = "bytes each rank sends to each rank (itself included)",
    .flags = MPISCOPE_OP_USES_SIZE,
    .options = NULL,
    .initialize = alltoall_initialize,
    .execute = alltoall_execute,
    .finalize = mpiscope__ops_nothing,
};

const mpiscope_op_t mpiscope__op_alltoallv = {
    .name = "alltoallv",
    .description = "MPI_Alltoallv with equal counts: every rank sends a different message to every rank",
    .size_meaning = "bytes each rank sends to each rank (itself included)",
    .flags = MPISCOPE_OP_USES_SIZE,
    .options = NULL,
    .initialize = alltoallv_initialize,
    .execute = alltoallv_execute,
    .finalize = mpiscope__ops_vectors_free,
};

const mpiscope_op_t mpiscope__op_alltoallw = {
    .name = "alltoallw",
    .description = "MPI_Alltoallw with equal counts and MPI_BYTE for every peer",
    .size_meaning = "bytes each rank sends to each rank (itself included)",
    .flags = MPISCOPE_OP_USES_SIZE,
    .options = NULL,
    .initialize = alltoallw_initialize,
    .execute = alltoallw_execute,
    .finalize = mpiscope__ops_vectors_free,
};
