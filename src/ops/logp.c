/* logp.c: the experiments of the LogGP and PLogP fits, between rank 0
 * (client, sender) and rank 1 (server, receiver); other ranks idle. Each
 * is the same launch with different knobs: rank 0 sends n messages of
 * `size` bytes with MPI_Send, busy-waiting delay_us after each send but
 * the last; rank 1 busy-waits recv_delay_us, receives them with MPI_Recv
 * and, if asked, answers with one empty message that rank 0 receives.
 *   prtt           PRTT(n, d, size) of Netgauge's LogGP procedure (Hoefler,
 *                  Lichei, Rehm 2007): rank 0's time, with the reply
 *   overhead_send  o_s(size) of PLogP (Kielmann et al. 2000): rank 0's time
 *                  is its one MPI_Send; no reply (the engine starts every
 *                  launch on every rank together, so none is needed)
 *   overhead_recv  o_r(size) of PLogP: rank 1's time minus delay_us, its
 *                  MPI_Recv once the message has surely arrived
 * Messages are contiguous bytes; every message of a launch uses the same
 * buffer (as Netgauge does), so the last one received is validated. */
#include "common.h"
#include "layout.h"
#include "options.h"
#include "pattern.h"
#include "mpiscope/timer.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_DATA = 61, TAG_REPLY = 62, MAX_MESSAGES = 1000000 };

typedef struct logp {
    mpiscope__layout_t layout;
    long n;               /* messages rank 0 sends */
    double send_delay_ns; /* rank 0's wait after each send but the last */
    double recv_delay_ns; /* rank 1's wait before its first receive */
    int reply;            /* 1: rank 1 answers with an empty message */
} logp_t;

static int logp_finalize(mpiscope_op_ctx_t *ctx)
{
    logp_t *s = ctx->state;

    if (s) {
        mpiscope__layout_free(&s->layout); /* safe on a zeroed layout */
        free(s);
        ctx->state = NULL;
    }
    return 0;
}

static int setup(mpiscope_op_ctx_t *ctx, logp_t *s)
{
    int rc;

    if (ctx->nprocs < 2)
        return MPISCOPE_EINVAL;
    if ((rc = mpiscope__layout_create("bytes", ctx->size_bytes, &s->layout)) != 0)
        return rc;
    ctx->actual_bytes = s->layout.payload_bytes;
    return mpiscope_op_ctx_buffers(ctx, ctx->rank == 0 ? s->layout.span_bytes : 0,
                                   ctx->rank == 1 ? s->layout.span_bytes : 0);
}

/* The point's state from the options the caller read. */
static int start(mpiscope_op_ctx_t *ctx, long n, double send_delay_ns, double recv_delay_ns, int reply)
{
    logp_t *s = calloc(1, sizeof *s);
    int rc;

    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    *s = (logp_t){.n = n, .send_delay_ns = send_delay_ns, .recv_delay_ns = recv_delay_ns, .reply = reply};
    if ((rc = setup(ctx, s)) != 0)
        logp_finalize(ctx); /* the engine finalizes only what initialized */
    return rc;
}

static int prtt_initialize(mpiscope_op_ctx_t *ctx)
{
    long n;
    double delay_us;
    int rc;

    if ((rc = mpiscope__option_long(ctx, "n", 1, MAX_MESSAGES, &n)) != 0
        || (rc = mpiscope__option_double(ctx, "delay_us", 0.0, &delay_us)) != 0)
        return rc;
    return start(ctx, n, delay_us * 1e3, 0.0, 1);
}

static int overhead_send_initialize(mpiscope_op_ctx_t *ctx)
{
    return start(ctx, 1, 0.0, 0.0, 0);
}

static int overhead_recv_initialize(mpiscope_op_ctx_t *ctx)
{
    double delay_us;
    int rc = mpiscope__option_double(ctx, "delay_us", 0.0, &delay_us);

    return rc ? rc : start(ctx, 1, 0.0, delay_us * 1e3, 0);
}

