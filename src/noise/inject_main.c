/* inject_main.c: mpiscope-inject, a periodic CPU burner that plays the
 * monitoring agent. No MPI. Wakes on absolute CLOCK_MONOTONIC deadlines
 * (clock_nanosleep), burns its own CPU time (CLOCK_THREAD_CPUTIME_ID);
 * every other time reading is the engine timer. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mpiscope/timer.h"
#include "affinity.h"
#include "cli.h"
#include "inject_options.h"
#include "inject_schedule.h"

/* Set by the signal handler: a lock-free atomic (C11 allows no other
 * object shared with a handler, beside volatile sig_atomic_t). */
static atomic_int stop_requested;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "set by a signal handler");

static void on_stop(int sig)
{
    (void)sig;
    atomic_store_explicit(&stop_requested, 1, memory_order_relaxed);
}

static int stopping(void)
{
    return atomic_load_explicit(&stop_requested, memory_order_relaxed);
}

typedef struct injector {
    double t0;             /* engine timer at the start */
    struct timespec mono0; /* CLOCK_MONOTONIC at the same moment */
    unsigned long long bursts;
    double burnt_ns;
    char cpus_seen[MPISCOPE__NOISE_MAX_CPUS];
} injector_t;

static double since_start(const injector_t *in)
{
    return mpiscope_timer_now_ns() - in->t0;
}

/* Sleep until t_ns after the start; 0, or -1 when asked to stop. */
static int sleep_until(const injector_t *in, double t_ns)
{
    long long ns = (long long)t_ns + in->mono0.tv_nsec;
    struct timespec at = {.tv_sec = in->mono0.tv_sec + (time_t)(ns / 1000000000LL),
                          .tv_nsec = (long)(ns % 1000000000LL)};
    while (!stopping()) {
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
        if (rc == 0)
            return 0;
        if (rc != EINTR)
            return -1;
    }
    return -1;
}

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Burn burst_ns of this thread's CPU time; returns what was burnt. */
static double burn(double burst_ns)
{
    double c0 = thread_cpu_ns(), c = c0;
    while (c - c0 < burst_ns && !stopping())
        c = thread_cpu_ns();
    return c - c0;
}

static void run(const mpiscope__inject_options_t *o, injector_t *in, mpiscope__inject_schedule_t *s)
{
    const double end_ns = o->seconds > 0 ? o->seconds * 1e9 : -1;
    while (!stopping()) {
        if (end_ns >= 0 && s->deadline_ns >= end_ns) {
            sleep_until(in, end_ns);
            break;
        }
        if (sleep_until(in, s->deadline_ns) != 0)
            break;
        double woke = since_start(in);
        mpiscope__inject_woke(s, woke);
        double cpu = burn(o->burst_ns), now = since_start(in);
        int cpu_id = mpiscope__current_cpu();
        if (cpu_id >= 0 && cpu_id < MPISCOPE__NOISE_MAX_CPUS)
            in->cpus_seen[cpu_id] = 1;
        in->bursts++;
        in->burnt_ns += cpu;
        mpiscope__inject_burst_done(s, now - woke, cpu);
        mpiscope__inject_next(s, now);
    }
}

static void print_start(const mpiscope__inject_options_t *o)
{
    mpiscope__cpu_list_t allowed;
    char cpus[8192], core[24] = "null";
    if (mpiscope__cpus_allowed(&allowed) != 0)
        allowed.n = 0;
    if (o->core >= 0)
        snprintf(core, sizeof core, "%lld", o->core);
    printf("@mpiscope inject-start {\"pid\":%ld,\"core\":%s,\"cpus_allowed\":%s,\"hz\":%.9g,"
           "\"burst_ns\":%.9g,\"jitter\":%.9g}\n",
           (long)getpid(), core, mpiscope__cpu_list_json(&allowed, cpus, sizeof cpus), o->hz, o->burst_ns, o->jitter);
    fflush(stdout);
}

static void print_summary(const injector_t *in, const mpiscope__inject_schedule_t *s)
{
    mpiscope__cpu_list_t seen = {0};
    char cpus[8192];
    for (int c = 0; c < MPISCOPE__NOISE_MAX_CPUS; c++)
        if (in->cpus_seen[c])
            seen.cpu[seen.n++] = c;
    printf("@mpiscope inject-summary {\"bursts\":%llu,\"burnt_cpu_ns\":%.0f,\"wall_ns\":%.0f,"
           "\"skipped_periods\":%llu,\"stopped_ns\":%.0f,\"cpus_seen\":%s}\n",
           in->bursts, in->burnt_ns, since_start(in), s->skipped, s->stopped_ns,
           mpiscope__cpu_list_json(&seen, cpus, sizeof cpus));
    fflush(stdout);
}

static int install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: clock_nanosleep returns EINTR */
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGTERM, &sa, NULL) | sigaction(SIGINT, &sa, NULL);
}

int main(int argc, char **argv)
{
    mpiscope__inject_options_t o;
    char err[MPISCOPE__NOISE_ERR_LEN];
    int rc = mpiscope__inject_options_parse(argc, argv, &o, err, sizeof err);
    if (rc == 1) {
        fputs(mpiscope__inject_usage, stdout);
        return 0;
    }
    if (rc != 0) {
        fprintf(stderr, "mpiscope-inject: error: %s\n", err);
        return 2;
    }
    if (o.core >= 0 && mpiscope__pin_self((int)o.core) != 0) {
        fprintf(stderr,
                "mpiscope-inject: error: --core %lld: cannot pin there (offline or "
                "outside this cpuset?)\n",
                o.core);
        return 2;
    }
    if (install_handlers() != 0 || mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0) != 0) {
        fprintf(stderr, "mpiscope-inject: error: cannot set up signals or the timer\n");
        return 1;
    }
    injector_t in = {0};
    mpiscope__inject_schedule_t s;
    mpiscope__inject_schedule_init(&s, o.hz, o.jitter, (unsigned long long)o.seed);
    print_start(&o);
    clock_gettime(CLOCK_MONOTONIC, &in.mono0);
    in.t0 = mpiscope_timer_now_ns();
    run(&o, &in, &s);
    print_summary(&in, &s);
    return 0;
}
