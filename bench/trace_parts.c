/* trace_parts: where the tracer's time per call goes, part by part. Built
 * with the tracer's own objects (src/tracer/CMakeLists.txt: it is a traced
 * program whose wrappers are linked in), run as one rank:
 *
 *   mpiscope-trace-parts [--calls N] [--repeats R]
 *
 * (MPISCOPE_TRACE_DIR, MPISCOPE_TRACE_RECORDS as for any traced program.)
 * Prints ns per call of: the two stamps, the thread lookup, the record
 * write (slot and fields, into the current half), the half switch with
 * the half packed and written with pwrite(2) (its share per call), the
 * argument capture of a send (datatype size) and of a receive (status), a whole
 * traced MPI_Comm_rank against PMPI_Comm_rank, and the calls of a
 * ping-pong on MPI_COMM_SELF (an 8-byte MPI_Send to itself, an MPI_Recv;
 * MPI_Irecv, MPI_Isend and two MPI_Wait) and MPI_Wtime, each traced against PMPI alone:
 * the wrapper's whole cost for those calls, whose arguments a record
 * keeps (datatype size, status). Each part: the best of R
 * short repeats (a shared machine only adds time; short repeats dodge its
 * preemptions); the switch: the best one over all repeats, per record of
 * a half. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "trace_call.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

/* The lookup every wrapper makes before it records. */
static __attribute__((noinline)) int lookup(void)
{
    if (__builtin_expect(!atomic_load_explicit(&mpiscope__trace_active, memory_order_relaxed), 0))
        return 0;
    mpiscope__trace_thread_t *t = mpiscope__trace_self;
    return t != NULL && !t->depth;
}

static double stamps(long n)
{
    uint64_t s = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        s += mpiscope__trace_stamp() - mpiscope__trace_stamp();
    double t = (now_ns() - t0) / (double)n;
    sink = s;
    return t;
}

static double lookups(long n)
{
    int s = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        s += lookup();
    double t = (now_ns() - t0) / (double)n;
    sink = (uint64_t)s;
    return t;
}

/* begin + end without stamps or PMPI. An iteration that fills a half (1
 * in records_per_thread) is timed on its own: the best of them is the
 * switch and the half's pwrite(2) at the call's end, shared by the half's
 * records. */
static double best_switch = 1e300;

static double records(long n)
{
    mpiscope__trace_call_t c = {0};
    double sw = 0, t0 = now_ns();
    for (long i = 0; i < n; i++) {
        mpiscope__trace_thread_t *t = mpiscope__trace_self;
        if (__builtin_expect(atomic_load_explicit(&t->count, memory_order_relaxed) >= t->capacity, 0)) {
            double s0 = now_ns();
            mpiscope__trace_begin(&c, MPISCOPE_TRACE_FN_MPI_Comm_rank, MPISCOPE__TRACE_SITE());
            c.r->t_enter = c.r->t_exit = 1;
            mpiscope__trace_end(&c, 0);
            double s = now_ns() - s0;
            sw += s;
            if (s < best_switch)
                best_switch = s;
            continue;
        }
        mpiscope__trace_begin(&c, MPISCOPE_TRACE_FN_MPI_Comm_rank, MPISCOPE__TRACE_SITE());
        c.r->t_enter = c.r->t_exit = 1; /* stands for the stamps */
        mpiscope__trace_end(&c, 0);
    }
    return (now_ns() - t0 - sw) / (double)n;
}

static double send_args(long n)
{
    int64_t s = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        s += mpiscope__trace_bytes(1, MPI_DOUBLE);
    double t = (now_ns() - t0) / (double)n;
    sink = (uint64_t)s;
    return t;
}

static double recv_args(long n, const MPI_Status *st)
{
    mpiscope_trace_record_t r = {0};
    mpiscope__trace_call_t c = {mpiscope__trace_self, &r};
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        mpiscope__trace_status(&c, st);
    double t = (now_ns() - t0) / (double)n;
    sink = (uint64_t)r.bytes;
    return t;
}

static double comm_rank(long n, int traced)
{
    int rank;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        traced ? MPI_Comm_rank(MPI_COMM_WORLD, &rank) : PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return (now_ns() - t0) / (double)n;
}

