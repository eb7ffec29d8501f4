/* partitioned.c: MPI-4 partitioned point-to-point (MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Parrived) against the same bytes sent as
 * one message and as one message per partition.
 *
 * A message of size_bytes is cut into `partitions` equal partitions. On
 * the sending rank `threads` threads fill them (each busy for fill_us per
 * partition: the computation that produces it) and mark each one ready as
 * soon as it is filled, in the order the `order` option says: in_order,
 * reverse, or random (a new random order every launch, and each fill a
 * random time in [0, 2 fill_us]: partitions become ready at random times).
 * `as` chooses how the bytes travel:
 *   partitioned  MPI_Psend_init / MPI_Precv_init once; per launch MPI_Start,
 *                MPI_Pready by the thread that filled the partition, MPI_Wait;
 *                the receiver polls MPI_Parrived for each partition, then waits
 *   messages     each partition an MPI_Isend of its own by the thread that
 *                filled it (P messages), the receiver MPI_Irecv's each one
 *   single       the threads fill every partition, then one MPI_Send of the
 *                whole message (the receiver one MPI_Recv)
 * so the three values of `as` compare the same bytes, filled the same way.
 * partitioned_pingpong sends such a message to the partner and the partner
 * one back (time: the round trip); partitioned_bw sends one and gets an
 * empty acknowledgment (bandwidth: size / time). Each thread's own time
 * (filling and marking its partitions) is a part of the launch. */
#include "common.h"
#include "options.h"
#include "pairs.h"
#include "pattern.h"
#include "team.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/timer.h"

/* Tags: a message's (messages form: plus its partition, as the threads'
 * sends may be matched in any order) and the acknowledgement's. */
enum { TAG_DATA = 1000, TAG_BACK = 6000, TAG_ACK = 73, MAX_PARTITIONS = 4096, MAX_THREADS = 64, ORDERS = 32 };
enum { AS_PARTITIONED, AS_MESSAGES, AS_SINGLE };
enum { ORDER_IN, ORDER_REVERSE, ORDER_RANDOM };

static const char *const as_choices[] = {"partitioned", "messages", "single", NULL};
static const char *const order_choices[] = {"in_order", "reverse", "random", NULL};

typedef struct partitioned {
    mpiscope_op_ctx_t *ctx;
    int round_trip;                                  /* pingpong; else one way and an empty acknowledgment */
    int peer, first, threads, as, order, partitions; /* peer: its rank in the point's communicator */
    int partner;                                     /* the peer's rank in comm (the pair's: 0 first, 1 second) */
    int count;                                       /* bytes per partition */
    double fill_ns;
    mpiscope__layout_t layout; /* one partition */
    int *orders;               /* [ORDERS * partitions]: the order partitions are filled in */
    double *fills;             /* [ORDERS * partitions]: the fill time of each (random) */
    MPI_Comm comm;             /* the pair's own, made for every point (MPI_COMM_NULL: idle) */
    MPI_Request psend, precv;  /* partitioned: persistent requests */
    MPI_Request *requests;     /* messages: [partitions] */
    mpiscope__team_t *team;
    size_t launch; /* the launch being run (which order) */
    int send_tag;  /* the message being sent: TAG_DATA or TAG_BACK */
} partitioned_t;

