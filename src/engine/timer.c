/* timer.c: selecting, calibrating and characterizing the process-wide timer. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "mpiscope/error.h"
#include "param_table.h"
#include "timer_read.h"
#ifdef MPISCOPE_SMPI
#include <simgrid/actor.h>
#include <smpi/smpi_helpers_internal.h>
#endif

/* Under SimGrid SMPI (built with -DMPISCOPE_SMPI) the only clock that means
 * anything is the simulated one, MPI_Wtime: the counter reads the host's
 * time, and every read of the simulated clock costs a context switch into
 * the simulator (and smpi/wtime of simulated time), so reads are few and a
 * wait jumps to its deadline instead of spinning. */
#ifdef MPISCOPE_SMPI
/* (every read is the same 10 ns step of simulated time: 2,000 reads on
 * each of 1,024 simulated ranks cost 8 s of wall time, 200 cost 0.55 s) */
enum { CHARACTERISE_READS = 200 };
#else
enum { CHARACTERISE_READS = 20000 };
#endif

mpiscope__timer_state_t mpiscope__timer = {.kind = MPISCOPE_TIMER_AUTO, .clock_id = CLOCK_MONOTONIC};
static mpiscope_timer_info_t timer_info;

static const char *const timer_names[] = {"auto", "tsc", "monotonic", "gettimeofday", "wtime"};
static const char *const timer_descriptions[] = {
    "the most precise trustworthy timer here: tsc when the counter is invariant, else monotonic",
    "the CPU's time-stamp counter (rdtscp, cntvct_el0), calibrated against the monotonic clock",
    "clock_gettime(CLOCK_MONOTONIC_RAW, else CLOCK_MONOTONIC)",
    "gettimeofday(): microsecond resolution",
    "MPI_Wtime()",
};

const char *mpiscope__timer_kind_description(mpiscope_timer_kind_t kind)
{
    return (unsigned)kind < sizeof timer_descriptions / sizeof *timer_descriptions ? timer_descriptions[kind] : NULL;
}

int mpiscope_timer_parse(const char *text, mpiscope_timer_kind_t *kind)
{
    for (size_t i = 0; text && i < sizeof timer_names / sizeof *timer_names; i++)
        if (strcmp(text, timer_names[i]) == 0) {
            *kind = (mpiscope_timer_kind_t)i;
            return 0;
        }
    return MPISCOPE_EINVAL;
}

const char *mpiscope_timer_kind_name(mpiscope_timer_kind_t kind)
{
    return (unsigned)kind < sizeof timer_names / sizeof *timer_names ? timer_names[kind] : "unknown";
}

/* Constant-rate, never-stopping counter: CPUID leaf 0x80000007 EDX bit 8
 * (read once here, never on the hot path), or the kernel's flags. */
static int tsc_is_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
        return 1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            constant = strstr(line, " constant_tsc") != NULL;
            nonstop = strstr(line, " nonstop_tsc") != NULL;
            break;
        }
    fclose(f);
    return constant && nonstop;
#elif defined(__aarch64__)
    return 1; /* the generic timer runs at a fixed frequency by architecture */
#else
    return 0;
#endif
}

/* CLOCK_MONOTONIC_RAW in ns since whole second `base_sec`. */
static double raw_ns_since(int64_t base_sec)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)(ts.tv_sec - base_sec) * 1e9 + (double)ts.tv_nsec;
}

/* One (raw ns since base_sec, ticks) pair with the tightest bracket of a few tries. */
static void paired_read(int64_t base_sec, double *ns, uint64_t *ticks)
{
    double best = INFINITY;
    for (int i = 0; i < 7; i++) {
        double a = raw_ns_since(base_sec);
        uint64_t t = mpiscope__tsc_read();
        double b = raw_ns_since(base_sec);
        if (b - a < best) {
            best = b - a;
            *ns = 0.5 * (a + b);
            *ticks = t;
        }
    }
}

/* The calibration's first pair. It is read by mpiscope_timer_prepare() (the
 * bench calls it before MPI_Init) or else by the first calibration, which
 * then runs from it to the end pair: the time MPI_Init takes anyway
 * lengthens the calibration instead of a wait of its own. */
static struct {
    int set;
    int64_t sec; /* whole seconds of CLOCK_MONOTONIC_RAW at the pair */
    double ns;
    uint64_t ticks;
} anchor;

enum { CALIBRATION_MIN_NS = 10000000 };

static void read_anchor(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    anchor.sec = ts.tv_sec; /* keeps the doubles small */
    paired_read(anchor.sec, &anchor.ns, &anchor.ticks);
    anchor.set = 1;
}

/* Ticks per second against CLOCK_MONOTONIC_RAW from the anchor to now, 10
 * ms at least: each pair's bracket is ~50 ns, so the rate is good to ~5
 * ppm over 10 ms, better the longer MPI_Init took after
 * mpiscope_timer_prepare(). Ranks of one node share their leader's rate, so
 * the error scales durations alike (5 ns in a ms) and moves no rank against
 * another; between nodes the drift fit and re-syncs absorb it. */