/* 8-byte messages to itself (MPICH's MPI_Send to itself waits for its
 * receive): a send (traced or not) to a receive posted with PMPI_Irecv,
 * then a receive (traced or not) of a message sent with PMPI_Isend. */
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static double self_pair(long n, int traced_send, int traced_recv)
{
    send_fn send = traced_send ? MPI_Send : PMPI_Send;
    recv_fn recv = traced_recv ? MPI_Recv : PMPI_Recv;
    double out = 1, in = 0;
    MPI_Request rq;
    MPI_Status st;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        PMPI_Irecv(&in, 1, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &rq);
        send(&out, 1, MPI_DOUBLE, 0, 7, MPI_COMM_SELF);
        PMPI_Wait(&rq, MPI_STATUS_IGNORE);
        PMPI_Isend(&out, 1, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &rq);
        recv(&in, 1, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &st);
        PMPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    return (now_ns() - t0) / (double)n;
}

/* The nonblocking round: Irecv, Isend, Wait (send), Wait (receive). */
static double self_nonblocking(long n, int traced)
{
    double out = 1, in = 0;
    MPI_Request rr, sr;
    MPI_Status st;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (traced) {
            MPI_Irecv(&in, 1, MPI_DOUBLE, 0, 8, MPI_COMM_SELF, &rr);
            MPI_Isend(&out, 1, MPI_DOUBLE, 0, 8, MPI_COMM_SELF, &sr);
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
            MPI_Wait(&rr, &st);
        } else {
            PMPI_Irecv(&in, 1, MPI_DOUBLE, 0, 8, MPI_COMM_SELF, &rr);
            PMPI_Isend(&out, 1, MPI_DOUBLE, 0, 8, MPI_COMM_SELF, &sr);
            PMPI_Wait(&sr, MPI_STATUS_IGNORE);
            PMPI_Wait(&rr, &st);
        }
    }
    return (now_ns() - t0) / (double)n;
}

/* What the fast paths capture is what MPI says: the received bytes read
 * from the status, a predefined datatype's kept size next to a derived one. */
static int parts_agree(const MPI_Status *st)
{
    mpiscope_trace_record_t r = {0};
    mpiscope__trace_call_t c = {mpiscope__trace_self, &r};
    mpiscope__trace_status(&c, st);
    MPI_Count n = -1;
    PMPI_Get_elements_x(st, MPI_BYTE, &n);
    MPI_Datatype three;
    PMPI_Type_contiguous(3, MPI_INT, &three);
    PMPI_Type_commit(&three);
    int ok = r.bytes == (int64_t)n && n == (MPI_Count)sizeof(double)
             && mpiscope__trace_bytes(5, MPI_INT) == 5 * (int64_t)sizeof(int)
             && mpiscope__trace_bytes(5, three) == 15 * (int64_t)sizeof(int)
             && mpiscope__trace_bytes(5, MPI_INT) == 5 * (int64_t)sizeof(int)
             && mpiscope__trace_bytes(2, MPI_DOUBLE) == 16;
    PMPI_Type_free(&three);
    return ok;
}

/* MPI_Wtime: osu_latency's rank 0 reads it twice per round trip. */
static double wtime(long n, int traced)
{
    double s = 0, t0 = now_ns();
    for (long i = 0; i < n; i++)
        s += traced ? MPI_Wtime() : PMPI_Wtime();
    double t = (now_ns() - t0) / (double)n;
    sink = (uint64_t)s;
    return t;
}

static void keep_min(double *best, double v)
{
    if (v < *best)
        *best = v;
}

