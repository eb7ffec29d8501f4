/* pingpong.c: latency between pairs of ranks. pingpong: the first rank of
 * a pair sends, the second answers with a message of the same size;
 * multi_lat: the same on every pair at once (pairs=all); roundtrip:
 * MPIBlib's round trip, the answer is empty (size 0: the empty round trip
 * of the LMO model); pingping: both send to each other at once. A launch
 * is one round trip or one simultaneous exchange. */
#include "p2p.h"

enum { TAG_PING = 11, TAG_PONG = 12 };

/* The first rank sends block 0, the second answers with its block 1
 * (nothing when empty_reply). */
static int exchange_with_reply(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p, int empty_reply)
{
    int peer = p->peer, first = p->first, rc;

    if (peer == -1)
        return 0; /* idle */
    if ((rc = mpiscope__p2p_step(p)) != 0 || (rc = mpiscope__p2p_add(p, !first, peer, TAG_PING, 0, 0, 0)) != 0
        || (rc = mpiscope__p2p_step(p)) != 0)
        return rc;
    return mpiscope__p2p_add(p, first, peer, TAG_PONG, 0, 1, empty_reply);
}

static int pingpong_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    return exchange_with_reply(ctx, p, 0);
}

static int roundtrip_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    return exchange_with_reply(ctx, p, 1);
}

static int pingping_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    int peer = p->peer, rc;

    if (peer == -1)
        return 0; /* idle */
    if ((rc = mpiscope__p2p_step(p)) != 0 || (rc = mpiscope__p2p_add(p, 0, peer, TAG_PING, 0, 0, 0)) != 0)
        return rc;
    return mpiscope__p2p_add(p, 1, peer, TAG_PING, 0, 0, 0);
}

static const mpiscope_op_option_t pair_options[] = {
    MPISCOPE__OPT_MODE("blocking"),
    MPISCOPE__OPT_PAIRS("0-1"),
    MPISCOPE__OPT_DATATYPE,
    MPISCOPE__OPT_END,
};
static const mpiscope_op_option_t all_pairs_options[] = {
    MPISCOPE__OPT_MODE("blocking"),
    MPISCOPE__OPT_PAIRS("all"),
    MPISCOPE__OPT_DATATYPE,
    MPISCOPE__OPT_END,
};

MPISCOPE__P2P_OP(pingpong, pingpong_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, pair_options,
                 "ping-pong latency: a message to the partner and one back (time: the round trip)",
                 "bytes of each message (one each way)")
MPISCOPE__P2P_OP(multi_lat, pingpong_plan, MPISCOPE_OP_USES_SIZE, all_pairs_options,
                 "multi-pair latency: ping-pong on every pair at once (time: the slowest round trip)",
                 "bytes of each message (one each way per pair)")
MPISCOPE__P2P_OP(roundtrip, roundtrip_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, pair_options,
                 "MPIBlib round trip: a message to the partner, an empty one back (size 0: the empty round trip)",
                 "bytes of the message sent; the answer is empty")
MPISCOPE__P2P_OP(pingping, pingping_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, pair_options,
                 "ping-ping: both ranks of a pair send to each other at once", "bytes of each message (one each way)")

static const mpiscope_op_option_t large_options[] = {
    MPISCOPE__OPT_MODE("blocking"),
    MPISCOPE__OPT_PAIRS("0-1"),
    MPISCOPE__OPT_END,
};
MPISCOPE__P2P_LARGE_OP(pingpong_c, pingpong_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, large_options,
                       "ping-pong with the MPI-4 large-count calls (MPI_Send_c, MPI_Recv_c ...: MPI_Count "
                       "counts, beyond 2^31 - 1 bytes where memory allows): a message to the partner and one "
                       "back (time: the round trip)",
                       "bytes of each message (one each way)")
