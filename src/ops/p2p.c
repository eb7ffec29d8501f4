/* p2p.c: the shared hooks of the point-to-point family (p2p.h). */
#include "p2p.h"
#include "common.h"
#include "opctx.h"
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

const char *const mpiscope__choices_p2p_mode[] = {"blocking", "nonblocking", "synchronous", "persistent", NULL};

int mpiscope__p2p_step(mpiscope__p2p_t *plan)
{
    if (plan->n_steps == MPISCOPE__P2P_MAX_STEPS)
        return MPISCOPE_ERANGE;
    plan->step_end[plan->n_steps++] = plan->n_msgs;
    return 0;
}

int mpiscope__p2p_add(mpiscope__p2p_t *plan, int recv, int peer, int tag, size_t block, size_t pattern_block, int empty)
{
    if (plan->n_steps == 0)
        return MPISCOPE_EINVAL; /* mpiscope__p2p_step() first */
    if (plan->n_msgs == plan->capacity) {
        size_t capacity = plan->capacity ? 2 * plan->capacity : 16;
        mpiscope__p2p_msg_t *msgs = realloc(plan->msgs, capacity * sizeof *msgs);
        if (!msgs)
            return MPISCOPE_ENOMEM;
        plan->msgs = msgs;
        plan->capacity = capacity;
    }
    plan->msgs[plan->n_msgs++] = (mpiscope__p2p_msg_t){
        .peer = peer, .tag = tag, .recv = recv, .empty = empty, .block = block, .pattern_block = pattern_block};
    plan->step_end[plan->n_steps - 1] = plan->n_msgs;
    if (!empty && recv && block >= plan->recv_blocks)
        plan->recv_blocks = block + 1;
    if (!empty && !recv && block >= plan->send_blocks)
        plan->send_blocks = block + 1;
    return 0;
}

/* Where message m's data is this launch, and how much of it. */
static void *msg_buffer(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m)
{
    return (unsigned char *)(m->recv ? ctx->recv : ctx->send) + m->block * s->layout.span_bytes;
}

static int msg_count(const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m)
{
    return m->empty ? 0 : s->layout.count;
}

#ifdef MPISCOPE_HAVE_LARGE_COUNT
/* A large-count op's message: its bytes as an MPI_Count. */
static MPI_Count msg_ccount(const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m)
{
    return m->empty ? 0 : (MPI_Count)s->layout.payload_bytes;
}
#endif

static MPI_Datatype msg_type(const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m)
{
    return m->empty ? MPI_BYTE : s->layout.type;
}

/* The message's peer in a launch whose round partner is `partner`. */
static int msg_peer(const mpiscope__p2p_msg_t *m, int partner)
{
    return m->peer == MPISCOPE__P2P_ROUND_PEER ? partner : m->peer;
}

