/* bcast.c: MPI_Bcast. Its one buffer is ctx->send on every rank: the root
 * sends from it, the others receive into it. */
#include "common.h"

static int bcast_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_byte_buffers(ctx, 1, 0);
}

static int bcast_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(MPI_Bcast(ctx->send, (int)ctx->size_bytes, MPI_BYTE, ctx->root, ctx->comm));
}

const mpiscope_op_t mpiscope__op_bcast = {
    .name = "bcast",
    .description = "MPI_Bcast: the root sends one message to every rank",
    .size_meaning = "bytes broadcast by the root",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT,
    .options = mpiscope__ops_root_options,
    .initialize = bcast_initialize,
    .execute = bcast_execute,
    .finalize = mpiscope__ops_nothing,
};
