/* bandwidth.c: bandwidth and message rate between pairs of ranks (OSU's
 * bw, bibw, mbw_mr). A launch moves `window` messages per direction and
 * pair: bw and mbw_mr from the first rank to the second, which then sends
 * an empty acknowledgment; bibw both ways at once. Bandwidth is
 * window x size / time per pair, the message rate window / time. */
#include "p2p.h"

enum { TAG_DATA = 21, TAG_ACK = 22, MAX_WINDOW = 4096 };

/* The sender sends block 0 `window` times; the receiver takes them into
 * blocks 0..window-1. */
static int bw_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    int peer = p->peer, first = p->first, rc;
    long window;

    if (peer == -1)
        return 0; /* idle */
    if ((rc = mpiscope__option_long(ctx, "window", 1, MAX_WINDOW, &window)) != 0 || (rc = mpiscope__p2p_step(p)) != 0)
        return rc;
    for (long j = 0; !rc && j < window; j++)
        rc = mpiscope__p2p_add(p, !first, peer, TAG_DATA, first ? 0 : (size_t)j, 0, 0);
    if (rc || (rc = mpiscope__p2p_step(p)) != 0)
        return rc;
    return mpiscope__p2p_add(p, first, peer, TAG_ACK, 0, 0, 1);
}

/* Both ranks: each send followed by a receive (one MPI_Sendrecv each when
 * blocking). */
static int bibw_plan(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    int peer = p->peer, rc;
    long window;

    if (peer == -1)
        return 0; /* idle */
    if ((rc = mpiscope__option_long(ctx, "window", 1, MAX_WINDOW, &window)) != 0 || (rc = mpiscope__p2p_step(p)) != 0)
        return rc;
    for (long j = 0; !rc && j < window; j++)
        if ((rc = mpiscope__p2p_add(p, 0, peer, TAG_DATA, 0, 0, 0)) == 0)
            rc = mpiscope__p2p_add(p, 1, peer, TAG_DATA, (size_t)j, 0, 0);
    return rc;
}

static const mpiscope_op_option_t pair_options[] = {
    MPISCOPE__OPT_MODE("nonblocking"),
    MPISCOPE__OPT_PAIRS("0-1"),
    MPISCOPE__OPT_WINDOW,
    MPISCOPE__OPT_DATATYPE,
    MPISCOPE__OPT_END,
};
static const mpiscope_op_option_t all_pairs_options[] = {
    MPISCOPE__OPT_MODE("nonblocking"),
    MPISCOPE__OPT_PAIRS("all"),
    MPISCOPE__OPT_WINDOW,
    MPISCOPE__OPT_DATATYPE,
    MPISCOPE__OPT_END,
};

#define SIZE_MEANING "bytes of each message (window messages per launch and direction)"
MPISCOPE__P2P_OP(bw, bw_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, pair_options,
                 "unidirectional bandwidth: a window of messages to the partner, then an empty acknowledgment",
                 SIZE_MEANING)
MPISCOPE__P2P_OP(bibw, bibw_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, pair_options,
                 "bidirectional bandwidth: both ranks of a pair send a window of messages at once", SIZE_MEANING)
MPISCOPE__P2P_OP(mbw_mr, bw_plan, MPISCOPE_OP_USES_SIZE, all_pairs_options,
                 "multi-pair bandwidth and message rate: bw on every pair at once", SIZE_MEANING)

static const mpiscope_op_option_t large_options[] = {
    MPISCOPE__OPT_MODE("nonblocking"),
    MPISCOPE__OPT_PAIRS("0-1"),
    {.name = "window",
     .default_value = "1",
     .unit = "messages",
     .type = "integer",
     .description = "messages in flight per launch (each one a receive buffer of its own)"},
    MPISCOPE__OPT_END,
};
MPISCOPE__P2P_LARGE_OP(bw_c, bw_plan, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS, large_options,
                       "unidirectional bandwidth with the MPI-4 large-count calls (MPI_Isend_c ...: beyond "
                       "2^31 - 1 bytes where memory allows): a window of messages to the partner, then an "
                       "empty acknowledgment",
                       SIZE_MEANING)
