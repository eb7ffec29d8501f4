/* timer_read.h (internal): the raw counter reads behind mpiscope_timer_now_ns.
 * Kept inline so the engine's timed regions pay one read, not a call chain. */
#ifndef MPISCOPE_TIMER_READ_H
#define MPISCOPE_TIMER_READ_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>
#include <mpi.h>
#include "mpiscope/timer.h"

typedef struct mpiscope__timer_state {
    mpiscope_timer_kind_t kind; /* AUTO until init */
    clockid_t clock_id;         /* for monotonic */
    double ns_per_tick;         /* tsc */
    uint64_t origin_ticks;      /* tsc origin */
    int64_t origin_sec;         /* timespec/timeval timers: whole seconds of the origin */
    double origin_ns;           /* and the rest, ns (wtime: the whole origin) */
    double (*wtime)(void);      /* MPI_Wtime, set by the MPI glue */
    /* An injected clock transform (mpiscope_timer_set_transform): reads
     * become raw * scale + offset + jitter; off, one predicted branch. */
    int transformed;
    double tf_scale, tf_offset_ns, tf_jitter_ns;
    uint64_t tf_rng; /* xorshift state of the jitter */
} mpiscope__timer_state_t;

extern mpiscope__timer_state_t mpiscope__timer;

/* The timer AUTO tries first: the counter, or under SimGrid SMPI
 * (-DMPISCOPE_SMPI) the simulated clock, MPI_Wtime. */
#ifdef MPISCOPE_SMPI
#define MPISCOPE__TIMER_AUTO_FIRST MPISCOPE_TIMER_WTIME
#else
#define MPISCOPE__TIMER_AUTO_FIRST MPISCOPE_TIMER_TSC
#endif

/* Serialized counter read: rdtscp waits for earlier instructions; the
 * lfence after it keeps later ones from starting early. Never CPUID: it
 * traps to the hypervisor (microseconds per read under virtualization). */
static inline uint64_t mpiscope__tsc_read(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#else
    return 0;
#endif
}

/* Seconds are made relative to the origin as integers first: an epoch
 * time in double nanoseconds (1.7e18) keeps only 256 ns of precision. */
static inline double mpiscope__timespec_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)(ts.tv_sec - mpiscope__timer.origin_sec) * 1e9 + (double)ts.tv_nsec;
}

static inline double mpiscope__raw_now_ns(void)
{
    switch (mpiscope__timer.kind) {
    case MPISCOPE_TIMER_TSC:
        return (double)(int64_t)(mpiscope__tsc_read() - mpiscope__timer.origin_ticks) * mpiscope__timer.ns_per_tick;
    case MPISCOPE_TIMER_GETTIMEOFDAY: {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (double)(tv.tv_sec - mpiscope__timer.origin_sec) * 1e9 + (double)tv.tv_usec * 1e3
               - mpiscope__timer.origin_ns;
    }
    case MPISCOPE_TIMER_WTIME:
        return (mpiscope__timer.wtime() - mpiscope__timer.origin_ns * 1e-9) * 1e9;
    default:
        return mpiscope__timespec_ns(mpiscope__timer.clock_id) - mpiscope__timer.origin_ns;
    }
}

/* Every rank of `node` (ranks reading one counter) takes the origin of its
 * rank 0, so their raw readings agree (collective over node). */
void mpiscope__timer_share_origin(MPI_Comm node);

/* The raw reading under the injected transform (timer.c). */
double mpiscope__timer_transform(double raw_ns);

static inline double mpiscope__now_ns(void)
{
    double t = mpiscope__raw_now_ns();
    return __builtin_expect(mpiscope__timer.transformed, 0) ? mpiscope__timer_transform(t) : t;
}

/* What `reads` successive reads of a clock show. */
typedef struct mpiscope__timer_reads {
    unsigned long backwards; /* reads earlier than the one before */
    double resolution_ns;    /* smallest step forward (INFINITY: none) */
    double overhead_ns;      /* mean time from one read to the next */
} mpiscope__timer_reads_t;

/* `reads` reads of now(ctx) after a first one: the timer's characterization
 * at init and the machine check's (check.c) count, both unit-tested with a
 * clock of the test's own. Inline: with a known `now` the reads are inlined
 * and their cost is what is measured. */
static inline __attribute__((always_inline)) mpiscope__timer_reads_t mpiscope__timer_reads(double (*now)(void *ctx),
                                                                                           void *ctx, long reads)
{
    mpiscope__timer_reads_t r = {0, __builtin_inf(), 0};
    double prev = now(ctx), first = prev;
    for (long i = 0; i < reads; i++) {
        double t = now(ctx);
        r.backwards += t < prev;
        if (t > prev && t - prev < r.resolution_ns)
            r.resolution_ns = t - prev;
        prev = t;
    }
    r.overhead_ns = reads > 0 ? (prev - first) / (double)reads : 0;
    return r;
}

#endif