static unsigned char *part_at(void *buf, const partitioned_t *s, int k)
{
    return (unsigned char *)buf + (size_t)k * s->layout.span_bytes;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The orders and fill times of ORDERS launches (launch l uses l % ORDERS). */
static void make_orders(partitioned_t *s, int rank)
{
    uint64_t state = 0x5eed0000u + (uint64_t)rank;
    for (int o = 0; o < ORDERS; o++) {
        int *order = s->orders + (size_t)o * s->partitions;
        double *fill = s->fills + (size_t)o * s->partitions;
        for (int k = 0; k < s->partitions; k++) {
            order[k] = s->order == ORDER_REVERSE ? s->partitions - 1 - k : k;
            fill[k] = s->order == ORDER_RANDOM
                          ? s->fill_ns * 2.0 * (double)(next_random(&state) >> 11) / (double)(1ull << 53)
                          : s->fill_ns;
        }
        for (int k = s->partitions - 1; s->order == ORDER_RANDOM && k > 0; k--) { /* Fisher-Yates */
            int j = (int)(next_random(&state) % (uint64_t)(k + 1)), x = order[k];
            order[k] = order[j];
            order[j] = x;
        }
    }
}

/* MPI_Pready and MPI_Parrived where the library has them; elsewhere the op
 * refuses its point before any launch (make_requests), so these never run. */
static int pready(int k, MPI_Request request)
{
#ifdef MPISCOPE_HAVE_PARTITIONED
    return MPI_Pready(k, request);
#else
    (void)k, (void)request;
    return MPI_ERR_OTHER;
#endif
}

static int parrived(MPI_Request request, int k, int *arrived)
{
#ifdef MPISCOPE_HAVE_PARTITIONED
    return MPI_Parrived(request, k, arrived);
#else
    (void)request, (void)k, (void)arrived;
    return MPI_ERR_OTHER;
#endif
}

/* Thread t fills its partitions (every threads-th of the order) and
 * hands each over as soon as it is filled. */
static int fill_and_mark(void *arg, int t)
{
    partitioned_t *s = arg;
    size_t o = (s->launch % ORDERS) * (size_t)s->partitions;
    int rc = MPI_SUCCESS;
    for (int i = t; i < s->partitions && rc == MPI_SUCCESS; i += s->threads) {
        int k = s->orders[o + (size_t)i];
        if (s->fills[o + (size_t)k] > 0)
            mpiscope_timer_spin_until_ns(mpiscope_timer_now_ns() + s->fills[o + (size_t)k]);
        if (s->as == AS_PARTITIONED)
            rc = pready(k, s->psend);
        else if (s->as == AS_MESSAGES)
            rc = MPI_Isend(part_at(s->ctx->send, s, k), s->count, MPI_BYTE, s->partner, s->send_tag + k, s->comm,
                           &s->requests[k]);
    }
    return rc;
}

/* The sending side of one message (its data tag: TAG_DATA, or TAG_BACK
 * for the answer of a round trip, single and messages forms). */
static int send_message(partitioned_t *s, int tag)
{
    int rc;
    s->send_tag = tag;
    switch (s->as) {
    case AS_PARTITIONED:
        if ((rc = MPI_Start(&s->psend)) != MPI_SUCCESS || (rc = mpiscope__team_run(s->team, s->ctx->part_ns)))
            return rc;
        return MPI_Wait(&s->psend, MPI_STATUS_IGNORE);
    case AS_MESSAGES:
        if ((rc = mpiscope__team_run(s->team, s->ctx->part_ns)) != MPI_SUCCESS)
            return rc;
        return MPI_Waitall(s->partitions, s->requests, MPI_STATUSES_IGNORE);
    default:
        if ((rc = mpiscope__team_run(s->team, s->ctx->part_ns)) != MPI_SUCCESS)
            return rc;
        return MPI_Send(s->ctx->send, s->count * s->partitions, MPI_BYTE, s->partner, tag, s->comm);
    }
}

/* The receiving side: partitioned polls MPI_Parrived for every partition
 * in turn (its request was started before). */
static int receive_message(partitioned_t *s, int tag)
{
    int rc = MPI_SUCCESS;
    switch (s->as) {
    case AS_PARTITIONED:
        for (int k = 0; k < s->partitions && rc == MPI_SUCCESS; k++) {
            int arrived = 0;
            while (rc == MPI_SUCCESS && !arrived)
                rc = parrived(s->precv, k, &arrived);
        }
        return rc == MPI_SUCCESS ? MPI_Wait(&s->precv, MPI_STATUS_IGNORE) : rc;
    case AS_MESSAGES:
        return MPI_Waitall(s->partitions, s->requests, MPI_STATUSES_IGNORE);
    default:
        return MPI_Recv(s->ctx->recv, s->count * s->partitions, MPI_BYTE, s->partner, tag, s->comm, MPI_STATUS_IGNORE);
    }
}

/* Post the receive of the next message before anything else (messages:
 * one MPI_Irecv per partition; partitioned: MPI_Start). */
static int post_receive(partitioned_t *s, int tag)
{
    int rc = MPI_SUCCESS;
    if (s->as == AS_PARTITIONED)
        return MPI_Start(&s->precv);
    for (int k = 0; s->as == AS_MESSAGES && k < s->partitions && rc == MPI_SUCCESS; k++)
        rc = MPI_Irecv(part_at(s->ctx->recv, s, k), s->count, MPI_BYTE, s->partner, tag + k, s->comm, &s->requests[k]);
    return rc;
}

static int run_first(partitioned_t *s)
{
    int rc = MPI_SUCCESS;
    if (s->round_trip && s->as == AS_PARTITIONED)
        rc = post_receive(s, TAG_BACK); /* the answer's request, started early */
    if (rc == MPI_SUCCESS)
        rc = send_message(s, TAG_DATA);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!s->round_trip)
        return MPI_Recv(NULL, 0, MPI_BYTE, s->partner, TAG_ACK, s->comm, MPI_STATUS_IGNORE);
    if (s->as == AS_MESSAGES && (rc = post_receive(s, TAG_BACK)) != MPI_SUCCESS)
        return rc; /* its request slots held the sends until now */
    return receive_message(s, TAG_BACK);
}

