/* p2p.h (internal to src/ops): the point-to-point family. An op is a plan
 * builder: in initialize it lists, for this rank, the steps of one launch,
 * each a set of messages (send or receive, peer, tag, buffer block). The
 * family runs a step in the `mode` option's way:
 *   blocking     in order, MPI_Send / MPI_Recv; a send followed by a
 *                receive is one MPI_Sendrecv
 *   nonblocking  MPI_Irecv for every receive, MPI_Isend for every send,
 *                MPI_Waitall
 *   synchronous  the same with MPI_Issend
 *   persistent   MPI_Send_init / MPI_Recv_init once (buffers fixed),
 *                MPI_Startall + MPI_Waitall per launch
 * and validates every data message (empty ones carry no data).
 *
 * The ops with a `pairs` option (pairs.h) build their plan for this rank's
 * partner, given in the plan (peer, first). With a schedule of several
 * rounds the family builds two plans, one per role, whose messages name
 * MPISCOPE__P2P_ROUND_PEER; each launch runs the plan of this rank's role
 * in round launch mod R with its partner of that round (persistent mode
 * binds a peer per request, so it takes one round only). */
#ifndef MPISCOPE_OPS_P2P_H
#define MPISCOPE_OPS_P2P_H

#include <stddef.h>
#include "layout.h"
#include "mpiscope/error.h"
#include "options.h"
#include "pairs.h"

typedef enum {
    MPISCOPE__P2P_BLOCKING,
    MPISCOPE__P2P_NONBLOCKING,
    MPISCOPE__P2P_SYNCHRONOUS,
    MPISCOPE__P2P_PERSISTENT
} mpiscope__p2p_mode_t;

enum { MPISCOPE__P2P_MAX_STEPS = 8 };

/* A message's peer that is the partner of the launch's round. */
enum { MPISCOPE__P2P_ROUND_PEER = -2 };

typedef struct mpiscope__p2p_msg {
    int peer, tag;
    int recv;             /* 1: receive into the receive buffer; 0: send from the send buffer */
    int empty;            /* 1: zero bytes (acknowledgments, empty replies) */
    size_t block;         /* message slot in that buffer */
    size_t pattern_block; /* the block number the data carries (see pattern.h) */
} mpiscope__p2p_msg_t;

/* One plan: the messages of one launch, in steps. */
typedef struct mpiscope__p2p {
    mpiscope__p2p_msg_t *msgs;
    size_t n_msgs, capacity;
    size_t step_end[MPISCOPE__P2P_MAX_STEPS]; /* step s: messages [step_end[s-1], step_end[s]) */
    size_t n_steps;
    MPI_Request *requests; /* [n_msgs] */
    size_t send_blocks, recv_blocks;
    /* for the builders of the pair ops: this rank's partner (a rank,
     * MPISCOPE__P2P_ROUND_PEER, or -1: idle, build nothing) and its role
     * (first: 1 for the rank that starts) */
    int peer, first;
} mpiscope__p2p_t;

/* An op's state: its plans and what they share. */
typedef struct mpiscope__p2p_state {
    MPI_Comm comm;
    mpiscope__layout_t layout;
    int mode;
    int large;               /* the MPI-4 _c calls: bytes, an MPI_Count each (MPISCOPE__P2P_LARGE_OP) */
    mpiscope__p2p_t plan[2]; /* plan[0] alone; with rounds, plan[first] for each role */
    int scheduled;           /* 1: rounds (pairs.rounds > 1) */
    mpiscope__pairs_t pairs; /* with rounds: this rank's partner and role per round */
} mpiscope__p2p_state_t;

typedef int (*mpiscope__p2p_build_t)(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *plan);

/* Plan builders: open a step, add a message to it. */
int mpiscope__p2p_step(mpiscope__p2p_t *plan);
int mpiscope__p2p_add(mpiscope__p2p_t *plan, int recv, int peer, int tag, size_t block, size_t pattern_block,
                      int empty);

/* The shared hooks. */
int mpiscope__p2p_initialize(mpiscope_op_ctx_t *ctx, mpiscope__p2p_build_t build);
int mpiscope__p2p_initialize_large(mpiscope_op_ctx_t *ctx, mpiscope__p2p_build_t build);
int mpiscope__p2p_execute(mpiscope_op_ctx_t *ctx);
int mpiscope__p2p_finalize(mpiscope_op_ctx_t *ctx);
int mpiscope__p2p_validate(mpiscope_op_ctx_t *ctx, int phase);

/* A descriptor made of a plan builder. */
#define MPISCOPE__P2P_OP(NAME, BUILD, FLAGS, OPTIONS, DESCRIPTION, SIZE_MEANING)                                       \
    static int NAME##_initialize(mpiscope_op_ctx_t *ctx)                                                               \
    {                                                                                                                  \
        return mpiscope__p2p_initialize(ctx, BUILD);                                                                   \
    }                                                                                                                  \
    const mpiscope_op_t mpiscope__op_##NAME = {                                                                        \
        .abi = MPISCOPE_OP_ABI,                                                                                        \
        .name = #NAME,                                                                                                 \
        .description = DESCRIPTION,                                                                                    \
        .size_meaning = SIZE_MEANING,                                                                                  \
        .flags = FLAGS,                                                                                                \
        .options = OPTIONS,                                                                                            \
        .initialize = NAME##_initialize,                                                                               \
        .execute = mpiscope__p2p_execute,                                                                              \
        .finalize = mpiscope__p2p_finalize,                                                                            \
        .validate = mpiscope__p2p_validate,                                                                            \
    };

/* The same with the large-count calls (MPI_Send_c ...): contiguous bytes,
 * one buffer pair for the point, the node's memory checked first. */
#define MPISCOPE__P2P_LARGE_OP(NAME, BUILD, FLAGS, OPTIONS, DESCRIPTION, SIZE_MEANING)                                 \
    static int NAME##_initialize(mpiscope_op_ctx_t *ctx)                                                               \
    {                                                                                                                  \
        return mpiscope__p2p_initialize_large(ctx, BUILD);                                                             \
    }                                                                                                                  \
    const mpiscope_op_t mpiscope__op_##NAME = {                                                                        \
        .abi = MPISCOPE_OP_ABI,                                                                                        \
        .name = #NAME,                                                                                                 \
        .description = DESCRIPTION,                                                                                    \
        .size_meaning = SIZE_MEANING,                                                                                  \
        .flags = (FLAGS) | MPISCOPE_OP_LARGE_COUNT,                                                                    \
        .options = OPTIONS,                                                                                            \
        .initialize = NAME##_initialize,                                                                               \
        .execute = mpiscope__p2p_execute,                                                                              \
        .finalize = mpiscope__p2p_finalize,                                                                            \
        .validate = mpiscope__p2p_validate,                                                                            \
    };

#endif
