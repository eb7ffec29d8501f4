/* rma_validate.c: the validate hook of the one-sided family. Before a
 * launch the origin writes its data and poisons its result buffer, the
 * target writes its window (poison for put, its own data otherwise);
 * after it the origin checks what it fetched, the target its window.
 * Barriers around the launch order the target's accesses with the
 * origin's. Compare-and-swap swaps on even launches only. */
#include "rma.h"
#include "common.h"
#include "pattern.h"

#include <string.h>

/* The target reads and writes its own window inside a shared lock when the
 * origin uses passive synchronization. */
static int local_access(const mpiscope__rma_t *r, int rank, int begin)
{
    if (r->sync != MPISCOPE__RMA_LOCK && r->sync != MPISCOPE__RMA_LOCK_ALL)
        return 0;
    if (!begin)
        return mpiscope__ops_mpi(MPI_Win_unlock(rank, r->win));
    return mpiscope__ops_mpi(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, r->win));
}

static void prepare_origin(const mpiscope__rma_t *r, const mpiscope_op_ctx_t *ctx)
{
    unsigned char *send = ctx->send;

    memset(ctx->recv, MPISCOPE__POISON, r->memory_bytes);
    if (r->what == MPISCOPE__RMA_PUT)
        mpiscope__pattern_fill(send, &r->layout, ctx->rank, 0, ctx->launch);
    else if (r->what == MPISCOPE__RMA_COMPARE_AND_SWAP) { /* equal (a swap) on even launches */
        int64_t target_value = mpiscope__values_at(&r->values, r->peer, 0, ctx->launch);
        mpiscope__values_store(&r->values, send, mpiscope__values_at(&r->values, ctx->rank, 0, ctx->launch));
        mpiscope__values_store(&r->values, send + r->memory_bytes, target_value + (int64_t)(ctx->launch % 2));
    } else if (r->what != MPISCOPE__RMA_GET)
        mpiscope__values_fill(&r->values, send, 0, (size_t)r->count, ctx->rank, ctx->launch);
}

static void prepare_target(const mpiscope__rma_t *r, const mpiscope_op_ctx_t *ctx)
{
    if (r->what == MPISCOPE__RMA_PUT && r->memory_bytes) /* MPI_Win_allocate may give NULL for 0 bytes */
        memset(r->memory, MPISCOPE__POISON, r->memory_bytes);
    else if (r->what == MPISCOPE__RMA_GET)
        mpiscope__pattern_fill(r->memory, &r->layout, ctx->rank, 0, ctx->launch);
    else
        mpiscope__values_fill(&r->values, r->memory, 0, (size_t)r->count, ctx->rank, ctx->launch);
}

/* What the origin fetched: the target's data as it was before the access. */
static int check_origin(mpiscope__rma_t *r, mpiscope_op_ctx_t *ctx)
{
    if (r->what == MPISCOPE__RMA_GET)
        return mpiscope__pattern_check(ctx, ctx->recv, &r->layout, r->peer, 0, "fetched message", 0);
    if (r->what == MPISCOPE__RMA_PUT || r->what == MPISCOPE__RMA_ACCUMULATE)
        return 0;
    return mpiscope__values_check(&r->values, ctx, ctx->recv, 0, (size_t)r->count, &r->peer, 1, "fetched");
}

static int check_target(mpiscope__rma_t *r, mpiscope_op_ctx_t *ctx)
{
    int both[2] = {ctx->rank, r->peer};
    int swapped = ctx->launch % 2 == 0;

    switch (r->what) {
    case MPISCOPE__RMA_PUT:
        return mpiscope__pattern_check(ctx, r->memory, &r->layout, r->peer, 0, "window", 0);
    case MPISCOPE__RMA_GET:
        return 0;
    case MPISCOPE__RMA_COMPARE_AND_SWAP:
        return mpiscope__values_check(&r->values, ctx, r->memory, 0, 1, swapped ? &r->peer : &ctx->rank, 1, "window");
    default:
        return mpiscope__values_check(&r->values, ctx, r->memory, 0, (size_t)r->count, both, 2, "window");
    }
}

static int on_target(mpiscope__rma_t *r, mpiscope_op_ctx_t *ctx, int phase)
{
    int rc = local_access(r, ctx->rank, 1), check_rc = 0;

    if (rc)
        return rc;
    if (phase == MPISCOPE_VALIDATE_PREPARE)
        prepare_target(r, ctx);
    else
        check_rc = check_target(r, ctx);
    rc = local_access(r, ctx->rank, 0);
    return check_rc ? check_rc : rc;
}

int mpiscope__rma_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    mpiscope__rma_t *r = ctx->state;
    int rc = 0;

    if (phase == MPISCOPE_VALIDATE_CHECK && MPI_Barrier(r->comm) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    if (r->role == 0)
        rc = on_target(r, ctx, phase);
    else if (r->role == 1 && phase == MPISCOPE_VALIDATE_PREPARE)
        prepare_origin(r, ctx);
    else if (r->role == 1)
        rc = check_origin(r, ctx);
    if (phase == MPISCOPE_VALIDATE_PREPARE && MPI_Barrier(r->comm) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return rc;
}
