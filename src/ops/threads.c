/* threads.c: point-to-point from several threads of each rank at once, on
 * MPI_THREAD_MULTIPLE (osu_latency_mt, IMB-MT). Thread t of the first
 * rank of a pair talks to thread t of the second: thread_pingpong one
 * round trip, thread_rate a window of messages then an empty
 * acknowledgment. `separation` says how their messages are kept apart:
 * each thread on its own communicator (a duplicate made in initialize),
 * on one communicator with a tag per thread, or all on one communicator
 * and one tag (any thread's message may match any thread's receive, as
 * MPI allows). A launch is every thread's part at once; each thread's own
 * time is a part of the launch (its distribution and spread are in the
 * result), the launch's time is until the last thread is through. */
#include "common.h"
#include "layout.h"
#include "options.h"
#include "pairs.h"
#include "pattern.h"
#include "team.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_DATA = 61, TAG_REPLY = 62, MAX_THREADS = 64, MAX_WINDOW = 4096 };
enum { SEPARATE_COMM, SEPARATE_TAG, SEPARATE_NONE };

static const char *const separations[] = {"comm", "tag", "shared", NULL};

typedef struct threaded {
    mpiscope_op_ctx_t *ctx;
    int latency; /* 1: one round trip per thread; 0: a window, then an ack */
    int peer, first, threads, separation, window;
    mpiscope__layout_t layout;
    MPI_Comm *comms;       /* [threads]: own duplicates, or the point's communicator */
    MPI_Request *requests; /* [threads * window] */
    mpiscope__team_t *team;
} threaded_t;

static int tag_of(const threaded_t *s, int base, int t)
{
    return s->separation == SEPARATE_TAG ? base + 2 * t : base;
}

/* The pattern block thread t's data carries: its own, unless every thread
 * shares one tag (then any thread may receive it: all carry block 0). */
static size_t block_of(const threaded_t *s, int t)
{
    return s->separation == SEPARATE_NONE ? 0 : (size_t)t;
}

static unsigned char *send_block(const threaded_t *s, int t)
{
    return (unsigned char *)s->ctx->send + (size_t)t * s->layout.span_bytes;
}

static unsigned char *recv_block(const threaded_t *s, int t, int j)
{
    return (unsigned char *)s->ctx->recv + ((size_t)t * (size_t)s->window + (size_t)j) * s->layout.span_bytes;
}

static int round_trip(threaded_t *s, int t)
{
    MPI_Comm comm = s->comms[t];
    int count = s->layout.count, data = tag_of(s, TAG_DATA, t), reply = tag_of(s, TAG_REPLY, t), rc;
    MPI_Datatype type = s->layout.type;
    if (s->first) {
        rc = MPI_Send(send_block(s, t), count, type, s->peer, data, comm);
        return rc ? rc : MPI_Recv(recv_block(s, t, 0), count, type, s->peer, reply, comm, MPI_STATUS_IGNORE);
    }
    rc = MPI_Recv(recv_block(s, t, 0), count, type, s->peer, data, comm, MPI_STATUS_IGNORE);
    return rc ? rc : MPI_Send(send_block(s, t), count, type, s->peer, reply, comm);
}

