/* rma.c: windows, synchronization and hooks of the one-sided family (rma.h). */
#include "rma.h"
#include "common.h"
#include "gather.h"
#include "pairs.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const mpiscope__choices_rma_sync[] = {"fence", "pscw", "lock", "lock_all", NULL};
const char *const mpiscope__choices_rma_win[] = {"create", "allocate", "dynamic", NULL};
enum { WIN_CREATE, WIN_ALLOCATE, WIN_DYNAMIC };

/* The message and its buffers: a layout for put/get, elements otherwise. */
static int set_message(mpiscope_op_ctx_t *ctx, mpiscope__rma_t *r)
{
    size_t elements = r->what == MPISCOPE__RMA_ACCUMULATE || r->what == MPISCOPE__RMA_GET_ACCUMULATE ? ctx->count : 1;
    int rc;

    if (r->what == MPISCOPE__RMA_PUT || r->what == MPISCOPE__RMA_GET) {
        if ((rc = mpiscope__layout_create(mpiscope_op_ctx_option(ctx, "datatype"), ctx->size_bytes, &r->layout)) != 0)
            return rc;
        r->type = r->layout.type;
        r->count = r->layout.count;
        r->memory_bytes = r->layout.span_bytes;
        ctx->actual_bytes = r->layout.payload_bytes;
        return mpiscope_op_ctx_buffers_fixed(ctx, r->memory_bytes, r->memory_bytes);
    }
    if (r->what == MPISCOPE__RMA_COMPARE_AND_SWAP) /* integers only: one int64_t, as OSU */
        rc = mpiscope__values_init(&r->values, MPI_INT64_T, sizeof(int64_t), MPI_OP_NULL, ctx->nprocs);
    else
        rc = mpiscope__values_init(&r->values, ctx->dtype, ctx->dtype_bytes, ctx->reduce_op, ctx->nprocs);
    if (rc || elements > (size_t)INT_MAX / r->values.bytes)
        return rc ? rc : MPISCOPE_ERANGE;
    r->type = r->what == MPISCOPE__RMA_COMPARE_AND_SWAP ? MPI_INT64_T : ctx->dtype;
    r->count = (int)elements;
    r->op = r->values.op;
    r->memory_bytes = elements * r->values.bytes;
    /* compare-and-swap sends the new value and the one to compare with */
    return mpiscope_op_ctx_buffers_fixed(ctx, 2 * r->memory_bytes, r->memory_bytes);
}