int main(int argc, char **argv)
{
    long n = 20000, repeats = 300;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--calls"))
            n = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--repeats"))
            repeats = atol(argv[++i]);
        else {
            fprintf(stderr, "mpiscope-trace-parts: error: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (n < 1 || repeats < 1) {
        fprintf(stderr, "mpiscope-trace-parts: error: --calls and --repeats must be >= 1\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (!atomic_load(&mpiscope__trace_active) || !mpiscope__trace_self || mpiscope__trace_proc.fd < 0) {
        fprintf(stderr, "mpiscope-trace-parts: error: the tracer is not recording\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double msg = 1, got = 0;
    MPI_Status st;
    PMPI_Sendrecv(&msg, 1, MPI_DOUBLE, 0, 5, &got, 1, MPI_DOUBLE, 0, 5, MPI_COMM_SELF, &st);
    if (!parts_agree(&st)) {
        fprintf(stderr, "mpiscope-trace-parts: error: the captured sizes differ from MPI's\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    enum { NPARTS = 8, NPP = 8 };
    double best[NPARTS], pp[NPP];
    for (int k = 0; k < NPARTS; k++)
        best[k] = 1e300;
    for (int k = 0; k < NPP; k++)
        pp[k] = 1e300;
    for (long r = 0; r < repeats; r++) {
        keep_min(&best[0], stamps(n));
        keep_min(&best[1], lookups(n));
        keep_min(&best[2], records(n));
        keep_min(&best[4], send_args(n));
        keep_min(&best[5], recv_args(n, &st));
        keep_min(&best[6], comm_rank(n, 0));
        keep_min(&best[7], comm_rank(n, 1));
        keep_min(&pp[0], self_pair(n, 0, 0));
        keep_min(&pp[1], self_pair(n, 1, 0));
        keep_min(&pp[2], self_pair(n, 0, 1));
        keep_min(&pp[3], self_pair(n, 1, 1));
        keep_min(&pp[4], self_nonblocking(n, 0));
        keep_min(&pp[5], self_nonblocking(n, 1));
        keep_min(&pp[6], wtime(n, 0));
        keep_min(&pp[7], wtime(n, 1));
    }
    best[3] = best_switch / (double)mpiscope__trace_proc.records_per_thread;
    printf("tracer cost per call, by part (best of %ld repeats of %ld calls; records per half "
           "%llu, trace in %s)\n",
           repeats, n, (unsigned long long)mpiscope__trace_proc.records_per_thread, mpiscope__trace_proc.dir);
    const char *names[8] = {"stamps (enter + exit)",
                            "thread lookup",
                            "record write (slot, fields)",
                            "switch + pack + pwrite (amortized)",
                            "arguments: send (datatype size)",
                            "arguments: receive (status)",
                            "PMPI_Comm_rank",
                            "MPI_Comm_rank traced"};
    for (int k = 0; k < 8; k++)
        printf("%-36s %8.2f ns\n", names[k], best[k]);
    /* A repeat shorter than a half can hold no switch (the best one does
     * not): its share is added. */
    double added = best[7] - best[6];
    if ((uint64_t)n < mpiscope__trace_proc.records_per_thread)
        added += best[3];
    printf("%-36s %8.2f ns\n", "added per MPI_Comm_rank", added);
    /* The self ping-pong: ns per round (one pair of calls, or four). */
    double share = (uint64_t)n < mpiscope__trace_proc.records_per_thread ? best[3] : 0;
    printf("ping-pong on MPI_COMM_SELF, 8 bytes, ns per round\n");
    const char *pnames[NPP] = {"Send + Recv, PMPI",
                               "Send traced",
                               "Recv traced",
                               "Send + Recv traced",
                               "Irecv+Isend+2 Wait, PMPI",
                               "Irecv+Isend+2 Wait, traced",
                               "PMPI_Wtime (per call)",
                               "MPI_Wtime traced (per call)"};
    for (int k = 0; k < NPP; k++)
        printf("%-36s %8.2f ns\n", pnames[k], pp[k]);
    printf("%-36s %8.2f ns\n", "added per MPI_Send", pp[1] - pp[0] + share);
    printf("%-36s %8.2f ns\n", "added per MPI_Recv", pp[2] - pp[0] + share);
    printf("%-36s %8.2f ns\n", "added per call, Send + Recv", (pp[3] - pp[0]) / 2 + share);
    printf("%-36s %8.2f ns\n", "added per call, Irecv..Wait (4 calls)", (pp[5] - pp[4]) / 4 + share);
    printf("%-36s %8.2f ns\n", "added per MPI_Wtime", pp[7] - pp[6] + share);
    MPI_Finalize();
    return 0;
}
