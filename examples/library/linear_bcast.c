/* linear_bcast.c: an application measuring its own broadcast, written by
 * hand with point-to-point calls (the root sends the message to every
 * other rank in turn), as a user-defined operation of libmpiscope, next to
 * the library's MPI_Bcast. The result document opens with
 * `mpiscope report`.
 *
 *   mpiexec -n 2 ./linear_bcast [--validate] [RESULT.json]
 */
#include "example.h"

enum { TAG_BCAST = 7 };

/* One buffer on every rank (ctx->recv): the root sends from it. */
static int linear_bcast_initialize(mpiscope_op_ctx_t *ctx)
{
    return mpiscope_op_ctx_buffers(ctx, 0, ctx->size_bytes);
}

static int linear_bcast_execute(mpiscope_op_ctx_t *ctx)
{
    int n = (int)ctx->size_bytes, rc = MPI_SUCCESS;

    if (ctx->rank != ctx->root)
        rc = MPI_Recv(ctx->recv, n, MPI_BYTE, ctx->root, TAG_BCAST, ctx->comm, MPI_STATUS_IGNORE);
    for (int r = 0; ctx->rank == ctx->root && r < ctx->nprocs && rc == MPI_SUCCESS; r++)
        if (r != ctx->root)
            rc = MPI_Send(ctx->recv, n, MPI_BYTE, r, TAG_BCAST, ctx->comm);
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

static int nothing(mpiscope_op_ctx_t *ctx)
{
    (void)ctx;
    return 0;
}

/* Byte i of a launch's message: changes with the launch, never 0. */
static unsigned char expected(size_t launch, size_t i)
{
    return (unsigned char)(1 + (launch * 11 + i * 3) % 251);
}

/* The root writes the message, the others clear their buffer before the
 * launch and check it after. */
static int linear_bcast_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    unsigned char *buffer = ctx->recv;

    for (size_t i = 0; i < ctx->size_bytes; i++) {
        if (phase == MPISCOPE_VALIDATE_PREPARE)
            buffer[i] = ctx->rank == ctx->root ? expected(ctx->launch, i) : 0;
        else if (buffer[i] != expected(ctx->launch, i))
            return mpiscope_op_ctx_mismatch(ctx, "rank %d byte %zu: got %u, want %u", ctx->rank, i, buffer[i],
                                            expected(ctx->launch, i));
    }
    return 0;
}

static const mpiscope_op_t linear_bcast = {
    .abi = MPISCOPE_OP_ABI,
    .name = "user_linear_bcast",
    .description = "hand-written linear broadcast: the root sends to every rank in turn",
    .size_meaning = "bytes broadcast by the root",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT,
    .options = NULL,
    .initialize = linear_bcast_initialize,
    .execute = linear_bcast_execute,
    .finalize = nothing,
    .validate = linear_bcast_validate,
};

int main(int argc, char **argv)
{
    const mpiscope_op_t *const ops[] = {&linear_bcast, mpiscope_op_find("bcast")};
    return example_main(argc, argv, "linear_bcast", ops, 2);
}
