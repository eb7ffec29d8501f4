/* contention.c: mpiscope-contention, the seed's contention experiment
 * (docs/alltoall-contention.md). The first ranks of nodes 0 and 1 time a
 * small-message ping-pong, once while every other rank idles and once
 * while the streamers send windows of large messages to the same local
 * rank on the next node (a ring of nodes). The streamers stop when an
 * MPI_Ibarrier completes, which the latency ranks enter after their test;
 * a stopping streamer sends a round of empty END messages, so every
 * receive its neighbor posted is matched. A thin client of libmpiscope
 * (timer, statistics); nodes are found here. */
#include "contention.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_PING = 1, TAG_DATA = 2, TAG_END = 3 };

typedef struct roles {
    int rank, nprocs, nodes, per_node, node, local, virtual_nodes;
    int a, b;                 /* the latency ranks: first ranks of nodes 0 and 1 */
    int streamer, next, prev; /* next/prev: streaming partners, -1 if none */
} roles_t;

static int error_exit(int rank, const char *message)
{
    if (rank == 0)
        fprintf(stderr, "mpiscope-contention: error: %s\n", message);
    MPI_Finalize();
    return 2;
}

static int is_streamer(const contention_options_t *o, int node, int local)
{
    return local >= 1 || (o->streamers_all && node >= 2);
}

/* Nodes as consecutive blocks (--nodes K) or from MPI_COMM_TYPE_SHARED;
 * either way every node must be a block of as many consecutive ranks. */
static int find_nodes(roles_t *r, const contention_options_t *o, char *message, size_t size)
{
    MPI_Comm node_comm;
    int lowest, *lowest_of, bad = 0;

    if (o->nodes) {
        if (o->nodes > r->nprocs || r->nprocs % o->nodes != 0)
            return snprintf(message, size, "--nodes %d: must divide the %d ranks", o->nodes, r->nprocs), -1;
        r->nodes = o->nodes;
        r->per_node = r->nprocs / o->nodes;
        r->virtual_nodes = 1;
        return 0;
    }
    if (!(lowest_of = malloc((size_t)r->nprocs * sizeof *lowest_of)))
        return snprintf(message, size, "out of memory"), -1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node_comm);
    MPI_Allreduce(&r->rank, &lowest, 1, MPI_INT, MPI_MIN, node_comm);
    MPI_Comm_free(&node_comm);
    MPI_Allgather(&lowest, 1, MPI_INT, lowest_of, 1, MPI_INT, MPI_COMM_WORLD);
    r->nodes = 0;
    for (int i = 0; i < r->nprocs; i++)
        r->nodes += lowest_of[i] == i;
    r->per_node = r->nprocs / r->nodes;
    for (int i = 0; i < r->nprocs; i++)
        bad |= r->nprocs % r->nodes != 0 || lowest_of[i] != i - i % r->per_node;
    free(lowest_of);
    if (bad)
        return snprintf(message, size, "the %d nodes are not equal blocks of consecutive ranks (use --nodes K)",
                        r->nodes),
               -1;
    if (r->nodes < 2)
        return snprintf(message, size, "needs at least 2 nodes, found 1 (use --nodes K for virtual nodes)"), -1;
    return 0;
}

static void assign_roles(roles_t *r, const contention_options_t *o)
{
    int m = r->per_node, k = r->nodes;

    r->node = r->rank / m;
    r->local = r->rank % m;
    r->a = 0;
    r->b = m;
    r->streamer = is_streamer(o, r->node, r->local);
    r->next = r->prev = -1;
    if (!r->streamer)
        return;
    if (is_streamer(o, (r->node + 1) % k, r->local))
        r->next = ((r->node + 1) % k) * m + r->local;
    if (is_streamer(o, (r->node - 1 + k) % k, r->local))
        r->prev = ((r->node - 1 + k) % k) * m + r->local;
}

/* Buffers and samples, allocated before anything is timed. */
typedef struct work {
    char *ping;            /* [largest size] */
    char *stream_send;     /* [stream_bytes], shared by the window's Isends */
    char *stream_recv;     /* [window][stream_bytes] */
    MPI_Request *requests; /* [2 window] */
    MPI_Status *statuses;  /* [2 window] */
    double *samples;       /* [iterations] */
} work_t;

static void work_free(work_t *w)
{
    free(w->ping);
    free(w->stream_send);
    free(w->stream_recv);
    free(w->requests);
    free(w->statuses);
    free(w->samples);
}

static int work_alloc(work_t *w, const contention_options_t *o)
{
    size_t largest = 1, window = (size_t)o->window, bytes = (size_t)o->stream_bytes;

    for (int i = 0; i < o->n_sizes; i++)
        largest = o->sizes_bytes[i] > largest ? o->sizes_bytes[i] : largest;
    w->ping = calloc(largest, 1);
    w->stream_send = calloc(bytes, 1);
    w->stream_recv = calloc(window, bytes);
    w->requests = malloc(2 * window * sizeof *w->requests);
    w->statuses = malloc(2 * window * sizeof *w->statuses);
    w->samples = malloc((size_t)o->iterations * sizeof *w->samples);
    return w->ping && w->stream_send && w->stream_recv && w->requests && w->statuses && w->samples ? 0 : -1;
}