static int window_of_messages(threaded_t *s, int t)
{
    MPI_Comm comm = s->comms[t];
    MPI_Request *r = s->requests + (size_t)t * (size_t)s->window;
    int count = s->layout.count, data = tag_of(s, TAG_DATA, t), ack = tag_of(s, TAG_REPLY, t), rc = MPI_SUCCESS;
    MPI_Datatype type = s->layout.type;
    for (int j = 0; j < s->window && rc == MPI_SUCCESS; j++)
        rc = s->first ? MPI_Isend(send_block(s, t), count, type, s->peer, data, comm, &r[j])
                      : MPI_Irecv(recv_block(s, t, j), count, type, s->peer, data, comm, &r[j]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(s->window, r, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    return s->first ? MPI_Recv(NULL, 0, MPI_BYTE, s->peer, ack, comm, MPI_STATUS_IGNORE)
                    : MPI_Send(NULL, 0, MPI_BYTE, s->peer, ack, comm);
}

static int work(void *arg, int t)
{
    threaded_t *s = arg;
    return s->latency ? round_trip(s, t) : window_of_messages(s, t);
}

static int make_comms(const mpiscope_op_ctx_t *ctx, threaded_t *s)
{
    if (!(s->comms = malloc((size_t)s->threads * sizeof *s->comms)))
        return MPISCOPE_ENOMEM;
    for (int t = 0; t < s->threads; t++)
        s->comms[t] = ctx->comm;
    for (int t = 0; s->separation == SEPARATE_COMM && t < s->threads; t++) /* collective: every rank */
        if (MPI_Comm_dup(ctx->comm, &s->comms[t]) != MPI_SUCCESS) {
            s->comms[t] = ctx->comm;
            return MPISCOPE_EMPI;
        }
    return 0;
}

static int setup(mpiscope_op_ctx_t *ctx, threaded_t *s)
{
    long threads, window = 1;
    int rc;
    if ((rc = mpiscope__option_long(ctx, "threads", 1, MAX_THREADS, &threads)) != 0
        || (rc = mpiscope__option_choice(ctx, "separation", separations, &s->separation)) != 0
        || (!s->latency && (rc = mpiscope__option_long(ctx, "window", 1, MAX_WINDOW, &window)) != 0)
        || (rc = mpiscope__pairs_peer(ctx, &s->peer, &s->first)) != 0
        || (rc = mpiscope__layout_create(mpiscope_op_ctx_option(ctx, "datatype"), ctx->size_bytes, &s->layout)) != 0)
        return rc;
    s->threads = (int)threads;
    s->window = (int)window;
    ctx->actual_bytes = s->layout.payload_bytes;
    if ((rc = mpiscope__team_check_level(ctx, s->threads)) != 0
        || (rc = mpiscope_op_ctx_parts(ctx, (size_t)s->threads, "thread")) != 0 || (rc = make_comms(ctx, s)) != 0)
        return rc;
    if (!(s->requests = malloc((size_t)s->threads * (size_t)s->window * sizeof *s->requests)))
        return MPISCOPE_ENOMEM;
    size_t span = s->layout.span_bytes, t = (size_t)s->threads;
    if ((rc = mpiscope_op_ctx_buffers(ctx, t * span, t * (size_t)s->window * span)) != 0)
        return rc;
    mpiscope_op_ctx_note(ctx, "threads", "%d per rank, %s", s->threads,
                         s->separation == SEPARATE_COMM  ? "each on its own communicator"
                         : s->separation == SEPARATE_TAG ? "each with its own tag"
                                                         : "all on one communicator and tag");
    return s->peer < 0 ? 0 : mpiscope__team_create(s->threads, work, s, &s->team);
}

static int finalize(mpiscope_op_ctx_t *ctx)
{
    threaded_t *s = ctx->state;
    if (!s)
        return 0;
    mpiscope__team_free(s->team);
    for (int t = 0; s->comms && t < s->threads; t++)
        if (s->comms[t] != ctx->comm)
            MPI_Comm_free(&s->comms[t]);
    mpiscope__layout_free(&s->layout);
    free(s->comms);
    free(s->requests);
    free(s);
    ctx->state = NULL;
    return 0;
}

static int initialize(mpiscope_op_ctx_t *ctx, int latency)
{
    threaded_t *s = calloc(1, sizeof *s);
    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    s->ctx = ctx;
    s->latency = latency;
    int rc = setup(ctx, s);
    if (rc)
        finalize(ctx);
    return rc;
}

static int pingpong_initialize(mpiscope_op_ctx_t *ctx)
{
    return initialize(ctx, 1);
}
static int rate_initialize(mpiscope_op_ctx_t *ctx)
{
    return initialize(ctx, 0);
}

static int execute(mpiscope_op_ctx_t *ctx)
{
    threaded_t *s = ctx->state;
    return s->team ? mpiscope__ops_mpi(mpiscope__team_run(s->team, ctx->part_ns)) : 0;
}

static int validate(mpiscope_op_ctx_t *ctx, int phase)
{
    threaded_t *s = ctx->state;
    int rc = 0;
    if (s->peer < 0)
        return 0;
    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        memset(ctx->recv, MPISCOPE__POISON, (size_t)s->threads * (size_t)s->window * s->layout.span_bytes);
        for (int t = 0; t < s->threads; t++)
            mpiscope__pattern_fill(send_block(s, t), &s->layout, ctx->rank, block_of(s, t), ctx->launch);
        return 0;
    }
    if (!s->latency && s->first)
        return 0; /* the sender of a window receives only the empty acknowledgment */
    for (int t = 0; t < s->threads && !rc; t++)
        for (int j = 0; j < s->window && !rc; j++)
            rc = mpiscope__pattern_check(ctx, recv_block(s, t, j), &s->layout, s->peer, block_of(s, t),
                                         "thread recv block", (size_t)t * (size_t)s->window + (size_t)j);
    return rc;
}

#define OPT_THREADS                                                                                                    \
    {.name = "threads",                                                                                                \
     .default_value = "2",                                                                                             \
     .unit = "threads",                                                                                                \
     .type = "integer",                                                                                                \
     .description = "threads per rank calling MPI at once (1..64; above 1 MPI_THREAD_MULTIPLE)"}
#define OPT_SEPARATION                                                                                                 \
    {.name = "separation",                                                                                             \
     .default_value = "comm",                                                                                          \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = separations,                                                                                           \
     .description = "comm: each thread its own communicator; tag: one communicator, a tag per "                        \
                    "thread; shared: one communicator and one tag for all"}

static const mpiscope_op_option_t pingpong_options[] = {
    OPT_THREADS, OPT_SEPARATION, MPISCOPE__OPT_PAIRS("0-1"), MPISCOPE__OPT_DATATYPE, MPISCOPE__OPT_END,
};
static const mpiscope_op_option_t rate_options[] = {
    OPT_THREADS,          OPT_SEPARATION,         MPISCOPE__OPT_PAIRS("0-1"),
    MPISCOPE__OPT_WINDOW, MPISCOPE__OPT_DATATYPE, MPISCOPE__OPT_END,
};

const mpiscope_op_t mpiscope__op_thread_pingpong = {
    .abi = MPISCOPE_OP_ABI,
    .name = "thread_pingpong",
    .description = "multi-threaded latency (osu_latency_mt): each of `threads` threads per rank does one "
                   "ping-pong with its partner rank's thread at once (time: until the slowest thread's "
                   "round trip ends; each thread's own round trip in the result's parts)",
    .size_meaning = "bytes of each message (one each way per thread)",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS | MPISCOPE_OP_THREADS,
    .options = pingpong_options,
    .initialize = pingpong_initialize,
    .execute = execute,
    .finalize = finalize,
    .validate = validate,
};

const mpiscope_op_t mpiscope__op_thread_rate = {
    .abi = MPISCOPE_OP_ABI,
    .name = "thread_rate",
    .description = "multi-threaded message rate: each of `threads` threads per rank sends a window of "
                   "messages to its partner rank's thread, then gets an empty acknowledgment (time: "
                   "the slowest thread; rate = threads x window / time)",
    .size_meaning = "bytes of each message (window messages per thread and launch)",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS | MPISCOPE_OP_THREADS,
    .options = rate_options,
    .initialize = rate_initialize,
    .execute = execute,
    .finalize = finalize,
    .validate = validate,
};
