/* probe_loops.c: FWQ, FTQ and selfish-detour loops over an abstract clock. */
#include <math.h>
#include <stdlib.h>
#include "mpiscope/error.h"
#include "probe_loops.h"

/* Keep the work from being optimized away: the start value is unknown to
 * the compiler (else it folds the loop: 1.0 is a fixed point of it) and
 * the result is stored. The store goes to the thread's own sink: probe
 * threads (--threads) sharing one would race (ThreadSanitizer saw it) and
 * bounce its cache line between their cores after every work quantum. */
static volatile const double probe_seed = 0.5;
static _Thread_local volatile double probe_sink;

int mpiscope__probe_records_init(mpiscope__probe_records_t *r, size_t capacity)
{
    r->start_ns = malloc(capacity * sizeof *r->start_ns);
    r->value = malloc(capacity * sizeof *r->value);
    r->capacity = capacity;
    mpiscope__probe_records_clear(r);
    if (!r->start_ns || !r->value) {
        mpiscope__probe_records_free(r);
        return MPISCOPE_ENOMEM;
    }
    return 0;
}

void mpiscope__probe_records_clear(mpiscope__probe_records_t *r)
{
    r->count = 0;
    r->dropped = 0;
}

void mpiscope__probe_records_free(mpiscope__probe_records_t *r)
{
    free(r->start_ns);
    free(r->value);
    r->start_ns = r->value = NULL;
    r->capacity = r->count = 0;
}

static inline void put(mpiscope__probe_records_t *r, double start_ns, double value)
{
    if (r->count < r->capacity) {
        r->start_ns[r->count] = llround(start_ns);
        r->value[r->count] = llround(value);
        r->count++;
    } else {
        r->dropped++;
    }
}

double mpiscope__probe_work(unsigned long long iterations)
{
    double x = probe_seed;
    for (unsigned long long i = 0; i < iterations; i++)
        x = x * 0.999999 + 1e-6; /* a dependency chain: no vectorization, fixed latency */
    return x;
}

static double time_work(const mpiscope__noise_clock_t *c, unsigned long long n)
{
    double best = INFINITY;
    for (int trial = 0; trial < 5; trial++) {
        double t0 = c->now_ns(c->ctx);
        probe_sink = mpiscope__probe_work(n);
        double dt = c->now_ns(c->ctx) - t0;
        best = dt < best ? dt : best;
    }
    return best;
}

unsigned long long mpiscope__fwq_calibrate(const mpiscope__noise_clock_t *clock, double work_ns)
{
    const unsigned long long cap = 1ULL << 40;
    unsigned long long n = 1000;
    double dt = time_work(clock, n);
    while (dt < work_ns / 4 && n < cap) { /* grow until the reads' cost is small */
        n *= 4;
        dt = time_work(clock, n);
    }
    double scaled = dt > 0 ? (double)n * work_ns / dt : (double)cap;
    return scaled<1 ? 1 : scaled>(double) cap ? cap : (unsigned long long)scaled;
}

void mpiscope__fwq_run(const mpiscope__noise_clock_t *clock, unsigned long long iterations, double seconds_ns,
                       mpiscope__probe_records_t *r, double *start_ns)
{
    double start = clock->now_ns(clock->ctx), prev = start;
    for (;;) {
        probe_sink = mpiscope__probe_work(iterations);
        double t = clock->now_ns(clock->ctx);
        put(r, prev - start, t - prev);
        prev = t;
        if (t - start >= seconds_ns)
            break;
    }
    *start_ns = start;
}

void mpiscope__ftq_run(const mpiscope__noise_clock_t *clock, double quantum_ns, double seconds_ns,
                       mpiscope__probe_records_t *r, double *start_ns)
{
    const long long quanta = (long long)ceil(seconds_ns / quantum_ns);
    double start = clock->now_ns(clock->ctx);
    long long k = 0, count = 0;
    double end = start + quantum_ns;
    while (k < quanta) {
        probe_sink = mpiscope__probe_work(MPISCOPE__FTQ_STEP_ITERATIONS);
        count++;
        double t = clock->now_ns(clock->ctx);
        if (t < end)
            continue;
        put(r, (double)k * quantum_ns, (double)count);
        count = 0;
        end = start + (double)(++k + 1) * quantum_ns;
        while (t >= end && k < quanta) { /* quanta spent entirely in a detour */
            put(r, (double)k * quantum_ns, 0);
            end = start + (double)(++k + 1) * quantum_ns;
        }
    }
    *start_ns = start;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mpiscope__selfish_median_step(const mpiscope__noise_clock_t *clock, int reads)
{
    double gaps[4096];
    if (reads > 4096)
        reads = 4096;
    if (reads < 2)
        reads = 2;
    double prev = clock->now_ns(clock->ctx);
    for (int i = 0; i < reads - 1; i++) {
        double t = clock->now_ns(clock->ctx);
        gaps[i] = t - prev;
        prev = t;
    }
    qsort(gaps, (size_t)(reads - 1), sizeof *gaps, cmp_double);
    return gaps[(reads - 1) / 2];
}

double mpiscope__selfish_default_threshold(double median_step_ns)
{
    return fmax(1000.0, 10.0 * median_step_ns);
}

void mpiscope__selfish_run(const mpiscope__noise_clock_t *clock, double threshold_ns, double seconds_ns,
                           mpiscope__probe_records_t *r, double *start_ns)
{
    double start = clock->now_ns(clock->ctx), prev = start;
    for (;;) {
        double t = clock->now_ns(clock->ctx);
        if (t - prev > threshold_ns)
            put(r, prev - start, t - prev);
        prev = t;
        if (t - start >= seconds_ns)
            break;
    }
    *start_ns = start;
}

__attribute__((noinline)) void mpiscope__stream_triad(double *a, const double *b, const double *c, long long n)
{
    const double q = 3.0;
    double *restrict x = a;
    const double *restrict y = b, *restrict z = c;
    for (long long i = 0; i < n; i++)
        x[i] = y[i] + q * z[i];
}

void mpiscope__triad_run(const mpiscope__noise_clock_t *clock, double *a, const double *b, const double *c, long long n,
                         double seconds_ns, mpiscope__probe_records_t *r, double *start_ns)
{
    const double start = clock->now_ns(clock->ctx);
    double now = start;
    *start_ns = start;
    do {
        double t0 = now;
        mpiscope__stream_triad(a, b, c, n);
        now = clock->now_ns(clock->ctx);
        put(r, t0 - start, now - t0);
    } while (now - start < seconds_ns);
}
