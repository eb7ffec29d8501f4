/* sync.c: clock synchronisation over MPI (linear and ring), and its check. */
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/sync.h"
#include "sync_math.h"
#include "timer_read.h"
#include "param_table.h"
#include "util.h"

enum { SYNC_TAG = 7411 };
static const double MSG_CONTINUE = 1.0, MSG_STOP = 0.0;

const char *mpiscope__sync_algorithm_description(mpiscope_sync_algorithm_t algorithm)
{
    return algorithm == MPISCOPE_SYNC_RING ? "rank i syncs with i-1, offsets summed along the ring (errors add up)"
                                           : "rank 0 syncs with ranks 1..n-1 in turn: O(n) time";
}

void mpiscope_sync_params_default(mpiscope_sync_params_t *params)
{
    params->algorithm = MPISCOPE_SYNC_LINEAR;
    params->patience = 100;
    params->max_exchanges = 5000;
}

int mpiscope_sync_parse(const char *text, mpiscope_sync_algorithm_t *algorithm)
{
    if (text && strcmp(text, "linear") == 0)
        *algorithm = MPISCOPE_SYNC_LINEAR;
    else if (text && strcmp(text, "ring") == 0)
        *algorithm = MPISCOPE_SYNC_RING;
    else
        return MPISCOPE_EINVAL;
    return 0;
}

const char *mpiscope_sync_algorithm_name(mpiscope_sync_algorithm_t algorithm)
{
    return algorithm == MPISCOPE_SYNC_RING ? "ring" : "linear";
}

