/* mpiscope/timer.h: the process-wide clock every measurement reads.
 *
 * One timer is selected per process (per run) and read through
 * mpiscope_timer_now_ns(). Readings are nanoseconds since a per-process
 * origin taken at mpiscope_timer_init(): they are comparable between ranks
 * only after clock synchronization (mpiscope/sync.h). */
#ifndef MPISCOPE_TIMER_H
#define MPISCOPE_TIMER_H

#include "mpiscope/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpiscope_timer_kind {
    MPISCOPE_TIMER_AUTO = 0,     /* the most precise trustworthy timer here */
    MPISCOPE_TIMER_TSC,          /* rdtscp / lfence+rdtsc (x86-64), cntvct_el0 (aarch64) */
    MPISCOPE_TIMER_MONOTONIC,    /* clock_gettime(CLOCK_MONOTONIC_RAW, else MONOTONIC) */
    MPISCOPE_TIMER_GETTIMEOFDAY, /* gettimeofday(): microsecond resolution */
    MPISCOPE_TIMER_WTIME         /* MPI_Wtime(): needs MPI initialized */
} mpiscope_timer_kind_t;

/* What was measured of the selected timer at init. */
typedef struct mpiscope_timer_info {
    mpiscope_timer_kind_t kind;
    const char *name;        /* "tsc", "monotonic", "gettimeofday", "wtime" */
    const char *source;      /* e.g. "rdtscp", "CLOCK_MONOTONIC_RAW" */
    double resolution_ns;    /* smallest non-zero step seen between reads */
    double read_overhead_ns; /* mean cost of one read */
    double frequency_hz;     /* counter frequency (TSC: calibrated), else 1e9 */
    int invariant;           /* 1 if the counter is known constant-rate */
    int wtime_is_global;     /* MPI_WTIME_IS_GLOBAL for "wtime", else 0 */
} mpiscope_timer_info_t;

/* Parse "auto", "tsc", "monotonic", "gettimeofday" or "wtime".
 * Returns 0, or MPISCOPE_EINVAL for any other text. */
MPISCOPE_API int mpiscope_timer_parse(const char *text, mpiscope_timer_kind_t *kind);

/* The name of a timer kind ("auto" for MPISCOPE_TIMER_AUTO). */
MPISCOPE_API const char *mpiscope_timer_kind_name(mpiscope_timer_kind_t kind);

/* Optional, before MPI_Init (or any other start-up work): read the first
 * pair of the TSC calibration now. The calibration then spans from here to
 * mpiscope_timer_init(), so the start-up's own time makes it precise
 * instead of a wait. Not collective; cheap (microseconds); idempotent. */
MPISCOPE_API void mpiscope_timer_prepare(void);

/* Select and calibrate the process-wide timer. Not collective. AUTO picks
 * tsc when the counter is invariant, else monotonic. TSC calibration
 * against CLOCK_MONOTONIC_RAW spans at least 10 ms from its first pair
 * (mpiscope_timer_prepare(), else this call): it waits only for what the
 * start-up since mpiscope_timer_prepare() has not already taken, and is
 * good to ~5 ppm (better the longer the span). `flags` must be 0.
 * Returns MPISCOPE_ENOTIMER when the kind cannot be trusted here (TSC not
 * invariant, wtime before MPI_Init), MPISCOPE_EINVAL for bad arguments. */
MPISCOPE_API int mpiscope_timer_init(mpiscope_timer_kind_t kind, unsigned flags);

/* Replace the calibrated counter frequency (Hz) with another, e.g. the node
 * leader's, so that ranks reading one shared counter convert it alike and
 * do not drift apart by their calibration error. Only for tsc. */
MPISCOPE_API int mpiscope_timer_set_frequency(double frequency_hz);

/* Nanoseconds since this process's timer origin. Cheap (tens of ns). */
MPISCOPE_API double mpiscope_timer_now_ns(void);

/* Busy-wait until mpiscope_timer_now_ns() >= t_ns; returns the first
 * reading at or past t_ns. Never sleeps. */
MPISCOPE_API double mpiscope_timer_spin_until_ns(double t_ns);

/* Information on the selected timer; MPISCOPE_EINVAL before init. */
MPISCOPE_API int mpiscope_timer_info(mpiscope_timer_info_t *info);

/* A clock transform, to test clock synchronization against a known truth:
 * the timer then reads raw * (1 + drift_ppm 1e-6) + offset_ns, plus a
 * uniform jitter in [-jitter_ns, jitter_ns] on every read. */
typedef struct mpiscope_clock_transform {
    double offset_ns;
    double drift_ppm;
    double jitter_ns;
} mpiscope_clock_transform_t;

/* The transform `spec` gives rank `rank` (not collective). The spec is
 * items separated by ';', later ones overriding earlier ones:
 *   SELECTOR:KEY=VALUE[,KEY=VALUE...]
 * SELECTOR: "all", a rank "3", a range "4-7", or "random" (each rank draws
 * offset and drift uniformly in [-value, value] from seed=S, default 1);
 * KEY: offset (ns), drift (ppm), jitter (ns), seed (random only). Example:
 * "all:drift=20;0:drift=0;random:seed=7,offset=1e6". An empty spec gives
 * the identity. Returns 0, or MPISCOPE_EINVAL (why: a one-line reason in
 * why[why_len], may be NULL). */
MPISCOPE_API int mpiscope_clock_transform_parse(const char *spec, int rank, mpiscope_clock_transform_t *out, char *why,
                                                unsigned long why_len);

/* Check `spec` for a run of `nprocs` ranks (not collective): what
 * mpiscope_clock_transform_parse() checks, and that every rank a selector
 * names is below nprocs. Returns 0, or MPISCOPE_EINVAL with a one-line
 * reason in why[why_len] (may be NULL). */
MPISCOPE_API int mpiscope_clock_transform_check(const char *spec, int nprocs, char *why, unsigned long why_len);

/* Apply a transform to every later read of this process's timer (NULL or
 * the identity: none). The jitter's generator is seeded with `seed`. Not
 * collective; after mpiscope_timer_init. Returns 0 or MPISCOPE_EINVAL
 * (before init, drift <= -1e6 ppm, negative jitter). */
MPISCOPE_API int mpiscope_timer_set_transform(const mpiscope_clock_transform_t *transform, unsigned long long seed);

/* The transform in effect: 1 (and *transform) if one is, else 0. */
MPISCOPE_API int mpiscope_timer_get_transform(mpiscope_clock_transform_t *transform);

#ifdef __cplusplus
}
#endif
#endif