/* Every rank creates the window; only the target's has memory. */
static int create_window(mpiscope_op_ctx_t *ctx, mpiscope__rma_t *r, int kind)
{
    MPI_Aint size = r->role == 0 ? (MPI_Aint)r->memory_bytes : 0, address = 0, *addresses;
    int rc = MPI_SUCCESS;

    r->memory = ctx->recv;
    if (kind == WIN_CREATE)
        return mpiscope__ops_mpi(MPI_Win_create(ctx->recv, size, 1, MPI_INFO_NULL, r->comm, &r->win));
    if (kind == WIN_ALLOCATE)
        return mpiscope__ops_mpi(MPI_Win_allocate(size, 1, MPI_INFO_NULL, r->comm, &r->memory, &r->win));
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, r->comm, &r->win) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    if (r->role == 0) {
        if (MPI_Win_attach(r->win, ctx->recv, size ? size : 1) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
        r->attached = ctx->recv;
        if (MPI_Get_address(ctx->recv, &address) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    /* the origin addresses the target's attached memory by its address */
    if (!(addresses = malloc((size_t)ctx->nprocs * sizeof *addresses)))
        return MPISCOPE_ENOMEM;
    rc = mpiscope__allgather(&address, 1, MPI_AINT, addresses, r->comm);
    if (r->peer >= 0)
        r->target_disp = addresses[r->peer];
    free(addresses);
    return mpiscope__ops_mpi(rc);
}

static int open_point_epoch(mpiscope__rma_t *r)
{
    MPI_Group group;
    int rc;

    if (r->sync == MPISCOPE__RMA_PSCW && r->role >= 0) {
        if (MPI_Comm_group(r->comm, &group) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
        rc = MPI_Group_incl(group, 1, &r->peer, &r->peer_group);
        MPI_Group_free(&group);
        return mpiscope__ops_mpi(rc);
    }
    if (r->sync == MPISCOPE__RMA_LOCK_ALL && r->role == 1) {
        if (MPI_Win_lock_all(0, r->win) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
        r->epoch_open = 1;
    }
    return 0;
}

static int setup(mpiscope_op_ctx_t *ctx, mpiscope__rma_t *r)
{
    int kind, first, rc;

    if ((rc = mpiscope__option_choice(ctx, "sync", mpiscope__choices_rma_sync, &r->sync)) != 0
        || (rc = mpiscope__option_choice(ctx, "win", mpiscope__choices_rma_win, &kind)) != 0
        || (rc = mpiscope__pairs_peer(ctx, &r->peer, &first)) != 0 || (rc = set_message(ctx, r)) != 0)
        return rc;
    r->role = r->peer < 0 ? -1 : first;
    if ((rc = create_window(ctx, r, kind)) != 0)
        return rc;
    return open_point_epoch(r);
}

int mpiscope__rma_initialize(mpiscope_op_ctx_t *ctx, int what)
{
    mpiscope__rma_t *r = calloc(1, sizeof *r);
    int rc;

    if (!(ctx->state = r))
        return MPISCOPE_ENOMEM;
    *r = (mpiscope__rma_t){
        .what = what, .comm = ctx->comm, .win = MPI_WIN_NULL, .peer_group = MPI_GROUP_NULL, .op = MPI_OP_NULL};
    r->layout.type = MPI_BYTE;
    if ((rc = setup(ctx, r)) != 0)
        mpiscope__rma_finalize(ctx); /* the engine finalizes only what initialized */
    return rc;
}

static int open_epoch(const mpiscope__rma_t *r)
{
    switch (r->sync) {
    case MPISCOPE__RMA_FENCE:
        return MPI_Win_fence(0, r->win);
    case MPISCOPE__RMA_PSCW:
        if (r->role < 0)
            return MPI_SUCCESS;
        return r->role ? MPI_Win_start(r->peer_group, 0, r->win) : MPI_Win_post(r->peer_group, 0, r->win);
    case MPISCOPE__RMA_LOCK:
        return r->role == 1 ? MPI_Win_lock(MPI_LOCK_SHARED, r->peer, 0, r->win) : MPI_SUCCESS;
    default:
        return MPI_SUCCESS;
    }
}

static int close_epoch(const mpiscope__rma_t *r)
{
    switch (r->sync) {
    case MPISCOPE__RMA_FENCE:
        return MPI_Win_fence(0, r->win);
    case MPISCOPE__RMA_PSCW:
        if (r->role < 0)
            return MPI_SUCCESS;
        return r->role ? MPI_Win_complete(r->win) : MPI_Win_wait(r->win);
    case MPISCOPE__RMA_LOCK:
        return r->role == 1 ? MPI_Win_unlock(r->peer, r->win) : MPI_SUCCESS;
    default:
        return r->role == 1 ? MPI_Win_flush(r->peer, r->win) : MPI_SUCCESS;
    }
}

int mpiscope__rma_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__rma_t *r = ctx->state;
    int rc = open_epoch(r);

    if (rc == MPI_SUCCESS && r->role == 1)
        rc = mpiscope__rma_access(r, ctx);
    if (rc == MPI_SUCCESS)
        rc = close_epoch(r);
    return mpiscope__ops_mpi(rc);
}

int mpiscope__rma_finalize(mpiscope_op_ctx_t *ctx)
{
    mpiscope__rma_t *r = ctx->state;

    if (!r)
        return 0;
    if (r->epoch_open)
        MPI_Win_unlock_all(r->win);
    if (r->attached)
        MPI_Win_detach(r->win, r->attached);
    if (r->win != MPI_WIN_NULL)
        MPI_Win_free(&r->win);
    if (r->peer_group != MPI_GROUP_NULL)
        MPI_Group_free(&r->peer_group);
    mpiscope__layout_free(&r->layout);
    mpiscope__values_free(&r->values);
    free(r);
    ctx->state = NULL;
    return 0;
}