static double tsc_calibrate_hz(void)
{
#if defined(__aarch64__)
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    if (f)
        return (double)f;
#endif
    if (!anchor.set)
        read_anchor();
    while (raw_ns_since(anchor.sec) - anchor.ns < CALIBRATION_MIN_NS)
        ;
    double ns1;
    uint64_t t1;
    paired_read(anchor.sec, &ns1, &t1);
    return (double)(t1 - anchor.ticks) / ((ns1 - anchor.ns) * 1e-9);
}

void mpiscope_timer_prepare(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!anchor.set && tsc_is_invariant())
        read_anchor();
#endif
}

static double engine_now_ns(void *ctx)
{
    (void)ctx;
    return mpiscope__now_ns();
}

/* Smallest non-zero step and mean cost of a read, over `reads` reads. */
static void characterize(int reads, double *resolution_ns, double *overhead_ns)
{
    mpiscope__timer_reads_t r = mpiscope__timer_reads(engine_now_ns, NULL, reads);
    *overhead_ns = r.overhead_ns;
    *resolution_ns = r.resolution_ns;
}

static int wtime_available(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

static double call_mpi_wtime(void)
{
    return MPI_Wtime();
}

static int select_kind(mpiscope_timer_kind_t kind)
{
    mpiscope__timer_state_t *s = &mpiscope__timer;
    mpiscope_timer_info_t *info = &timer_info;
    memset(info, 0, sizeof *info);
    info->frequency_hz = 1e9;
    switch (kind) {
    case MPISCOPE_TIMER_TSC:
#ifdef MPISCOPE_SMPI
        return MPISCOPE_ENOTIMER; /* the host's counter, not the simulated time */
#endif
        info->invariant = tsc_is_invariant();
        if (!info->invariant)
            return MPISCOPE_ENOTIMER;
        info->frequency_hz = tsc_calibrate_hz();
        s->ns_per_tick = 1e9 / info->frequency_hz;
#if defined(__aarch64__)
        info->source = "cntvct_el0";
#else
        info->source = "rdtscp";
#endif
        break;
    case MPISCOPE_TIMER_MONOTONIC: {
        struct timespec ts;
        s->clock_id = clock_gettime(CLOCK_MONOTONIC_RAW, &ts) == 0 ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC;
        info->source = s->clock_id == CLOCK_MONOTONIC_RAW ? "CLOCK_MONOTONIC_RAW" : "CLOCK_MONOTONIC";
        info->invariant = 1;
        break;
    }
    case MPISCOPE_TIMER_GETTIMEOFDAY:
        info->source = "gettimeofday";
        break;
    case MPISCOPE_TIMER_WTIME: {
        if (!wtime_available())
            return MPISCOPE_ENOTIMER;
        int *is_global = NULL, found = 0, world = 0;
        MPI_Initialized(&world); /* a program of the Sessions model has no MPI_COMM_WORLD */
        if (world)
            MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &is_global, &found);
        info->wtime_is_global = found && is_global && *is_global;
        s->wtime = call_mpi_wtime;
#ifdef MPISCOPE_SMPI
        info->source = "simulated";
        info->invariant = 1; /* the simulator's clock: exact, one rate for all */
#else
        info->source = "MPI_Wtime";
#endif
        break;
    }
    default:
        return MPISCOPE_EINVAL;
    }
    info->kind = kind;
    info->name = timer_names[kind];
    return 0;
}

int mpiscope_timer_init(mpiscope_timer_kind_t kind, unsigned flags)
{
    if (flags != 0)
        return MPISCOPE_EINVAL;
    if (kind == MPISCOPE_TIMER_AUTO)
#ifdef MPISCOPE_SMPI
        kind = MPISCOPE_TIMER_WTIME;
#else
        kind = tsc_is_invariant() ? MPISCOPE_TIMER_TSC : MPISCOPE_TIMER_MONOTONIC;
#endif
    int err = select_kind(kind);
    if (err)
        return err;
    /* Readings start near 0 so doubles keep sub-picosecond precision for days. */
    mpiscope__timer.kind = kind;
    mpiscope__timer.transformed = 0;
    mpiscope__timer.origin_sec = 0;
    mpiscope__timer.origin_ns = 0;
    mpiscope__timer.origin_ticks = mpiscope__tsc_read();
    if (kind == MPISCOPE_TIMER_WTIME) {
#ifndef MPISCOPE_SMPI /* the simulated clock is one for all ranks and starts at 0: keep it */
        mpiscope__timer.origin_ns = mpiscope__timer.wtime() * 1e9;
#endif
    } else if (kind != MPISCOPE_TIMER_TSC) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        mpiscope__timer.origin_sec = tv.tv_sec; /* any whole second will do: the rest goes below */
        if (kind == MPISCOPE_TIMER_MONOTONIC) {
            struct timespec ts;
            clock_gettime(mpiscope__timer.clock_id, &ts);
            mpiscope__timer.origin_sec = ts.tv_sec;
        }
        mpiscope__timer.origin_ns = mpiscope__raw_now_ns();
    }
    characterize(CHARACTERISE_READS, &timer_info.resolution_ns, &timer_info.read_overhead_ns);
    return 0;
}