static int run_second(partitioned_t *s)
{
    int rc = post_receive(s, TAG_DATA);
    if (rc == MPI_SUCCESS)
        rc = receive_message(s, TAG_DATA);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!s->round_trip)
        return MPI_Send(NULL, 0, MPI_BYTE, s->partner, TAG_ACK, s->comm);
    return send_message(s, TAG_BACK);
}

static int execute(mpiscope_op_ctx_t *ctx)
{
    partitioned_t *s = ctx->state;
    if (s->peer < 0)
        return 0;
    s->launch = ctx->launch;
    return mpiscope__ops_mpi(s->first ? run_first(s) : run_second(s));
}

#ifdef MPISCOPE_HAVE_PARTITIONED
/* The requests' first round, untimed, before the point's launches: every
 * timed launch is then a round of requests in use, as the other forms'
 * messages are. Its receive is started before its send (a barrier of the
 * pair): Open MPI 5.0.11 completed a first round whose send had started
 * first without its data (3 ranks, oversubscribed; every later round
 * right). Should a library still lose it, the point says so in a note. */
static int first_round(mpiscope_op_ctx_t *ctx, partitioned_t *s, int sends, int receives)
{
    enum { MARK = 0xc3 };
    size_t bytes = (size_t)s->partitions * (size_t)s->count;
    int rc = MPI_SUCCESS;
    if (sends)
        memset(ctx->send, MARK, bytes);
    if (receives) {
        memset(ctx->recv, MPISCOPE__POISON, bytes);
        rc = MPI_Start(&s->precv);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(s->comm);
    if (rc == MPI_SUCCESS && sends && (rc = MPI_Start(&s->psend)) == MPI_SUCCESS) {
        for (int k = 0; k < s->partitions && rc == MPI_SUCCESS; k++)
            rc = MPI_Pready(k, s->psend);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&s->psend, MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS && receives)
        rc = MPI_Wait(&s->precv, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    size_t missing = 0;
    for (size_t i = 0; receives && i < bytes; i++)
        missing += ((const unsigned char *)ctx->recv)[i] != MARK;
    if (missing)
        mpiscope_op_ctx_note(ctx, "first_round",
                             "the requests' first round (untimed) completed with %zu of %zu "
                             "bytes not delivered; the timed rounds are checked by --validate",
                             missing, bytes);
    return 0;
}
#endif

static int make_requests(mpiscope_op_ctx_t *ctx, partitioned_t *s)
{
    s->psend = s->precv = MPI_REQUEST_NULL;
    if (s->as == AS_MESSAGES) {
        if (!(s->requests = malloc((size_t)s->partitions * sizeof *s->requests)))
            return MPISCOPE_ENOMEM;
        for (int k = 0; k < s->partitions; k++)
            s->requests[k] = MPI_REQUEST_NULL;
        return 0;
    }
    if (s->as != AS_PARTITIONED || s->peer < 0)
        return 0;
#ifdef MPISCOPE_HAVE_PARTITIONED
    /* the data goes first to second; a round trip's answer second to first */
    int sends = s->first || s->round_trip, receives = !s->first || s->round_trip, rc = MPI_SUCCESS;
    int send_tag = s->first ? TAG_DATA : TAG_BACK, recv_tag = s->first ? TAG_BACK : TAG_DATA;
    MPI_Count count = s->count;
    if (sends)
        rc = MPI_Psend_init(ctx->send, s->partitions, count, MPI_BYTE, s->partner, send_tag, s->comm, MPI_INFO_NULL,
                            &s->psend);
    if (rc == MPI_SUCCESS && receives)
        rc = MPI_Precv_init(ctx->recv, s->partitions, count, MPI_BYTE, s->partner, recv_tag, s->comm, MPI_INFO_NULL,
                            &s->precv);
    return rc == MPI_SUCCESS ? first_round(ctx, s, sends, receives) : MPISCOPE_EMPI;
#else
    return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ENOTSUP,
                                  "%s: this MPI library has no partitioned "
                                  "communication (MPI_Psend_init, MPI-4)",
                                  ctx->op->name);
#endif
}

static int setup(mpiscope_op_ctx_t *ctx, partitioned_t *s)
{
    long partitions, threads;
    double fill_us;
    int rc;
    if ((rc = mpiscope__option_long(ctx, "partitions", 1, MAX_PARTITIONS, &partitions)) != 0
        || (rc = mpiscope__option_long(ctx, "threads", 1, MAX_THREADS, &threads)) != 0
        || (rc = mpiscope__option_choice(ctx, "as", as_choices, &s->as)) != 0
        || (rc = mpiscope__option_choice(ctx, "order", order_choices, &s->order)) != 0
        || (rc = mpiscope__option_double(ctx, "fill_us", 0.0, &fill_us)) != 0
        || (rc = mpiscope__pairs_peer(ctx, &s->peer, &s->first)) != 0)
        return rc;
    /* Each pair on a communicator of its own two ranks, made for this
     * point (collective over the point's: every rank, the idle ones get
     * none). Open MPI 5.0.11 needs both: its first partitioned request on
     * a communicator duplicates that communicator, a collective the ranks
     * that make no request never join (3 ranks, one idle: the pair hung);
     * and on a communicator, peer and tag whose earlier partitioned
     * requests had been freed it delivered nothing in the first round (the
     * receiver's MPI_Wait returned on an untouched buffer; validation saw
     * it). The partner is rank 0 (the first) or 1 there. */
    int color = s->peer < 0 ? MPI_UNDEFINED : (s->first ? ctx->rank : s->peer);
    if (MPI_Comm_split(ctx->comm, color, s->first ? 0 : 1, &s->comm) != MPI_SUCCESS) {
        s->comm = MPI_COMM_NULL;
        return MPISCOPE_EMPI;
    }
    s->partner = s->first ? 1 : 0;
    s->partitions = (int)partitions;
    s->threads = (int)(threads < partitions ? threads : partitions);
    s->fill_ns = fill_us * 1e3;
    if (ctx->size_bytes / (size_t)s->partitions > INT_MAX)
        return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ERANGE,
                                      "%s: a partition of %zu bytes is more than an int "
                                      "count",
                                      ctx->op->name, ctx->size_bytes / (size_t)s->partitions);
    s->count = (int)(ctx->size_bytes / (size_t)s->partitions);
    if ((rc = mpiscope__layout_create("bytes", (size_t)s->count, &s->layout)) != 0)
        return rc;
    ctx->actual_bytes = (size_t)s->count * (size_t)s->partitions;
    s->orders = malloc((size_t)ORDERS * (size_t)s->partitions * sizeof *s->orders);
    s->fills = malloc((size_t)ORDERS * (size_t)s->partitions * sizeof *s->fills);
    if (!s->orders || !s->fills)
        return MPISCOPE_ENOMEM;
    make_orders(s, ctx->rank);
    size_t bytes = (size_t)s->partitions * s->layout.span_bytes;
    if ((rc = mpiscope__team_check_level(ctx, s->threads)) != 0
        || (rc = mpiscope_op_ctx_parts(ctx, (size_t)s->threads, "thread")) != 0
        || (rc = mpiscope_op_ctx_buffers_fixed(ctx, bytes, bytes)) != 0 || (rc = make_requests(ctx, s)) != 0)
        return rc;
    mpiscope_op_ctx_note(ctx, "partitions", "%d of %d bytes, filled by %d thread%s, %s%s", s->partitions, s->count,
                         s->threads, s->threads == 1 ? "" : "s", order_choices[s->order],
                         s->as == AS_PARTITIONED ? ", MPI_Pready each"
                         : s->as == AS_MESSAGES  ? ", an MPI_Isend each"
                                                 : ", then one MPI_Send");
    return s->peer < 0 ? 0 : mpiscope__team_create(s->threads, fill_and_mark, s, &s->team);
}

