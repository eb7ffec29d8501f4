/* check.c: the machine check (mpiscope/check.h). For every timer:
 * resolution, read cost, monotonicity over millions of reads, the TSC's
 * rate against CLOCK_MONOTONIC_RAW, and the ground-truth operations
 * measured with it (global span and start skew, not only local durations).
 * For every clock synchronization: its residual now and after a wait
 * (drift). Then the machine's states: one point measured in short runs
 * spread over seconds (a VM can switch between states for whole seconds).
 * The numbers only: the verdicts are `mpiscope check`'s. */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "mpiscope/check.h"
#include "mpiscope/error.h"
#include "check_run.h"
#include "clock_setup.h"
#include "timer_read.h"
#include "sync_report.h"
#include "util.h"

#ifdef MPISCOPE_SMPI
enum { READS = 20000 }; /* a read of the simulated clock is a switch into the simulator */
#else
enum { READS = 2000000 };
#endif
static const char *const ground_truth[] = {"waitpattern_null", "waitpattern_up", "waitpattern_down"};
static const mpiscope_timer_kind_t timers[] = {MPISCOPE_TIMER_TSC, MPISCOPE_TIMER_MONOTONIC,
                                               MPISCOPE_TIMER_GETTIMEOFDAY, MPISCOPE_TIMER_WTIME};

static double raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void pause_seconds(double seconds)
{
    struct timespec wait = {.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&wait, NULL);
}

static double timer_now_ns(void *ctx)
{
    (void)ctx;
    return mpiscope__now_ns();
}

/* Reads going backwards (all ranks), smallest step, mean cost. */
static void read_checks(MPI_Comm comm, mpiscope_check_timer_t *t)
{
    mpiscope__timer_reads_t r = mpiscope__timer_reads(timer_now_ns, NULL, READS);
    MPI_Allreduce(&r.backwards, &t->monotonic_violations, 1, MPI_UNSIGNED_LONG, MPI_SUM, comm);
    t->reads = READS;
    t->resolution_ns = r.resolution_ns;
    t->read_overhead_ns = r.overhead_ns;
}

/* The timer's rate against CLOCK_MONOTONIC_RAW over half a second, in ppm
 * (worst rank, with its sign). */
