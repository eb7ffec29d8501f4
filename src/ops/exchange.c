/* exchange.c: IMB's Exchange: the ranks form a ring; each sends one
 * message to its right and one to its left neighbor and receives one from
 * each. */
#include "p2p.h"

enum { TAG_RIGHTWARDS = 31, TAG_LEFTWARDS = 32 };

/* Block 0 goes right, block 1 left; receive block 0 comes from the left. */
static int exchange_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    int left = (ctx->rank + ctx->nprocs - 1) % ctx->nprocs, right = (ctx->rank + 1) % ctx->nprocs, rc;

    if ((rc = mpiscope__p2p_step(p)) != 0 || (rc = mpiscope__p2p_add(p, 0, right, TAG_RIGHTWARDS, 0, 0, 0)) != 0
        || (rc = mpiscope__p2p_add(p, 1, left, TAG_RIGHTWARDS, 0, 0, 0)) != 0
        || (rc = mpiscope__p2p_add(p, 0, left, TAG_LEFTWARDS, 1, 1, 0)) != 0)
        return rc;
    return mpiscope__p2p_add(p, 1, right, TAG_LEFTWARDS, 1, 1, 0);
}

static const mpiscope_op_option_t exchange_options[] = {
    MPISCOPE__OPT_MODE("nonblocking"),
    MPISCOPE__OPT_DATATYPE,
    MPISCOPE__OPT_END,
};

MPISCOPE__P2P_OP(exchange, exchange_plan, MPISCOPE_OP_USES_SIZE, exchange_options,
                 "exchange in a ring: every rank sends one message to each neighbor and receives one from each",
                 "bytes of each message (two sent and two received per rank)")
