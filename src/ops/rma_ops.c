/* rma_ops.c: the one-sided operations: the access each makes from the
 * origin, and their descriptors. */
#include "rma.h"

int mpiscope__rma_access(const mpiscope__rma_t *r, const mpiscope_op_ctx_t *ctx)
{
    const unsigned char *send = ctx->send;
    void *recv = ctx->recv;
    MPI_Aint at = r->target_disp;

    switch (r->what) {
    case MPISCOPE__RMA_PUT:
        return MPI_Put(send, r->count, r->type, r->peer, at, r->count, r->type, r->win);
    case MPISCOPE__RMA_GET:
        return MPI_Get(recv, r->count, r->type, r->peer, at, r->count, r->type, r->win);
    case MPISCOPE__RMA_ACCUMULATE:
        return MPI_Accumulate(send, r->count, r->type, r->peer, at, r->count, r->type, r->op, r->win);
    case MPISCOPE__RMA_GET_ACCUMULATE:
        return MPI_Get_accumulate(send, r->count, r->type, recv, r->count, r->type, r->peer, at, r->count, r->type,
                                  r->op, r->win);
    case MPISCOPE__RMA_FETCH_AND_OP:
        return MPI_Fetch_and_op(send, recv, r->type, r->peer, at, r->op, r->win);
    default: /* the new value, then the one to compare with */
        return MPI_Compare_and_swap(send, send + r->memory_bytes, recv, r->type, r->peer, at, r->win);
    }
}

#define SYNC_OPTION                                                                                                    \
    {.name = "sync",                                                                                                   \
     .default_value = "lock_all",                                                                                      \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = mpiscope__choices_rma_sync,                                                                            \
     .description = "fence, pscw (start/complete, post/wait), lock (lock/unlock per launch), "                         \
                    "lock_all (lock_all for the point, flush per launch)"}
#define WIN_OPTION                                                                                                     \
    {.name = "win",                                                                                                    \
     .default_value = "allocate",                                                                                      \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = mpiscope__choices_rma_win,                                                                             \
     .description = "window from MPI_Win_create, MPI_Win_allocate or MPI_Win_create_dynamic: create, "                 \
                    "allocate, dynamic"}
static const mpiscope_op_option_t move_options[] = {
    SYNC_OPTION, WIN_OPTION, MPISCOPE__OPT_PAIRS("0-1"), MPISCOPE__OPT_DATATYPE, MPISCOPE__OPT_END,
};
static const mpiscope_op_option_t reduce_options[] = {
    SYNC_OPTION,       WIN_OPTION, MPISCOPE__OPT_PAIRS("0-1"), MPISCOPE__OPT_DTYPE, MPISCOPE__OPT_REDUCE_OP,
    MPISCOPE__OPT_END,
};
static const mpiscope_op_option_t swap_options[] = {
    SYNC_OPTION,
    WIN_OPTION,
    MPISCOPE__OPT_PAIRS("0-1"),
    MPISCOPE__OPT_END,
};

#define RMA_OP(NAME, WHAT, FLAGS, OPTIONS, DESCRIPTION, SIZE_MEANING)                                                  \
    static int NAME##_initialize(mpiscope_op_ctx_t *ctx)                                                               \
    {                                                                                                                  \
        return mpiscope__rma_initialize(ctx, WHAT);                                                                    \
    }                                                                                                                  \
    const mpiscope_op_t mpiscope__op_##NAME = {                                                                        \
        .abi = MPISCOPE_OP_ABI,                                                                                        \
        .name = #NAME,                                                                                                 \
        .description = DESCRIPTION,                                                                                    \
        .size_meaning = SIZE_MEANING,                                                                                  \
        .flags = (FLAGS) | MPISCOPE_OP_PAIRS,                                                                          \
        .options = OPTIONS,                                                                                            \
        .initialize = NAME##_initialize,                                                                               \
        .execute = mpiscope__rma_execute,                                                                              \
        .finalize = mpiscope__rma_finalize,                                                                            \
        .validate = mpiscope__rma_validate,                                                                            \
    };

#define ELEMENTS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION)
RMA_OP(put, MPISCOPE__RMA_PUT, MPISCOPE_OP_USES_SIZE, move_options,
       "MPI_Put: the origin writes one message into the target's window, in an epoch of the sync option",
       "bytes written")
RMA_OP(get, MPISCOPE__RMA_GET, MPISCOPE_OP_USES_SIZE, move_options,
       "MPI_Get: the origin reads one message from the target's window", "bytes read")
RMA_OP(accumulate, MPISCOPE__RMA_ACCUMULATE, ELEMENTS, reduce_options,
       "MPI_Accumulate: the origin reduces a vector into the target's window", "bytes of the vector")
RMA_OP(get_accumulate, MPISCOPE__RMA_GET_ACCUMULATE, ELEMENTS, reduce_options,
       "MPI_Get_accumulate: as accumulate, and the origin receives the window's previous contents",
       "bytes of the vector")
RMA_OP(fetch_and_op, MPISCOPE__RMA_FETCH_AND_OP, MPISCOPE_OP_USES_REDUCTION, reduce_options,
       "MPI_Fetch_and_op: one element reduced into the target's window, the previous value fetched",
       "not used: one element of --dtype")
RMA_OP(compare_and_swap, MPISCOPE__RMA_COMPARE_AND_SWAP, 0, swap_options,
       "MPI_Compare_and_swap: one int64_t of the target's window replaced if equal to a given value",
       "not used: one int64_t")