/* Server side of a pair: answer each ping with the (shifted) clock until told to stop. */
static void serve(MPI_Comm comm, int client, double shift_ns)
{
    double msg;
    for (;;) {
        MPI_Recv(&msg, 1, MPI_DOUBLE, client, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        if (msg == MSG_STOP)
            return;
        double now = mpiscope__now_ns() + shift_ns;
        MPI_Send(&now, 1, MPI_DOUBLE, client, SYNC_TAG, comm);
    }
}

/* Client side: ping-pong until the minimum RTT stops improving. */
static void ping(MPI_Comm comm, int server, double shift_ns, const mpiscope_sync_params_t *p,
                 mpiscope__rtt_tracker_t *t)
{
    mpiscope__rtt_tracker_reset(t);
    int done = 0;
    while (!done) {
        double server_time;
        double t_send = mpiscope__now_ns() + shift_ns;
        MPI_Send(&MSG_CONTINUE, 1, MPI_DOUBLE, server, SYNC_TAG, comm);
        MPI_Recv(&server_time, 1, MPI_DOUBLE, server, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        double t_recv = mpiscope__now_ns() + shift_ns;
        done = mpiscope__rtt_tracker_add(t, t_send, server_time, t_recv, p->patience,
                                         p->max_exchanges);
    }
    MPI_Send(&MSG_STOP, 1, MPI_DOUBLE, server, SYNC_TAG, comm);
}

/* Rank 0 pairs with every other rank in turn; clocks shifted by `shift`
 * (0 to synchronise, the offsets to verify). Fills this rank's tracker. */
static void linear_round(MPI_Comm comm, int rank, int n, double shift_ns,
                         const mpiscope_sync_params_t *p, mpiscope__rtt_tracker_t *mine)
{
    mpiscope__rtt_tracker_reset(mine);
    mine->rtt_min_ns = 0;
    for (int peer = 1; peer < n; peer++) {
        if (rank == 0)
            serve(comm, peer, shift_ns);
        else if (rank == peer)
            ping(comm, 0, shift_ns, p, mine);
    }
}

/* Each rank i > 0 pings i-1; odd ranks first, then even ones, so no rank
 * serves and pings at once. Returns o_{i,i-1} in *mine. */
static void ring_round(MPI_Comm comm, int rank, int n, const mpiscope_sync_params_t *p,
                       mpiscope__rtt_tracker_t *mine)
{
    mpiscope__rtt_tracker_reset(mine);
    mine->rtt_min_ns = 0;
    for (int phase = 1; phase >= 0; phase--) { /* phase 1: odd clients, phase 0: even */
        if (rank > 0 && rank % 2 == phase)
            ping(comm, rank - 1, 0, p, mine);
        if (rank + 1 < n && (rank + 1) % 2 == phase)
            serve(comm, rank + 1, 0);
    }
}

static mpiscope_clock_sync_t *sync_alloc(int n)
{
    mpiscope_clock_sync_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->offsets_ns = calloc((size_t)n, sizeof(double));
    s->rtt_min_ns = calloc((size_t)n, sizeof(double));
    s->residual_ns = calloc((size_t)n, sizeof(double));
    if (!s->offsets_ns || !s->rtt_min_ns || !s->residual_ns) {
        mpiscope_clock_sync_free(s);
        return NULL;
    }
    s->nprocs = n;
    return s;
}

int mpiscope_clock_sync_run(MPI_Comm comm, const mpiscope_sync_params_t *params,
                            mpiscope_clock_sync_t **out)
{
    mpiscope_sync_params_t defaults;
    if (!params) {
        mpiscope_sync_params_default(&defaults);
        params = &defaults;
    }
    if (!out || params->patience == 0 || params->max_exchanges == 0)
        return MPISCOPE_EINVAL;
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    mpiscope_clock_sync_t *s = sync_alloc(n);
    if (!s)
        return MPISCOPE_ENOMEM;
    s->algorithm = params->algorithm;
    s->rank = rank;

    MPI_Barrier(comm);
    double t0 = mpiscope__now_ns();
    mpiscope__rtt_tracker_t mine;
    if (params->algorithm == MPISCOPE_SYNC_RING)
        ring_round(comm, rank, n, params, &mine);
    else
        linear_round(comm, rank, n, 0, params, &mine);

    unsigned long exchanges = mine.exchanges;
    MPI_Reduce(&exchanges, &s->exchanges, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, comm);
    MPI_Gather(&mine.rtt_min_ns, 1, MPI_DOUBLE, s->rtt_min_ns, 1, MPI_DOUBLE, 0, comm);
    double local = rank == 0 ? 0 : mine.offset_ns;
    MPI_Gather(&local, 1, MPI_DOUBLE, s->offsets_ns, 1, MPI_DOUBLE, 0, comm);
    if (params->algorithm == MPISCOPE_SYNC_RING && rank == 0) {
        double *pairs = malloc((size_t)n * sizeof *pairs);
        if (!pairs) {
            mpiscope_clock_sync_free(s);
            return MPISCOPE_ENOMEM; /* ranks then block in Scatter: MPI aborts on exit */
        }
        memcpy(pairs, s->offsets_ns, (size_t)n * sizeof *pairs);
        mpiscope__ring_offsets(pairs, n, s->offsets_ns);
        free(pairs);
    }
    MPI_Scatter(s->offsets_ns, 1, MPI_DOUBLE, &s->offset_ns, 1, MPI_DOUBLE, 0, comm);
    if (rank != 0) {
        s->offsets_ns[rank] = s->offset_ns;
        s->rtt_min_ns[rank] = mine.rtt_min_ns;
    }
    s->duration_ns = mpiscope__now_ns() - t0;
    int err = mpiscope_clock_sync_verify(comm, s, s->residual_ns);
    if (err) {
        mpiscope_clock_sync_free(s);
        return err;
    }
    *out = s;
    return 0;
}

int mpiscope_clock_sync_verify(MPI_Comm comm, const mpiscope_clock_sync_t *sync, double *residual_ns)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    if (!sync || n != sync->nprocs || (rank == 0 && !residual_ns))
        return MPISCOPE_EINVAL;
    /* A shorter patience than the sync itself: this is a check, not a fit. */
    mpiscope_sync_params_t p = {.algorithm = MPISCOPE_SYNC_LINEAR, .patience = 30, .max_exchanges = 1000};
    mpiscope__rtt_tracker_t mine;
    linear_round(comm, rank, n, sync->offset_ns, &p, &mine);
    double left = rank == 0 ? 0 : mine.offset_ns;
    MPI_Gather(&left, 1, MPI_DOUBLE, residual_ns, 1, MPI_DOUBLE, 0, comm);
    return 0;
}

double mpiscope_clock_sync_max_residual_ns(const mpiscope_clock_sync_t *sync)
{
    return mpiscope__max_abs(sync->residual_ns, sync->nprocs);
}

double mpiscope_clock_sync_now_ns(const mpiscope_clock_sync_t *sync)
{
    return mpiscope__now_ns() + sync->offset_ns;
}

void mpiscope_clock_sync_free(mpiscope_clock_sync_t *sync)
{
    if (!sync)
        return;
    free(sync->offsets_ns);
    free(sync->rtt_min_ns);
    free(sync->residual_ns);
    free(sync);
}
