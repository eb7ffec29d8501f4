/* p2p.c: the shared hooks of the point-to-point family (p2p.h). */
#include "p2p.h"
#include "common.h"
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

int mpiscope__p2p_add(mpiscope__p2p_t *plan, int recv, int peer, int tag, size_t block, size_t pattern_block,
                      int empty)
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
    plan->msgs[plan->n_msgs++] = (mpiscope__p2p_msg_t){.peer = peer, .tag = tag, .recv = recv, .empty = empty,
                                                      .block = block, .pattern_block = pattern_block};
    plan->step_end[plan->n_steps - 1] = plan->n_msgs;
    if (!empty && recv && block >= plan->recv_blocks)
        plan->recv_blocks = block + 1;
    if (!empty && !recv && block >= plan->send_blocks)
        plan->send_blocks = block + 1;
    return 0;
}

/* Where message m's data is this launch, and how much of it. */
static void *msg_buffer(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m)
{
    return (unsigned char *)(m->recv ? ctx->recv : ctx->send) + m->block * p->layout.span_bytes;
}

static int msg_count(const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m)
{
    return m->empty ? 0 : p->layout.count;
}

#ifdef MPISCOPE_HAVE_LARGE_COUNT
/* A large-count op's message: its bytes as an MPI_Count. */
static MPI_Count msg_ccount(const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m)
{
    return m->empty ? 0 : (MPI_Count)p->layout.payload_bytes;
}
#endif

static MPI_Datatype msg_type(const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m)
{
    return m->empty ? MPI_BYTE : p->layout.type;
}