static double frequency_error_ppm(MPI_Comm comm)
{
    double r0 = raw_ns(), t0 = mpiscope_timer_now_ns();
    while (raw_ns() - r0 < 5e8)
        ;
    double r1 = raw_ns(), t1 = mpiscope_timer_now_ns();
    double ppm = ((t1 - t0) - (r1 - r0)) / (r1 - r0) * 1e6, worst;
    double mag = fabs(ppm);
    MPI_Allreduce(&mag, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    return ppm < 0 && mag == worst ? -worst : worst;
}

/* The ground-truth ops measured with a context on this timer. */
static int wait_patterns(MPI_Comm comm, const mpiscope_params_t *params, mpiscope_check_timer_t *t)
{
    mpiscope_params_t p = *params;
    p.timer = t->kind;
    mpiscope_context_t *ctx;
    int err = mpiscope_context_create(comm, &p, &ctx);
    if (err)
        return err;
    int n;
    MPI_Comm_size(comm, &n);
    for (size_t i = 0; i < MPISCOPE_CHECK_MAX_WAITPATTERNS && !err; i++) {
        mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
        mpiscope_point_result_t r;
        err = mpiscope_context_measure(ctx, mpiscope_op_find(ground_truth[i]), &spec, &r);
        if (err)
            break;
        t->waitpatterns[i] = (mpiscope_check_waitpattern_t){.op = ground_truth[i],
                                                            .expected_ns = i == 0 ? 0 : 1000.0 * n, /* unit_us = 1 */
                                                            .median_ns = r.stats.median,
                                                            .ci_low_ns = r.stats.ci_low,
                                                            .ci_high_ns = r.stats.ci_high,
                                                            .span_median_ns = r.span_median_ns,
                                                            .skew_median_ns = r.skew_median_ns};
        t->n_waitpatterns = i + 1;
    }
    mpiscope_context_destroy(ctx);
    return err;
}

/* One timer: available on every rank or not, and if so everything above. */
static int check_timer(MPI_Comm comm, const mpiscope_params_t *params, mpiscope_check_timer_t *t)
{
    int err = mpiscope_timer_init(t->kind, 0);
    MPI_Allreduce(&err, &t->unavailable_error, 1, MPI_INT, MPI_MIN, comm);
    t->available = t->unavailable_error == 0;
    t->frequency_error_ppm = NAN;
    if (!t->available)
        return 0;
    mpiscope_timer_info(&t->info);
    read_checks(comm, t);
    if (t->kind == MPISCOPE_TIMER_TSC)
        t->frequency_error_ppm = frequency_error_ppm(comm);
    return wait_patterns(comm, params, t);
}

/* One synchronization algorithm: residual now, and after a wait. */
static int check_sync(MPI_Comm comm, const mpiscope_params_t *params, double drift_seconds, mpiscope_check_sync_t *out)
{
    mpiscope_sync_params_t p = params->sync;
    p.algorithm = out->algorithm;
    mpiscope_clock_sync_t *sync;
    int err = mpiscope_clock_sync_run(comm, &p, &sync);
    if (err)
        return err;
    double *after = calloc((size_t)sync->nprocs, sizeof *after);
    if (!after) {
        mpiscope_clock_sync_free(sync);
        return MPISCOPE_ENOMEM;
    }
    pause_seconds(drift_seconds);
    mpiscope_clock_sync_verify(comm, sync, after);
    double before = mpiscope_clock_sync_max_residual_ns(sync), later = mpiscope__max_abs(after, sync->nprocs);
    mpiscope__check_sync_accuracy(sync, out);
    out->duration_ns = sync->duration_ns;
    out->max_abs_residual_ns = before;
    out->after_seconds = drift_seconds;
    out->max_abs_residual_after_ns = later;
    out->drift_ppm = drift_seconds > 0 ? (later - before) / (drift_seconds * 1e3) : NAN;
    free(after);
    mpiscope_clock_sync_free(sync);
    return 0;
}

enum { STATE_SIZE_BYTES = 1 << 20 };
static const double STATE_GAP_SECONDS = 0.25;
/* a run is short: a state lasts seconds, a run must not span two */
static const double STATE_RUN_SECONDS = 0.5;

/* The states check: the 1 MiB Bcast in short runs spread over seconds
 * (warm buffer, barrier-each: a state shows in every method, OSU's too). */
static int check_states(MPI_Comm comm, const mpiscope_params_t *params, mpiscope_check_t *c,
                        mpiscope__check_part_fn part, void *user)
{
    mpiscope_params_t p = *params;
    p.timer = MPISCOPE_TIMER_AUTO;
    if (p.max_point_seconds > STATE_RUN_SECONDS)
        p.max_point_seconds = STATE_RUN_SECONDS;
    mpiscope_context_t *ctx;
    int err = mpiscope_context_create(comm, &p, &ctx);
    if (err)
        return err;
    c->states_op = "bcast";
    c->states_method = "barrier-each"; /* a preempted rank delays a launch, not voids a run */
    c->states_size_bytes = STATE_SIZE_BYTES;
    c->states_gap_seconds = STATE_GAP_SECONDS;
    double first = raw_ns();
    for (size_t i = 0; i < MPISCOPE_CHECK_STATE_RUNS && !err; i++) {
        if (i > 0)
            pause_seconds(STATE_GAP_SECONDS);
        mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
        spec.size_bytes = STATE_SIZE_BYTES;
        spec.method = c->states_method;
        spec.cache_cold = 0; /* one buffer: no region to build per run */
        mpiscope_point_result_t r;
        double at = raw_ns() - first;
        err = mpiscope_context_measure(ctx, mpiscope_op_find(c->states_op), &spec, &r);
        if (err)
            break;
        c->state_runs[i] = (mpiscope_check_state_run_t){.at_ns = at,
                                                        .median_ns = r.stats.median,
                                                        .q25_ns = r.stats.q25,
                                                        .q75_ns = r.stats.q75,
                                                        .launches_valid = (unsigned)r.launches_valid};
        c->n_state_runs = i + 1;
        err = part ? part(c, user) : 0; /* in the gap before the next run */
    }
    mpiscope_context_destroy(ctx);
    return err;
}

static int measure(MPI_Comm comm, const mpiscope_params_t *params, double drift_seconds, mpiscope_check_t *c,
                   mpiscope__check_part_fn part, void *user)
{
    int err = 0;
    for (size_t i = 0; i < MPISCOPE_CHECK_MAX_TIMERS && !err; i++) {
        c->timers[i].kind = timers[i];
        err = check_timer(comm, params, &c->timers[i]);
        c->n_timers = i + 1;
        if (!err && part)
            err = part(c, user);
    }
    /* syncs on the default timer, as runs use it */
    if (!err)
        err = mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0);
    if (!err) {
        char why[256];
        err = mpiscope__clock_setup(comm, &params->sync, why, sizeof why);
    }
    for (int a = MPISCOPE_SYNC_LINEAR; a < MPISCOPE_SYNC_COUNT && !err; a++) {
        c->syncs[c->n_syncs].algorithm = (mpiscope_sync_algorithm_t)a;
        err = check_sync(comm, params, drift_seconds, &c->syncs[c->n_syncs]);
        c->n_syncs += !err;
        if (!err && part)
            err = part(c, user);
    }
    return err ? err : check_states(comm, params, c, part, user);
}

int mpiscope_check_run(MPI_Comm comm, const mpiscope_params_t *params, double drift_seconds, unsigned flags,
                       mpiscope_check_t **out)
{
    if (flags != 0)
        return MPISCOPE_EINVAL;
    return mpiscope__check_run_parts(comm, params, drift_seconds, NULL, NULL, out);
}

int mpiscope__check_run_parts(MPI_Comm comm, const mpiscope_params_t *params, double drift_seconds,
                              mpiscope__check_part_fn part, void *user, mpiscope_check_t **out)
{
    if (!out || !(drift_seconds >= 0) || !isfinite(drift_seconds) || comm == MPI_COMM_NULL)
        return MPISCOPE_EINVAL;
    mpiscope_params_t defaults;
    mpiscope_params_default(&defaults);
    const mpiscope_params_t *p = params ? params : &defaults;
    int err = mpiscope_params_check(p);
    if (err)
        return err;
    mpiscope_check_t *c = calloc(1, sizeof *c);
    if (!c)
        return MPISCOPE_ENOMEM;
    err = measure(comm, p, drift_seconds, c, part, user);
    if (err) {
        free(c);
        return err;
    }
    *out = c;
    return 0;
}

void mpiscope_check_free(mpiscope_check_t *check)
{
    free(check);
}