int mpiscope_timer_set_frequency(double frequency_hz)
{
    if (mpiscope__timer.kind != MPISCOPE_TIMER_TSC || !(frequency_hz > 0))
        return MPISCOPE_EINVAL;
    mpiscope__timer.ns_per_tick = 1e9 / frequency_hz;
    timer_info.frequency_hz = frequency_hz;
    return 0;
}

double mpiscope_timer_now_ns(void)
{
    return mpiscope__now_ns();
}

double mpiscope_timer_spin_until_ns(double t_ns)
{
    double now;
#ifdef MPISCOPE_SMPI
    /* One jump of simulated time to t, in double precision: the actor's
     * own sleep (smpi_nanosleep takes whole ns: a launch then started up
     * to 1 ns after its slot, another fraction at every launch, and
     * launches of one point read times a fraction of a ns apart;
     * smpi_execute advances nothing in SimGrid 3.32). One read then
     * finds t, to the rounding of the simulated clock's double. */
    if ((now = mpiscope__now_ns()) < t_ns) {
        double gap_ns = t_ns - now;
        if (mpiscope__timer.transformed) /* a local ns lasts 1/scale simulated ns */
            gap_ns /= mpiscope__timer.tf_scale;
        sg_actor_sleep_for(gap_ns * 1e-9);
        if ((now = mpiscope__now_ns()) >= t_ns - 1e-3)
            return now;
    }
#endif
    while ((now = mpiscope__now_ns()) < t_ns)
        ;
    return now;
}

/* xorshift64*: cheap, and deterministic per seed. */
static double jitter_unit(void)
{
    uint64_t x = mpiscope__timer.tf_rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    mpiscope__timer.tf_rng = x;
    return (double)((x * 2685821657736338717ULL) >> 11) * 0x1.0p-52 - 1.0; /* [-1, 1) */
}

double mpiscope__timer_transform(double raw_ns)
{
    double t = raw_ns * mpiscope__timer.tf_scale + mpiscope__timer.tf_offset_ns;
    return mpiscope__timer.tf_jitter_ns > 0 ? t + mpiscope__timer.tf_jitter_ns * jitter_unit() : t;
}

int mpiscope_timer_set_transform(const mpiscope_clock_transform_t *tf, unsigned long long seed)
{
    if (mpiscope__timer.kind == MPISCOPE_TIMER_AUTO)
        return MPISCOPE_EINVAL;
    if (!tf || (tf->offset_ns == 0 && tf->drift_ppm == 0 && tf->jitter_ns == 0)) {
        mpiscope__timer.transformed = 0;
        return 0;
    }
    if (!(tf->drift_ppm > -1e6) || !(tf->jitter_ns >= 0) || !isfinite(tf->offset_ns) || !isfinite(tf->drift_ppm)
        || !isfinite(tf->jitter_ns))
        return MPISCOPE_EINVAL;
    mpiscope__timer.tf_scale = 1 + tf->drift_ppm * 1e-6;
    mpiscope__timer.tf_offset_ns = tf->offset_ns;
    mpiscope__timer.tf_jitter_ns = tf->jitter_ns;
    mpiscope__timer.tf_rng = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    mpiscope__timer.transformed = 1;
    return 0;
}

int mpiscope_timer_get_transform(mpiscope_clock_transform_t *tf)
{
    if (!mpiscope__timer.transformed)
        return 0;
    if (tf) {
        tf->offset_ns = mpiscope__timer.tf_offset_ns;
        tf->drift_ppm = (mpiscope__timer.tf_scale - 1) * 1e6;
        tf->jitter_ns = mpiscope__timer.tf_jitter_ns;
    }
    return 1;
}

void mpiscope__timer_share_origin(MPI_Comm node)
{
    long long origin[2] = {(long long)mpiscope__timer.origin_ticks, (long long)mpiscope__timer.origin_sec};
    MPI_Bcast(origin, 2, MPI_LONG_LONG, 0, node);
    MPI_Bcast(&mpiscope__timer.origin_ns, 1, MPI_DOUBLE, 0, node);
    mpiscope__timer.origin_ticks = (uint64_t)origin[0];
    mpiscope__timer.origin_sec = origin[1];
}

int mpiscope_timer_info(mpiscope_timer_info_t *info)
{
    if (mpiscope__timer.kind == MPISCOPE_TIMER_AUTO || !info)
        return MPISCOPE_EINVAL;
    *info = timer_info;
    return 0;
}
