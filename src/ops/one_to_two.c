/* one_to_two.c: MPIBlib's one-to-two experiment (LMO model): the root
 * sends one message to each of the next two ranks at once, each answers
 * with an empty message. With 2 ranks both messages go to rank 1, which
 * takes and answers them one after the other. */
#include "p2p.h"

enum { TAG_DATA = 41, TAG_ACK = 43 };

static int target_plan(mpiscope__p2p_t *p, int root, int t)
{
    int rc = mpiscope__p2p_step(p);

    if (rc || (rc = mpiscope__p2p_add(p, 1, root, TAG_DATA + t, (size_t)t, (size_t)t, 0)) != 0
        || (rc = mpiscope__p2p_step(p)) != 0)
        return rc;
    return mpiscope__p2p_add(p, 0, root, TAG_ACK + t, 0, 0, 1);
}

/* The root sends its block t to target t and takes both answers, all in
 * one step: the answers' receives are posted with the sends, so that no
 * mode can deadlock when both messages go to the same rank. */
static int one_to_two_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    int step = ctx->nprocs > 2 ? 2 : 1, rc = 0;
    int target[2] = {(ctx->root + 1) % ctx->nprocs, (ctx->root + step) % ctx->nprocs};

    if (ctx->nprocs < 2)
        return MPISCOPE_EINVAL;
    if (ctx->rank != ctx->root) {
        for (int t = 0; !rc && t < 2; t++)
            if (ctx->rank == target[t])
                rc = target_plan(p, ctx->root, t);
        return rc;
    }
    if ((rc = mpiscope__p2p_step(p)) != 0)
        return rc;
    for (int t = 0; !rc && t < 2; t++)
        rc = mpiscope__p2p_add(p, 0, target[t], TAG_DATA + t, (size_t)t, (size_t)t, 0);
    for (int t = 0; !rc && t < 2; t++)
        rc = mpiscope__p2p_add(p, 1, target[t], TAG_ACK + t, 0, 0, 1);
    return rc;
}

static const mpiscope_op_option_t one_to_two_options[] = {
    MPISCOPE__OPT_MODE("nonblocking"),
    MPISCOPE__OPT_ROOT,
    MPISCOPE__OPT_DATATYPE,
    MPISCOPE__OPT_END,
};

MPISCOPE__P2P_OP(one_to_two, one_to_two_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_PAIRS,
                 one_to_two_options,
                 "MPIBlib one-to-two: the root sends a message to each of ranks root+1 and root+2, each "
                 "answers with an empty one",
                 "bytes of each of the two messages")