/* One size: warmup then timed ping-pongs; rank a keeps half of each round trip. */
static void ping_pong(const roles_t *r, const contention_options_t *o, work_t *w, int size)
{
    int peer = r->rank == r->a ? r->b : r->a;

    for (long i = -o->warmup; i < o->iterations; i++) {
        double start = mpiscope_timer_now_ns();
        if (r->rank == r->a) {
            MPI_Send(w->ping, size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(w->ping, size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(w->ping, size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(w->ping, size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
        }
        if (i >= 0)
            w->samples[i] = (mpiscope_timer_now_ns() - start) / 2;
    }
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Every size, on the latency ranks; rank a summarizes (after timing). */
static void latency_test(const roles_t *r, const contention_options_t *o, work_t *w, contention_result_t *res,
                         int phase)
{
    for (int s = 0; s < o->n_sizes; s++) {
        ping_pong(r, o, w, (int)o->sizes_bytes[s]);
        if (r->rank != r->a)
            continue;
        mpiscope_stats_compute(w->samples, (size_t)o->iterations, 0.0, 0.95, &res->stats[phase][s]);
        qsort(w->samples, (size_t)o->iterations, sizeof *w->samples, compare_doubles);
        res->p90_ns[phase][s] = mpiscope_quantile_sorted(w->samples, (size_t)o->iterations, 0.9);
    }
}

/* Rounds of `window` Isends to next and Irecvs from prev until the
 * barrier completed (sending side) and END arrived (receiving side). */
static void stream(const roles_t *r, const contention_options_t *o, work_t *w, MPI_Request *barrier,
                   long long counts[2])
{
    int sending = r->next >= 0, receiving = r->prev >= 0, bytes = (int)o->stream_bytes;

    while (sending || receiving) {
        int n = 0, first_recv, stop = 0;
        if (sending) {
            MPI_Test(barrier, &stop, MPI_STATUS_IGNORE);
            for (int i = 0; i < o->window; i++)
                MPI_Isend(w->stream_send, stop ? 0 : bytes, MPI_BYTE, r->next, stop ? TAG_END : TAG_DATA,
                          MPI_COMM_WORLD, &w->requests[n++]);
            counts[stop ? 1 : 0] += o->window;
            sending = !stop;
        }
        first_recv = n;
        if (receiving)
            for (int i = 0; i < o->window; i++)
                MPI_Irecv(w->stream_recv + (size_t)i * (size_t)bytes, bytes, MPI_BYTE, r->prev, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &w->requests[n++]);
        MPI_Waitall(n, w->requests, w->statuses);
        if (receiving && w->statuses[first_recv].MPI_TAG == TAG_END)
            receiving = 0; /* a round is all DATA or all END */
    }
}

static void measure(const roles_t *r, const contention_options_t *o, work_t *w, contention_result_t *res)
{
    int latency = r->rank == r->a || r->rank == r->b;
    long long counts[2] = {0, 0}, totals[2];
    MPI_Request barrier;

    MPI_Barrier(MPI_COMM_WORLD); /* without contention: the streamers idle */
    if (latency)
        latency_test(r, o, w, res, 0);
    MPI_Barrier(MPI_COMM_WORLD); /* with contention */
    if (!latency)
        MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    if (r->streamer)
        stream(r, o, w, &barrier, counts);
    if (latency) {
        latency_test(r, o, w, res, 1);
        MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    }
    MPI_Wait(&barrier, MPI_STATUS_IGNORE);
    MPI_Reduce(counts, totals, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    res->streamed_messages = totals[0];
    res->streamed_end_messages = totals[1];
    MPI_Barrier(MPI_COMM_WORLD);
}

static int count_streamers(const roles_t *r, const contention_options_t *o)
{
    int count = 0;

    for (int i = 0; i < r->nprocs; i++)
        count += is_streamer(o, i / r->per_node, i % r->per_node);
    return count;
}

int main(int argc, char **argv)
{
    contention_options_t o;
    contention_result_t res;
    roles_t r = {0};
    work_t w = {0};
    char message[512];
    int rc, ok, all_ok;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.nprocs);
    if ((rc = contention_parse(argc, argv, &o, message, sizeof message)) > 0) {
        if (r.rank == 0)
            printf("%s\n", message);
        MPI_Finalize();
        return 0;
    }
    if (rc < 0 || find_nodes(&r, &o, message, sizeof message) != 0)
        return error_exit(r.rank, message);
    ok = mpiscope_timer_init(o.timer, 0) == 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        snprintf(message, sizeof message, "--timer %s: not available or not trustworthy here",
                 mpiscope_timer_kind_name(o.timer));
        return error_exit(r.rank, message);
    }
    ok = work_alloc(&w, &o) == 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        work_free(&w);
        return error_exit(r.rank, "out of memory for the buffers");
    }
    assign_roles(&r, &o);
    memset(&res, 0, sizeof res);
    measure(&r, &o, &w, &res);
    rc = 0;
    if (r.rank == 0) {
        res.nodes = r.nodes;
        res.ranks = r.nprocs;
        res.ranks_per_node = r.per_node;
        res.partner_rank = r.b;
        res.nodes_virtual = r.virtual_nodes;
        res.streamer_count = count_streamers(&r, &o);
        mpiscope_timer_info(&res.timer);
        contention_print_table(&o, &res);
        if (o.out && contention_write_json(o.out, &o, &res) != 0) {
            fprintf(stderr, "mpiscope-contention: error: --out %s: cannot write\n", o.out);
            rc = 2;
        }
    }
    work_free(&w);
    MPI_Finalize();
    return rc;
}
