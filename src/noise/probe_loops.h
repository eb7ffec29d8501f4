/* probe_loops.h (internal): the per-core noise probes (FWQ, FTQ, selfish
 * detour) and the STREAM triad pass (the memory bandwidth of a core). The clock is a parameter, so the unit tests drive the
 * loops with a fake clock and check exactly what they record. No MPI, no
 * allocation, no I/O inside a loop: records go into buffers allocated
 * beforehand; a full buffer stops recording and counts the rest as dropped. */
#ifndef MPISCOPE_NOISE_PROBE_LOOPS_H
#define MPISCOPE_NOISE_PROBE_LOOPS_H

#include <stddef.h>

/* A clock: nanoseconds, non-decreasing, from any origin. */
typedef struct mpiscope__noise_clock {
    double (*now_ns)(void *ctx);
    void *ctx;
} mpiscope__noise_clock_t;

/* Records of one probe: pairs (start_ns since the probe's start, value):
 * fwq: duration_ns of a work unit; ftq: work units in a quantum;
 * selfish: length_ns of a detour. */
typedef struct mpiscope__probe_records {
    long long *start_ns;
    long long *value;
    size_t capacity;
    size_t count;
    unsigned long long dropped; /* records that did not fit */
} mpiscope__probe_records_t;

/* Allocate room for `capacity` records. Returns 0 or MPISCOPE_ENOMEM. */
int mpiscope__probe_records_init(mpiscope__probe_records_t *r, size_t capacity);
void mpiscope__probe_records_clear(mpiscope__probe_records_t *r);
void mpiscope__probe_records_free(mpiscope__probe_records_t *r);

/* The work of FWQ units and FTQ steps: `iterations` dependent floating-point
 * steps (the result only keeps the compiler from removing them). */
double mpiscope__probe_work(unsigned long long iterations);

/* Work iterations whose best-of-5 time is about work_ns on `clock`
 * (at least 1, at most 2^40). */
unsigned long long mpiscope__fwq_calibrate(const mpiscope__noise_clock_t *clock, double work_ns);

/* FWQ: repeat work units of `iterations` for `seconds_ns`; one record per
 * unit (start, duration). *start_ns gets the clock at the start. */
void mpiscope__fwq_run(const mpiscope__noise_clock_t *clock, unsigned long long iterations, double seconds_ns,
                       mpiscope__probe_records_t *r, double *start_ns);

/* Work iterations of one FTQ step (a step is counted when it completes). */
#define MPISCOPE__FTQ_STEP_ITERATIONS 32

/* FTQ: ceil(seconds_ns / quantum_ns) quanta on absolute boundaries
 * start + k * quantum; one record per quantum (k * quantum, steps counted).
 * A step ending past a boundary counts for the quantum it began in; quanta
 * that pass entirely inside a detour record 0. */
void mpiscope__ftq_run(const mpiscope__noise_clock_t *clock, double quantum_ns, double seconds_ns,
                       mpiscope__probe_records_t *r, double *start_ns);

/* Median gap between consecutive reads of the selfish loop, over `reads`
 * reads (at most 4096). */
double mpiscope__selfish_median_step(const mpiscope__noise_clock_t *clock, int reads);

/* The default detour threshold: max(1000 ns, 10 x the median step). */
double mpiscope__selfish_default_threshold(double median_step_ns);

/* Selfish detour: read the clock in a tight loop for `seconds_ns`; every gap
 * above threshold_ns is a record (start of the gap, its length). */
void mpiscope__selfish_run(const mpiscope__noise_clock_t *clock, double threshold_ns, double seconds_ns,
                           mpiscope__probe_records_t *r, double *start_ns);

/* One STREAM triad pass, a[i] = b[i] + 3 c[i] for i < n (not inlined, so
 * that every pass really runs; the stream-ring detector's triads too). */
void mpiscope__stream_triad(double *a, const double *b, const double *c, long long n);

/* Triad passes over arrays of n elements for seconds_ns (one at least);
 * one record per pass (start, duration_ns). */
void mpiscope__triad_run(const mpiscope__noise_clock_t *clock, double *a, const double *b, const double *c, long long n,
                         double seconds_ns, mpiscope__probe_records_t *r, double *start_ns);

#endif
