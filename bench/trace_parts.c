/* trace_parts: where the tracer's time per call goes, part by part. Built
 * with the tracer's own objects (src/tracer/CMakeLists.txt: it is a traced
 * program whose wrappers are linked in), run as one rank:
 *
 *   mpiscope-trace-parts [--calls N] [--repeats R]
 *
 * (MPISCOPE_TRACE_DIR, MPISCOPE_TRACE_RECORDS as for any traced program.)
 * Prints ns per call of: the two stamps, the thread lookup, the record
 * write (slot and fields, into the current half), the half switch with
 * the half's pwrite(2) into the file (its share per call), the argument
 * capture of a send (datatype size) and of a receive (status), a whole
 * traced MPI_Comm_rank against PMPI_Comm_rank. Each part: the best of R
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
    if (__builtin_expect(!mpiscope__trace_active, 0))
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
        if (__builtin_expect(t->count >= t->capacity, 0)) {
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
    if (!mpiscope__trace_active || !mpiscope__trace_self || mpiscope__trace_proc.fd < 0) {
        fprintf(stderr, "mpiscope-trace-parts: error: the tracer is not recording\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double msg = 1, got = 0;
    MPI_Status st;
    PMPI_Sendrecv(&msg, 1, MPI_DOUBLE, 0, 5, &got, 1, MPI_DOUBLE, 0, 5, MPI_COMM_SELF, &st);
    double best[8];
    for (int k = 0; k < 8; k++)
        best[k] = 1e300;
    for (long r = 0; r < repeats; r++) {
        keep_min(&best[0], stamps(n));
        keep_min(&best[1], lookups(n));
        keep_min(&best[2], records(n));
        keep_min(&best[4], send_args(n));
        keep_min(&best[5], recv_args(n, &st));
        keep_min(&best[6], comm_rank(n, 0));
        keep_min(&best[7], comm_rank(n, 1));
    }
    best[3] = best_switch / (double)mpiscope__trace_proc.records_per_thread;
    printf("tracer cost per call, by part (best of %ld repeats of %ld calls; records per half "
           "%llu, trace in %s)\n", repeats, n,
           (unsigned long long)mpiscope__trace_proc.records_per_thread, mpiscope__trace_proc.dir);
    const char *names[8] = {"stamps (enter + exit)", "thread lookup",
                            "record write (slot, fields)", "half switch + pwrite (amortised)",
                            "arguments: send (datatype size)", "arguments: receive (status)",
                            "PMPI_Comm_rank", "MPI_Comm_rank traced"};
    for (int k = 0; k < 8; k++)
        printf("%-36s %8.2f ns\n", names[k], best[k]);
    /* A repeat shorter than a half can hold no switch (the best one does
     * not): its share is added. */
    double added = best[7] - best[6];
    if ((uint64_t)n < mpiscope__trace_proc.records_per_thread)
        added += best[3];
    printf("%-36s %8.2f ns\n", "added per MPI_Comm_rank", added);
    MPI_Finalize();
    return 0;
}
