/* reduce_local.c: MPI_Reduce_local of ctx->count elements of ctx->dtype
 * with ctx->reduce_op on every rank, no communication: the per-byte
 * reduction cost (gamma) of the Allreduce predictions is its time over
 * the size. The receive buffer is the in-out operand; validation fills
 * the two operands as if they came from two ranks and checks their
 * reduction. */
#include "common.h"
#include "options.h"
#include "values.h"

#include <limits.h>
#include <stdlib.h>

static int reduce_local_finalize(mpiscope_op_ctx_t *ctx)
{
    mpiscope__values_t *v = ctx->state;

    if (v) {
        mpiscope__values_free(v);
        free(v);
        ctx->state = NULL;
    }
    return 0;
}

static int reduce_local_initialize(mpiscope_op_ctx_t *ctx)
{
    mpiscope__values_t *v = calloc(1, sizeof *v);
    size_t bytes = ctx->count * ctx->dtype_bytes;
    int rc;

    if (!(ctx->state = v))
        return MPISCOPE_ENOMEM;
    if (ctx->count > (size_t)INT_MAX)
        rc = MPISCOPE_ERANGE;
    else if ((rc = mpiscope__values_init(v, ctx->dtype, ctx->dtype_bytes, ctx->reduce_op, 2)) == 0)
        rc = mpiscope_op_ctx_buffers(ctx, bytes, bytes);
    if (rc)
        reduce_local_finalize(ctx); /* the engine finalizes only what initialized */
    return rc;
}

static int reduce_local_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(MPI_Reduce_local(ctx->send, ctx->recv, (int)ctx->count, ctx->dtype, ctx->reduce_op));
}

/* The operands as the contributions of ranks 0 (send) and 1 (recv). */
static int reduce_local_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    static const int operands[] = {0, 1};
    mpiscope__values_t *v = ctx->state;

    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        mpiscope__values_fill(v, ctx->send, 0, ctx->count, 0, ctx->launch);
        mpiscope__values_fill(v, ctx->recv, 0, ctx->count, 1, ctx->launch);
        return 0;
    }
    return mpiscope__values_check(v, ctx, ctx->recv, 0, ctx->count, operands, 2, "reduced element");
}

static const mpiscope_op_option_t reduce_local_options[] = {
    MPISCOPE__OPT_DTYPE,
    MPISCOPE__OPT_REDUCE_OP,
    MPISCOPE__OPT_END,
};

const mpiscope_op_t mpiscope__op_reduce_local = {
    .abi = MPISCOPE_OP_ABI,
    .name = "reduce_local",
    .description = "MPI_Reduce_local of the vector into a second one on every rank, no communication "
                   "(each rank's time over the size: the reduction cost gamma per byte)",
    .size_meaning = "bytes of each of the two vectors",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION,
    .options = reduce_local_options,
    .initialize = reduce_local_initialize,
    .execute = reduce_local_execute,
    .finalize = reduce_local_finalize,
    .validate = reduce_local_validate,
};