static int finalize(mpiscope_op_ctx_t *ctx)
{
    partitioned_t *s = ctx->state;
    if (!s)
        return 0;
    mpiscope__team_free(s->team);
    if (s->psend != MPI_REQUEST_NULL)
        MPI_Request_free(&s->psend);
    if (s->precv != MPI_REQUEST_NULL)
        MPI_Request_free(&s->precv);
    mpiscope__layout_free(&s->layout);
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->comm);
    free(s->requests);
    free(s->orders);
    free(s->fills);
    free(s);
    ctx->state = NULL;
    return 0;
}

static int initialize(mpiscope_op_ctx_t *ctx, int round_trip)
{
    partitioned_t *s = calloc(1, sizeof *s);
    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    s->ctx = ctx;
    s->round_trip = round_trip;
    s->comm = MPI_COMM_NULL;
    s->psend = s->precv = MPI_REQUEST_NULL;
    int rc = setup(ctx, s);
    if (rc)
        finalize(ctx);
    return rc;
}

/* Open MPI 5.0.11 sets up its partitioned communication on a process's
 * first partitioned request by duplicating MPI_COMM_WORLD, a nonblocking
 * collective every process must join and then progress: a rank that makes
 * no partitioned request (an idle rank of the pairs, a rank outside a
 * point's sub-communicator) left the others waiting for ever. So every rank of the run takes part in one round first, all at
 * once: each sends one partition to the next rank and receives one from
 * the previous, on a communicator of its own, and checks it (MPICH needs
 * none of it). */