static int client(const mpiscope_op_ctx_t *ctx, const logp_t *s)
{
    for (long i = 0; i < s->n; i++) {
        if (MPI_Send(ctx->send, s->layout.count, s->layout.type, 1, TAG_DATA, ctx->comm) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
        if (s->send_delay_ns > 0.0 && i + 1 < s->n)
            mpiscope_timer_spin_until_ns(mpiscope_timer_now_ns() + s->send_delay_ns);
    }
    if (!s->reply)
        return 0;
    return mpiscope__ops_mpi(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_REPLY, ctx->comm, MPI_STATUS_IGNORE));
}

static int server(const mpiscope_op_ctx_t *ctx, const logp_t *s)
{
    if (s->recv_delay_ns > 0.0)
        mpiscope_timer_spin_until_ns(mpiscope_timer_now_ns() + s->recv_delay_ns);
    for (long i = 0; i < s->n; i++)
        if (MPI_Recv(ctx->recv, s->layout.count, s->layout.type, 0, TAG_DATA, ctx->comm, MPI_STATUS_IGNORE)
            != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    if (!s->reply)
        return 0;
    return mpiscope__ops_mpi(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_REPLY, ctx->comm));
}

static int logp_execute(mpiscope_op_ctx_t *ctx)
{
    const logp_t *s = ctx->state;

    return ctx->rank == 0 ? client(ctx, s) : ctx->rank == 1 ? server(ctx, s) : 0;
}

/* Rank 0 writes its message, rank 1 checks the last one it received. */
static int logp_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    const logp_t *s = ctx->state;

    if (ctx->rank == 0 && phase == MPISCOPE_VALIDATE_PREPARE)
        mpiscope__pattern_fill(ctx->send, &s->layout, 0, 0, ctx->launch);
    if (ctx->rank != 1)
        return 0;
    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        if (s->layout.span_bytes)
            memset(ctx->recv, MPISCOPE__POISON, s->layout.span_bytes);
        return 0;
    }
    return mpiscope__pattern_check(ctx, ctx->recv, &s->layout, 0, 0, "recv message", (size_t)s->n - 1);
}

static const mpiscope_op_option_t prtt_options[] = {
    {.name = "n",
     .default_value = "10",
     .unit = "messages",
     .type = "integer",
     .description = "messages rank 0 sends before the reply"},
    {.name = "delay_us",
     .default_value = "0",
     .unit = "us",
     .type = "number",
     .description = "rank 0 busy-waits this long after each send but the last (Netgauge's d)"},
    MPISCOPE__OPT_END,
};
static const mpiscope_op_option_t overhead_recv_options[] = {
    {.name = "delay_us",
     .default_value = "100",
     .unit = "us",
     .type = "number",
     .description = "rank 1 busy-waits this long before MPI_Recv, so the message has arrived"},
    MPISCOPE__OPT_END,
};

#define LOGP_OP(NAME, OPTIONS, DESCRIPTION, SIZE_MEANING)                                                              \
    const mpiscope_op_t mpiscope__op_##NAME = {                                                                        \
        .abi = MPISCOPE_OP_ABI,                                                                                        \
        .name = #NAME,                                                                                                 \
        .description = DESCRIPTION,                                                                                    \
        .size_meaning = SIZE_MEANING,                                                                                  \
        .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS,                                                            \
        .options = OPTIONS,                                                                                            \
        .initialize = NAME##_initialize,                                                                               \
        .execute = logp_execute,                                                                                       \
        .finalize = logp_finalize,                                                                                     \
        .validate = logp_validate,                                                                                     \
    };

LOGP_OP(prtt, prtt_options,
        "LogGP PRTT(n, d, s) (Netgauge): rank 0 sends n messages to rank 1, waiting delay_us after "
        "each but the last, and receives an empty reply (rank 0's time: PRTT; other ranks idle)",
        "bytes of each of the n messages")
LOGP_OP(overhead_send, NULL,
        "PLogP send overhead: rank 0's one MPI_Send to rank 1, which receives it (rank 0's time: "
        "o_s(size); other ranks idle)",
        "bytes of the message")
LOGP_OP(overhead_recv, overhead_recv_options,
        "PLogP receive overhead: rank 0 sends to rank 1, which busy-waits delay_us, then receives "
        "(rank 1's time minus delay_us: o_r(size); other ranks idle)",
        "bytes of the message")