static int make_persistent(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p)
{
    for (size_t i = 0; i < p->n_msgs; i++) {
        const mpiscope__p2p_msg_t *m = &p->msgs[i];
        void *buf = msg_buffer(ctx, p, m);
        int rc;
        if (p->large)
            rc = m->recv ? MPISCOPE__LARGE(MPI_Recv_init_c(buf, msg_ccount(p, m), MPI_BYTE, m->peer, m->tag,
                                                           p->comm, &p->requests[i]))
                         : MPISCOPE__LARGE(MPI_Send_init_c(buf, msg_ccount(p, m), MPI_BYTE, m->peer, m->tag,
                                                           p->comm, &p->requests[i]));
        else
            rc = m->recv ? MPI_Recv_init(buf, msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm,
                                         &p->requests[i])
                         : MPI_Send_init(buf, msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm,
                                         &p->requests[i]);
        if (rc != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    return 0;
}

static int setup(mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p, mpiscope__p2p_build_t build)
{
    size_t span;
    int rc;

    if (p->large && mpiscope__ops_large_refused(ctx))
        return MPISCOPE_ENOTSUP;
    if (p->large)
        mpiscope__layout_large_bytes(ctx->size_bytes, &p->layout);
    if ((rc = mpiscope__option_choice(ctx, "mode", mpiscope__choices_p2p_mode, &p->mode)) != 0
        || (!p->large
            && (rc = mpiscope__layout_create(mpiscope_op_ctx_option(ctx, "datatype"), ctx->size_bytes, &p->layout)))
        || (rc = build(ctx, p)) != 0)
        return rc;
    ctx->actual_bytes = p->layout.payload_bytes;
    if (!(p->requests = malloc((p->n_msgs + 1) * sizeof *p->requests)))
        return MPISCOPE_ENOMEM;
    for (size_t i = 0; i < p->n_msgs; i++)
        p->requests[i] = MPI_REQUEST_NULL;
    span = p->layout.span_bytes;
    if (p->large && (rc = mpiscope__ops_memory_check(ctx, (p->send_blocks + p->recv_blocks) * span)) != 0)
        return rc;
    rc = (p->mode == MPISCOPE__P2P_PERSISTENT || p->large ? mpiscope_op_ctx_buffers_fixed : mpiscope_op_ctx_buffers)(
        ctx, p->send_blocks * span, p->recv_blocks * span);
    return rc || p->mode != MPISCOPE__P2P_PERSISTENT ? rc : make_persistent(ctx, p);
}

static int initialize(mpiscope_op_ctx_t *ctx, mpiscope__p2p_build_t build, int large)
{
    mpiscope__p2p_t *p = calloc(1, sizeof *p);
    int rc;

    if (!(ctx->state = p))
        return MPISCOPE_ENOMEM;
    p->comm = ctx->comm;
    p->large = large;
    if ((rc = setup(ctx, p, build)) != 0)
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

static int send_now(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m)
{
    if (p->large)
        return MPISCOPE__LARGE(MPI_Send_c(msg_buffer(ctx, p, m), msg_ccount(p, m), MPI_BYTE, m->peer, m->tag,
                                          p->comm));
    return MPI_Send(msg_buffer(ctx, p, m), msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm);
}

static int recv_now(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m)
{
    if (p->large)
        return MPISCOPE__LARGE(MPI_Recv_c(msg_buffer(ctx, p, m), msg_ccount(p, m), MPI_BYTE, m->peer, m->tag,
                                          p->comm, MPI_STATUS_IGNORE));
    return MPI_Recv(msg_buffer(ctx, p, m), msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm,
                    MPI_STATUS_IGNORE);
}

static int sendrecv_now(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *s,
                        const mpiscope__p2p_msg_t *r)
{
    if (p->large)
        return MPISCOPE__LARGE(MPI_Sendrecv_c(msg_buffer(ctx, p, s), msg_ccount(p, s), MPI_BYTE, s->peer, s->tag,
                                              msg_buffer(ctx, p, r), msg_ccount(p, r), MPI_BYTE, r->peer, r->tag,
                                              p->comm, MPI_STATUS_IGNORE));
    return MPI_Sendrecv(msg_buffer(ctx, p, s), msg_count(p, s), msg_type(p, s), s->peer, s->tag,
                        msg_buffer(ctx, p, r), msg_count(p, r), msg_type(p, r), r->peer, r->tag, p->comm,
                        MPI_STATUS_IGNORE);
}

/* MPI_Irecv, MPI_Isend or MPI_Issend of message m (the _c call for large counts). */
static int post(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, const mpiscope__p2p_msg_t *m,
                MPI_Request *r)
{
    void *buf = msg_buffer(ctx, p, m);
    int sync = p->mode == MPISCOPE__P2P_SYNCHRONOUS;
    if (p->large)
        return m->recv ? MPISCOPE__LARGE(MPI_Irecv_c(buf, msg_ccount(p, m), MPI_BYTE, m->peer, m->tag, p->comm, r))
               : sync  ? MPISCOPE__LARGE(MPI_Issend_c(buf, msg_ccount(p, m), MPI_BYTE, m->peer, m->tag, p->comm, r))
                       : MPISCOPE__LARGE(MPI_Isend_c(buf, msg_ccount(p, m), MPI_BYTE, m->peer, m->tag, p->comm, r));
    return m->recv ? MPI_Irecv(buf, msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm, r)
           : sync  ? MPI_Issend(buf, msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm, r)
                   : MPI_Isend(buf, msg_count(p, m), msg_type(p, m), m->peer, m->tag, p->comm, r);
}

static int run_blocking(const mpiscope_op_ctx_t *ctx, const mpiscope__p2p_t *p, size_t first, size_t end)
{
    int rc = MPI_SUCCESS;

    for (size_t i = first; rc == MPI_SUCCESS && i < end; i++) {
        const mpiscope__p2p_msg_t *m = &p->msgs[i];
        if (!m->recv && i + 1 < end && p->msgs[i + 1].recv)
            rc = sendrecv_now(ctx, p, m, &p->msgs[++i]);
        else
            rc = m->recv ? recv_now(ctx, p, m) : send_now(ctx, p, m);
    }
    return rc;
}

/* Receives first, then sends (MPI_Issend in synchronous mode). */
static int run_nonblocking(const mpiscope_op_ctx_t *ctx, mpiscope__p2p_t *p, size_t first, size_t end)
{
    MPI_Request *r = p->requests + first;
    int rc = MPI_SUCCESS, n = 0;

    for (size_t i = first; rc == MPI_SUCCESS && i < end; i++)
        if (p->msgs[i].recv)
            rc = post(ctx, p, &p->msgs[i], &r[n++]);
    for (size_t i = first; rc == MPI_SUCCESS && i < end; i++)
        if (!p->msgs[i].recv)
            rc = post(ctx, p, &p->msgs[i], &r[n++]);
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
    mpiscope__p2p_t *p = ctx->state;
    size_t first = 0;
    int rc = MPI_SUCCESS;

    for (size_t s = 0; rc == MPI_SUCCESS && s < p->n_steps; first = p->step_end[s++]) {
        size_t end = p->step_end[s];
        if (p->mode == MPISCOPE__P2P_BLOCKING)
            rc = run_blocking(ctx, p, first, end);
        else if (p->mode == MPISCOPE__P2P_PERSISTENT)
            rc = run_persistent(p, first, end);
        else
            rc = run_nonblocking(ctx, p, first, end);
    }
    return mpiscope__ops_mpi(rc);
}

int mpiscope__p2p_finalize(mpiscope_op_ctx_t *ctx)
{
    mpiscope__p2p_t *p = ctx->state;

    if (!p)
        return 0;
    for (size_t i = 0; p->requests && i < p->n_msgs; i++)
        if (p->requests[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&p->requests[i]);
    mpiscope__layout_free(&p->layout);
    free(p->requests);
    free(p->msgs);
    free(p);
    ctx->state = NULL;
    return 0;
}

int mpiscope__p2p_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    mpiscope__p2p_t *p = ctx->state;
    int rc = 0;

    if (phase == MPISCOPE_VALIDATE_PREPARE)
        memset(ctx->recv, MPISCOPE__POISON, p->recv_blocks * p->layout.span_bytes);
    for (size_t i = 0; !rc && i < p->n_msgs; i++) {
        const mpiscope__p2p_msg_t *m = &p->msgs[i];
        if (m->empty || m->recv != (phase == MPISCOPE_VALIDATE_CHECK))
            continue;
        if (m->recv)
            rc = mpiscope__pattern_check(ctx, msg_buffer(ctx, p, m), &p->layout, m->peer, m->pattern_block,
                                         "recv message", m->block);
        else
            mpiscope__pattern_fill(msg_buffer(ctx, p, m), &p->layout, ctx->rank, m->pattern_block, ctx->launch);
    }
    return rc;
}