static int prepare(MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
#ifdef MPISCOPE_HAVE_PARTITIONED
    MPI_Comm ring;
    int rank, n;
    MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    unsigned char out = (unsigned char)(rank % 251 + 1), in = 0, want = (unsigned char)((rank + n - 1) % n % 251 + 1);
    rc = MPI_Comm_dup(comm, &ring);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Precv_init(&in, 1, 1, MPI_BYTE, (rank + n - 1) % n, 0, ring, MPI_INFO_NULL, &recv);
        if (rc == MPI_SUCCESS)
            rc = MPI_Psend_init(&out, 1, 1, MPI_BYTE, (rank + 1) % n, 0, ring, MPI_INFO_NULL, &send);
        if (rc == MPI_SUCCESS && (rc = MPI_Start(&recv)) == MPI_SUCCESS
            && (rc = MPI_Barrier(ring)) == MPI_SUCCESS /* every receive started first (see first_round) */
            && (rc = MPI_Start(&send)) == MPI_SUCCESS && (rc = MPI_Pready(0, send)) == MPI_SUCCESS
            && (rc = MPI_Wait(&send, MPI_STATUS_IGNORE)) == MPI_SUCCESS)
            rc = MPI_Wait(&recv, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && in != want)
            rc = MPI_ERR_OTHER; /* its partition never came */
        if (send != MPI_REQUEST_NULL)
            MPI_Request_free(&send);
        if (recv != MPI_REQUEST_NULL)
            MPI_Request_free(&recv);
        MPI_Barrier(ring); /* every rank through its round before any point starts */
        MPI_Comm_free(&ring);
    }
