/* one_to_two.c: an application measuring MPIBlib's one-to-two pattern, the
 * experiment of the LMO communication model, as a user-defined operation
 * of libmpiscope (and, for comparison, the built-in "one_to_two").
 *
 * Rank 0 sends a message to ranks 1 and 2 at once (to rank 1 twice with 2
 * ranks); each answers with an empty message. The result document opens
 * with `mpiscope report`.
 *
 *   mpiexec -n 2 ./one_to_two [--validate] [RESULT.json]
 */
#include "example.h"

#include <stdlib.h>

enum { TAG_DATA = 1, TAG_ACK = 3 };

/* This rank's part, fixed for a measurement point. */
typedef struct one_to_two {
    int target[2];          /* who gets message 0 and message 1 */
    MPI_Request request[4]; /* the root's two sends and two answers */
} one_to_two_t;

static int o2t_initialize(mpiscope_op_ctx_t *ctx)
{
    one_to_two_t *s;
    int step = ctx->nprocs > 2 ? 2 : 1;

    if (ctx->nprocs < 2)
        return MPISCOPE_EINVAL;
    if (!(s = malloc(sizeof *s)))
        return MPISCOPE_ENOMEM;
    s->target[0] = (ctx->root + 1) % ctx->nprocs;
    s->target[1] = (ctx->root + step) % ctx->nprocs;
    ctx->state = s;
    /* the root sends two messages, a target receives up to two */
    return mpiscope_op_ctx_buffers(ctx, 2 * ctx->size_bytes, 2 * ctx->size_bytes);
}

static char *message(void *buffer, const mpiscope_op_ctx_t *ctx, int t)
{
    return (char *)buffer + (size_t)t * ctx->size_bytes;
}

/* One launch: exactly the communication, nothing else. */
static int o2t_execute(mpiscope_op_ctx_t *ctx)
{
    one_to_two_t *s = ctx->state;
    int n = (int)ctx->size_bytes, rc = MPI_SUCCESS;

    if (ctx->rank == ctx->root) {
        for (int t = 0; t < 2 && rc == MPI_SUCCESS; t++)
            rc = MPI_Irecv(ctx->recv, 0, MPI_BYTE, s->target[t], TAG_ACK + t, ctx->comm, &s->request[t]);
        for (int t = 0; t < 2 && rc == MPI_SUCCESS; t++)
            rc = MPI_Isend(message(ctx->send, ctx, t), n, MPI_BYTE, s->target[t], TAG_DATA + t, ctx->comm,
                           &s->request[2 + t]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(4, s->request, MPI_STATUSES_IGNORE);
        return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
    }
    for (int t = 0; t < 2 && rc == MPI_SUCCESS; t++)
        if (ctx->rank == s->target[t]) {
            rc = MPI_Recv(message(ctx->recv, ctx, t), n, MPI_BYTE, ctx->root, TAG_DATA + t, ctx->comm,
                          MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(ctx->send, 0, MPI_BYTE, ctx->root, TAG_ACK + t, ctx->comm);
        }
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

static int o2t_finalize(mpiscope_op_ctx_t *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
    return 0;
}

/* Byte i of message t in a launch: changes with the launch, never 0. */
static unsigned char expected(size_t launch, int t, size_t i)
{
    return (unsigned char)(1 + (launch * 7 + (size_t)t * 13 + i) % 251);
}

/* Validation (only with --validate, outside the timed region): the root
 * writes both messages, a target poisons its buffer before and checks
 * what it received after. */
static int o2t_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    one_to_two_t *s = ctx->state;

    for (int t = 0; t < 2; t++) {
        unsigned char *root_data = (unsigned char *)message(ctx->send, ctx, t);
        unsigned char *got = (unsigned char *)message(ctx->recv, ctx, t);
        int mine = ctx->rank == s->target[t];
        for (size_t i = 0; i < ctx->size_bytes; i++) {
            if (phase == MPISCOPE_VALIDATE_PREPARE && ctx->rank == ctx->root)
                root_data[i] = expected(ctx->launch, t, i);
            else if (phase == MPISCOPE_VALIDATE_PREPARE && mine)
                got[i] = 0;
            else if (phase == MPISCOPE_VALIDATE_CHECK && mine && got[i] != expected(ctx->launch, t, i))
                return mpiscope_op_ctx_mismatch(ctx, "rank %d: message %d byte %zu: got %u, want %u", ctx->rank, t, i,
                                                got[i], expected(ctx->launch, t, i));
        }
    }
    return 0;
}

static const mpiscope_op_t user_one_to_two = {
    .abi = MPISCOPE_OP_ABI,
    .name = "user_one_to_two",
    .description = "MPIBlib one-to-two, user-defined: rank 0 sends to ranks 1 and 2, each answers empty",
    .size_meaning = "bytes of each of the two messages",
    .flags = MPISCOPE_OP_USES_SIZE,
    .options = NULL,
    .initialize = o2t_initialize,
    .execute = o2t_execute,
    .finalize = o2t_finalize,
    .validate = o2t_validate,
};

int main(int argc, char **argv)
{
    const mpiscope_op_t *const ops[] = {&user_one_to_two, mpiscope_op_find("one_to_two")};
    return example_main(argc, argv, "one_to_two", ops, 2);
}
