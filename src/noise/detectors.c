/* detectors.c: MPI_Alltoall loop, MPI_Barrier loop, STREAM triad + ring. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "detectors.h"
#include "probe_loops.h"

static int init_stream(mpiscope__detector_t *d, const mpiscope__detect_options_t *o, long long elements)
{
    const size_t n = (size_t)elements;
    d->elements = elements;
    d->triads = o->triads;
    d->messages = o->messages;
    d->message_bytes = o->message_bytes;
    d->a = malloc(n * sizeof *d->a);
    d->b = malloc(n * sizeof *d->b);
    d->c = malloc(n * sizeof *d->c);
    d->msend = malloc((size_t)o->message_bytes + 1);
    d->mrecv = malloc((size_t)(o->messages * o->message_bytes) + 1);
    d->requests = malloc(2 * (size_t)o->messages * sizeof *d->requests);
    if (!d->a || !d->b || !d->c || !d->msend || !d->mrecv || !d->requests)
        return MPISCOPE_ENOMEM;
    for (size_t i = 0; i < n; i++) { /* first touch: pages local to this rank's core */
        d->a[i] = 0.0;
        d->b[i] = 1.0;
        d->c[i] = 2.0;
    }
    memset(d->msend, d->rank & 0xff, (size_t)o->message_bytes + 1);
    return 0;
}

int mpiscope__detector_init(mpiscope__detector_t *d, const mpiscope__detect_options_t *o, MPI_Comm comm,
                            long long elements)
{
    memset(d, 0, sizeof *d);
    d->kind = o->detector;
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->size);
    if (d->kind == MPISCOPE__DETECT_ALLTOALL) {
        d->bytes = o->alltoall_bytes;
        size_t total = (size_t)d->bytes * (size_t)d->size + 1;
        d->send = malloc(total);
        d->recv = malloc(total);
        if (!d->send || !d->recv)
            return MPISCOPE_ENOMEM;
        memset(d->send, 1, total);
        memset(d->recv, 0, total);
    } else if (d->kind == MPISCOPE__DETECT_STREAM_RING) {
        return init_stream(d, o, elements);
    }
    return 0;
}

/* Each of the T triads must really run (same loop, same data): the kernel is not inlined. */
static void triad(mpiscope__detector_t *d)
{
    mpiscope__stream_triad(d->a, d->b, d->c, d->elements);
}

static void ring(mpiscope__detector_t *d)
{
    const int next = (d->rank + 1) % d->size, prev = (d->rank + d->size - 1) % d->size;
    const int m = (int)d->messages, bytes = (int)d->message_bytes;
    for (int i = 0; i < m; i++)
        MPI_Irecv(d->mrecv + (size_t)i * (size_t)bytes, bytes, MPI_BYTE, prev, 0, d->comm, &d->requests[i]);
    for (int i = 0; i < m; i++)
        MPI_Isend(d->msend, bytes, MPI_BYTE, next, 0, d->comm, &d->requests[m + i]);
    MPI_Waitall(2 * m, d->requests, MPI_STATUSES_IGNORE);
}

void mpiscope__detector_iterate(mpiscope__detector_t *d, long long iterations)
{
    for (long long it = 0; it < iterations; it++) {
        switch (d->kind) {
        case MPISCOPE__DETECT_ALLTOALL:
            MPI_Alltoall(d->send, (int)d->bytes, MPI_BYTE, d->recv, (int)d->bytes, MPI_BYTE, d->comm);
            break;
        case MPISCOPE__DETECT_BARRIER:
            MPI_Barrier(d->comm);
            break;
        default:
            for (long long t = 0; t < d->triads; t++)
                triad(d);
            ring(d);
        }
    }
}

/* Time of `n` iterations, max over ranks, seconds. */
static double timed_batch(mpiscope__detector_t *d, long long n)
{
    MPI_Barrier(d->comm);
    double t0 = mpiscope_timer_now_ns();
    mpiscope__detector_iterate(d, n);
    double mine = (mpiscope_timer_now_ns() - t0) * 1e-9, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, d->comm);
    return slowest;
}

long long mpiscope__detector_calibrate(mpiscope__detector_t *d, double seconds, double packet_seconds,
                                       mpiscope__calibration_t *cal)
{
    timed_batch(d, 1); /* warm-up: first-call costs (connections, page faults) */
    long long n = 1, done = 0;
    double spent = 0;
    while (spent < seconds) {
        spent += timed_batch(d, n);
        done += n;
        n *= 2;
    }
    cal->iterations = done;
    cal->seconds = spent;
    cal->per_iteration_ns = spent * 1e9 / (double)done;
    double per_packet = packet_seconds * 1e9 / fmax(cal->per_iteration_ns, 1e-3);
    return per_packet < 1 ? 1 : (long long)llround(fmin(per_packet, 1e15));
}

void mpiscope__detector_free(mpiscope__detector_t *d)
{
    free(d->send);
    free(d->recv);
    free(d->a);
    free(d->b);
    free(d->c);
    free(d->msend);
    free(d->mrecv);
    free(d->requests);
    memset(d, 0, sizeof *d);
}