static int make_persistent(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_state_t *s, mpiscope__p2p_t *p)
{
    for (size_t i = 0; i < p->n_msgs; i++) {
        const mpiscope__p2p_msg_t *m = &p->msgs[i];
        void *buf = msg_buffer(ctx, s, m);
        int rc;
        if (s->large)
            rc = m->recv ? MPISCOPE__LARGE(MPI_Recv_init_c(buf, msg_ccount(s, m), MPI_BYTE, m->peer, m->tag, s->comm,
                                                           &p->requests[i]))
                         : MPISCOPE__LARGE(MPI_Send_init_c(buf, msg_ccount(s, m), MPI_BYTE, m->peer, m->tag, s->comm,
                                                           &p->requests[i]));
        else
            rc = m->recv
                     ? MPI_Recv_init(buf, msg_count(s, m), msg_type(s, m), m->peer, m->tag, s->comm, &p->requests[i])
                     : MPI_Send_init(buf, msg_count(s, m), msg_type(s, m), m->peer, m->tag, s->comm, &p->requests[i]);
        if (rc != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    return 0;
}

/* Build one plan for (peer, first) and its request array. */
static int build_plan(mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p, mpiscope__p2p_build_t build, int peer, int first)
{
    int rc;

    p->peer = peer;
    p->first = first;
    if ((rc = build(ctx, p)) != 0)
        return rc;
    if (!(p->requests = malloc((p->n_msgs + 1) * sizeof *p->requests)))
        return MPISCOPE_ENOMEM;
    for (size_t i = 0; i < p->n_msgs; i++)
        p->requests[i] = MPI_REQUEST_NULL;
    return 0;
}

/* The plans: one for this rank's fixed partner (or none, for the ops
 * without a pairs option), or one per role when the pairs have rounds. */
static int build_plans(mpiscope_op_ctx_t *ctx, mpiscope__p2p_state_t *s, mpiscope__p2p_build_t build)
{
    int rc;

    if (!mpiscope_op_ctx_option(ctx, "pairs"))
        return build_plan(ctx, &s->plan[0], build, -1, 0);
    if ((rc = mpiscope__pairs_schedule(ctx, &s->pairs)) != 0)
        return rc;
    if (s->pairs.rounds == 1)
        return build_plan(ctx, &s->plan[0], build, s->pairs.peer[0], s->pairs.first[0]);
    if (s->mode == MPISCOPE__P2P_PERSISTENT)
        return mpiscope__op_ctx_bad_option_why(ctx, "mode",
                                               "a persistent request binds one peer, "
                                               "and the pairs have rounds");
    s->scheduled = 1;
    if ((rc = build_plan(ctx, &s->plan[0], build, MPISCOPE__P2P_ROUND_PEER, 0)) != 0)
        return rc;
    return build_plan(ctx, &s->plan[1], build, MPISCOPE__P2P_ROUND_PEER, 1);
}

static size_t larger(size_t a, size_t b)
{
    return a > b ? a : b;
}

static int setup(mpiscope_op_ctx_t *ctx, mpiscope__p2p_state_t *s, mpiscope__p2p_build_t build)
{
    size_t span, send, recv;
    int rc;

    if (s->large && mpiscope__ops_large_refused(ctx))
        return MPISCOPE_ENOTSUP;
    if (s->large)
        mpiscope__layout_large_bytes(ctx->size_bytes, &s->layout);
    if ((rc = mpiscope__option_choice(ctx, "mode", mpiscope__choices_p2p_mode, &s->mode)) != 0
        || (!s->large
            && (rc = mpiscope__layout_create(mpiscope_op_ctx_option(ctx, "datatype"), ctx->size_bytes, &s->layout)))
        || (rc = build_plans(ctx, s, build)) != 0)
        return rc;
    ctx->actual_bytes = s->layout.payload_bytes;
    span = s->layout.span_bytes;
    send = larger(s->plan[0].send_blocks, s->plan[1].send_blocks) * span;
    recv = larger(s->plan[0].recv_blocks, s->plan[1].recv_blocks) * span;
    if (s->large && (rc = mpiscope__ops_memory_check(ctx, send + recv)) != 0)
        return rc;
    rc = (s->mode == MPISCOPE__P2P_PERSISTENT || s->large ? mpiscope_op_ctx_buffers_fixed
                                                          : mpiscope_op_ctx_buffers)(ctx, send, recv);
    return rc || s->mode != MPISCOPE__P2P_PERSISTENT ? rc : make_persistent(ctx, s, &s->plan[0]);
}

static int initialize(mpiscope_op_ctx_t *ctx, mpiscope__p2p_build_t build, int large)
{
    mpiscope__p2p_state_t *s = calloc(1, sizeof *s);
    int rc;

    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    s->comm = ctx->comm;
    s->large = large;
    if ((rc = setup(ctx, s, build)) != 0)
        mpiscope__p2p_finalize(ctx); /* the engine finalizes only what initialized */
    return rc;
}

int mpiscope__p2p_initialize(mpiscope_op_ctx_t *ctx, mpiscope__p2p_build_t build)
{
    return initialize(ctx, build, 0);
}

int mpiscope__p2p_initialize_large(mpiscope_op_ctx_t *ctx, mpiscope__p2p_build_t build)
{
    return initialize(ctx, build, 1);
}

/* The plan of this launch and the partner of its round (NULL: idle). */
static mpiscope__p2p_t *launch_plan(const mpiscope_op_ctx_t *ctx, int *partner)
{
    mpiscope__p2p_state_t *s = ctx->state;
    size_t round;

    *partner = -1;
    if (!s->scheduled)
        return &s->plan[0];
    round = ctx->launch % (size_t)s->pairs.rounds;
    *partner = s->pairs.peer[round];
    return *partner < 0 ? NULL : &s->plan[s->pairs.first[round]];
}

static int send_now(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m,
                    int partner)
{
    if (s->large)
        return MPISCOPE__LARGE(
            MPI_Send_c(msg_buffer(ctx, s, m), msg_ccount(s, m), MPI_BYTE, msg_peer(m, partner), m->tag, s->comm));
    return MPI_Send(msg_buffer(ctx, s, m), msg_count(s, m), msg_type(s, m), msg_peer(m, partner), m->tag, s->comm);
}

static int recv_now(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m,
                    int partner)
{
    if (s->large)
        return MPISCOPE__LARGE(MPI_Recv_c(msg_buffer(ctx, s, m), msg_ccount(s, m), MPI_BYTE, msg_peer(m, partner),
                                          m->tag, s->comm, MPI_STATUS_IGNORE));
    return MPI_Recv(msg_buffer(ctx, s, m), msg_count(s, m), msg_type(s, m), msg_peer(m, partner), m->tag, s->comm,
                    MPI_STATUS_IGNORE);
}

static int sendrecv_now(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m,
                        const mpiscope__p2p_msg_t *r, int partner)
{
    if (s->large)
        return MPISCOPE__LARGE(MPI_Sendrecv_c(msg_buffer(ctx, s, m), msg_ccount(s, m), MPI_BYTE, msg_peer(m, partner),
                                              m->tag, msg_buffer(ctx, s, r), msg_ccount(s, r), MPI_BYTE,
                                              msg_peer(r, partner), r->tag, s->comm, MPI_STATUS_IGNORE));
    return MPI_Sendrecv(msg_buffer(ctx, s, m), msg_count(s, m), msg_type(s, m), msg_peer(m, partner), m->tag,
                        msg_buffer(ctx, s, r), msg_count(s, r), msg_type(s, r), msg_peer(r, partner), r->tag, s->comm,
                        MPI_STATUS_IGNORE);
}

/* MPI_Irecv, MPI_Isend or MPI_Issend of message m (the _c call for large counts). */
static int post(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_state_t *s, const mpiscope__p2p_msg_t *m, int partner,
                MPI_Request *r)
{
    void *buf = msg_buffer(ctx, s, m);
    int sync = s->mode == MPISCOPE__P2P_SYNCHRONOUS, peer = msg_peer(m, partner);
    if (s->large)
        return m->recv ? MPISCOPE__LARGE(MPI_Irecv_c(buf, msg_ccount(s, m), MPI_BYTE, peer, m->tag, s->comm, r))
               : sync  ? MPISCOPE__LARGE(MPI_Issend_c(buf, msg_ccount(s, m), MPI_BYTE, peer, m->tag, s->comm, r))
                       : MPISCOPE__LARGE(MPI_Isend_c(buf, msg_ccount(s, m), MPI_BYTE, peer, m->tag, s->comm, r));
    return m->recv ? MPI_Irecv(buf, msg_count(s, m), msg_type(s, m), peer, m->tag, s->comm, r)
           : sync  ? MPI_Issend(buf, msg_count(s, m), msg_type(s, m), peer, m->tag, s->comm, r)
                   : MPI_Isend(buf, msg_count(s, m), msg_type(s, m), peer, m->tag, s->comm, r);
}

static int run_blocking(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, size_t first, size_t end, int partner)
{
    const mpiscope__p2p_state_t *s = ctx->state;
    int rc = MPI_SUCCESS;

    for (size_t i = first; rc == MPI_SUCCESS && i < end; i++) {
        const mpiscope__p2p_msg_t *m = &p->msgs[i];
        if (!m->recv && i + 1 < end && p->msgs[i + 1].recv)
            rc = sendrecv_now(ctx, s, m, &p->msgs[++i], partner);
        else
            rc = m->recv ? recv_now(ctx, s, m, partner) : send_now(ctx, s, m, partner);
    }
    return rc;
}

/* Receives first, then sends (MPI_Issend in synchronous mode). */
static int run_nonblocking(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p, size_t first, size_t end, int partner)
{
    const mpiscope__p2p_state_t *s = ctx->state;
    MPI_Request *r = p->requests + first;
    int rc = MPI_SUCCESS, n = 0;

    for (size_t i = first; rc == MPI_SUCCESS && i < end; i++)
        if (p->msgs[i].recv)
            rc = post(ctx, s, &p->msgs[i], partner, &r[n++]);
    for (size_t i = first; rc == MPI_SUCCESS && i < end; i++)
        if (!p->msgs[i].recv)
            rc = post(ctx, s, &p->msgs[i], partner, &r[n++]);
    return rc == MPI_SUCCESS ? MPI_Waitall(n, r, MPI_STATUSES_IGNORE) : rc;
}

static int run_persistent(mpiscope__p2p_t *p, size_t first, size_t end)
{
    int n = (int)(end - first);
    int rc = MPI_Startall(n, p->requests + first);

    return rc == MPI_SUCCESS ? MPI_Waitall(n, p->requests + first, MPI_STATUSES_IGNORE) : rc;
}

int mpiscope__p2p_execute(mpiscope_op_ctx_t *ctx)
{
    const mpiscope__p2p_state_t *s = ctx->state;
    int partner, rc = MPI_SUCCESS;
    mpiscope__p2p_t *p = launch_plan(ctx, &partner);
    size_t first = 0;

    for (size_t k = 0; p && rc == MPI_SUCCESS && k < p->n_steps; first = p->step_end[k++]) {
        size_t end = p->step_end[k];
        if (s->mode == MPISCOPE__P2P_BLOCKING)
            rc = run_blocking(ctx, p, first, end, partner);
        else if (s->mode == MPISCOPE__P2P_PERSISTENT)
            rc = run_persistent(p, first, end);
        else
            rc = run_nonblocking(ctx, p, first, end, partner);
    }
    return mpiscope__ops_mpi(rc);
}

static void free_plan(mpiscope__p2p_t *p)
{
    for (size_t i = 0; p->requests && i < p->n_msgs; i++)
        if (p->requests[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&p->requests[i]);
    free(p->requests);
    free(p->msgs);
}

int mpiscope__p2p_finalize(mpiscope_op_ctx_t *ctx)
{
    mpiscope__p2p_state_t *s = ctx->state;

    if (!s)
        return 0;
    free_plan(&s->plan[0]);
    free_plan(&s->plan[1]);
    mpiscope__pairs_free(&s->pairs);
    mpiscope__layout_free(&s->layout);
    free(s);
    ctx->state = NULL;
    return 0;
}

int mpiscope__p2p_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    const mpiscope__p2p_state_t *s = ctx->state;
    int partner, rc = 0;
    const mpiscope__p2p_t *p = launch_plan(ctx, &partner);

    if (!p)
        return 0;
    if (phase == MPISCOPE_VALIDATE_PREPARE)
        memset(ctx->recv, MPISCOPE__POISON, p->recv_blocks * s->layout.span_bytes);
    for (size_t i = 0; !rc && i < p->n_msgs; i++) {
        const mpiscope__p2p_msg_t *m = &p->msgs[i];
        if (m->empty || m->recv != (phase == MPISCOPE_VALIDATE_CHECK))
            continue;
        if (m->recv)
            rc = mpiscope__pattern_check(ctx, msg_buffer(ctx, s, m), &s->layout, msg_peer(m, partner), m->pattern_block,
                                         "recv message", m->block);
        else
            mpiscope__pattern_fill(msg_buffer(ctx, s, m), &s->layout, ctx->rank, m->pattern_block, ctx->launch);
    }
    return rc;
}