#endif
    int ok = rc == MPI_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    return all ? 0 : MPISCOPE_EMPI;
}

static int pingpong_initialize(mpiscope_op_ctx_t *ctx)
{
    return initialize(ctx, 1);
}
static int bw_initialize(mpiscope_op_ctx_t *ctx)
{
    return initialize(ctx, 0);
}

/* Every partition of every message this rank receives, checked one by one. */
static int validate(mpiscope_op_ctx_t *ctx, int phase)
{
    partitioned_t *s = ctx->state;
    int rc = 0, receives = !s->first || s->round_trip, sends = s->first || s->round_trip;
    if (s->peer < 0)
        return 0;
    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        memset(ctx->recv, MPISCOPE__POISON, (size_t)s->partitions * s->layout.span_bytes);
        for (int k = 0; sends && k < s->partitions; k++)
            mpiscope__pattern_fill(part_at(ctx->send, s, k), &s->layout, ctx->rank, (size_t)k, ctx->launch);
        return 0;
    }
    for (int k = 0; receives && k < s->partitions && !rc; k++)
        rc = mpiscope__pattern_check(ctx, part_at(ctx->recv, s, k), &s->layout, s->peer, (size_t)k, "partition",
                                     (size_t)k);
    return rc;
}

static const mpiscope_op_option_t options[] = {
    {.name = "partitions",
     .default_value = "8",
     .unit = "partitions",
     .type = "integer",
     .description = "partitions of the message (1..4096): size_bytes / partitions bytes each"},
    {.name = "threads",
     .default_value = "2",
     .unit = "threads",
     .type = "integer",
     .description = "threads that fill the partitions on the sending rank (1..64; above 1 "
                    "MPI_THREAD_MULTIPLE)"},
    {.name = "order",
     .default_value = "in_order",
     .unit = "",
     .type = "choice",
     .choices = order_choices,
     .description = "the order partitions are filled and marked ready: in_order, reverse, random (a "
                    "new order every launch, each fill a random time in [0, 2 fill_us])"},
    {.name = "fill_us",
     .default_value = "0",
     .unit = "us",
     .type = "number",
     .description = "busy time to fill one partition before it is marked ready"},
    {.name = "as",
     .default_value = "partitioned",
     .unit = "",
     .type = "choice",
     .choices = as_choices,
     .description = "partitioned (MPI_Psend_init, MPI_Pready, MPI_Parrived), messages (an MPI_Isend per "
                    "partition), single (one MPI_Send once every partition is filled)"},
    MPISCOPE__OPT_PAIRS("0-1"),
    MPISCOPE__OPT_END,
};

const mpiscope_op_t mpiscope__op_partitioned_pingpong = {
    .abi = MPISCOPE_OP_ABI,
    .name = "partitioned_pingpong",
    .description = "partitioned ping-pong (MPI-4, osu_partitioned_latency): a message of `partitions` "
                   "partitions filled by `threads` threads and marked ready one by one, to the partner "
                   "and one back; `as` sends the same bytes as one message or as one per partition "
                   "instead (time: the round trip)",
    .size_meaning = "bytes of each message (all partitions; one message each way)",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS | MPISCOPE_OP_THREADS,
    .options = options,
    .initialize = pingpong_initialize,
    .execute = execute,
    .finalize = finalize,
    .validate = validate,
    .prepare = prepare,
};

const mpiscope_op_t mpiscope__op_partitioned_bw = {
    .abi = MPISCOPE_OP_ABI,
    .name = "partitioned_bw",
    .description = "partitioned bandwidth (MPI-4): a message of `partitions` partitions filled by "
                   "`threads` threads to the partner, then an empty acknowledgment; `as` sends the "
                   "same bytes as one message or as one per partition instead",
    .size_meaning = "bytes of the message (all partitions)",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_PAIRS | MPISCOPE_OP_THREADS | MPISCOPE_OP_BANDWIDTH,
    .options = options,
    .initialize = bw_initialize,
    .execute = execute,
    .finalize = finalize,
    .validate = validate,
    .prepare = prepare,
};
