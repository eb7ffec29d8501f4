/* check.c: the machine check. For every timer: resolution, read cost,
 * monotonicity over millions of reads, the TSC's invariance and frequency
 * against CLOCK_MONOTONIC_RAW, and the ground-truth operations measured
 * with it (global span and start skew, not only local durations). For
 * every clock synchronisation: its residual now and after a wait (drift).
 * The numbers only: the verdicts are `mpiscope check`'s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpiscope/mpiscope.h"
#include "check.h"
#include "json.h"
#include "result_internal.h"
#include "util.h"

enum { READS = 2000000 };
static const char *const ground_truth[] = {"waitpattern_null", "waitpattern_up", "waitpattern_down"};

static double raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Reads going backwards, smallest step, mean cost, over READS reads. */
static void read_checks(mpiscope__json_t *j)
{
    unsigned long backwards = 0;
    double prev = mpiscope_timer_now_ns(), first = prev, step = INFINITY;
    for (int i = 0; i < READS; i++) {
        double t = mpiscope_timer_now_ns();
        backwards += t < prev;
        if (t > prev && t - prev < step)
            step = t - prev;
        prev = t;
    }
    unsigned long all_backwards;
    MPI_Allreduce(&backwards, &all_backwards, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    mpiscope__json_integer(j, "reads", READS);
    mpiscope__json_integer(j, "monotonic_violations", (long long)all_backwards);
    mpiscope__json_number(j, "resolution_ns", step);
    mpiscope__json_number(j, "read_overhead_ns", (prev - first) / READS);
}

/* The timer's rate against CLOCK_MONOTONIC_RAW over half a second, in ppm
 * (worst rank). */
static double frequency_error_ppm(void)
{
    double r0 = raw_ns(), t0 = mpiscope_timer_now_ns();
    while (raw_ns() - r0 < 5e8)
        ;
    double r1 = raw_ns(), t1 = mpiscope_timer_now_ns();
    double ppm = ((t1 - t0) - (r1 - r0)) / (r1 - r0) * 1e6, worst;
    double mag = fabs(ppm);
    MPI_Allreduce(&mag, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return ppm < 0 && mag == worst ? -worst : worst;
}

/* Ground-truth ops measured with a context on this timer. */
static int wait_patterns(const bench_options_t *o, mpiscope_timer_kind_t kind, mpiscope__json_t *j)
{
    mpiscope_params_t p = o->params;
    p.timer = kind;
    mpiscope_context_t *ctx;
    int err = mpiscope_context_create(MPI_COMM_WORLD, &p, &ctx);
    if (err)
        return err;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    mpiscope__json_array(j, "waitpatterns");
    for (size_t i = 0; i < sizeof ground_truth / sizeof *ground_truth && !err; i++) {
        mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
        mpiscope_point_result_t r;
        err = mpiscope_context_measure(ctx, mpiscope_op_find(ground_truth[i]), &spec, &r);
        if (err)
            break;
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "op", ground_truth[i]);
        mpiscope__json_number(j, "expected_ns", i == 0 ? 0 : 1000.0 * n); /* unit_us = 1 */
        mpiscope__json_number(j, "median_ns", r.stats.median);
        mpiscope__json_number(j, "ci_low_ns", r.stats.ci_low);
        mpiscope__json_number(j, "ci_high_ns", r.stats.ci_high);
        mpiscope__json_number(j, "span_median_ns", r.span_median_ns);
        mpiscope__json_number(j, "skew_median_ns", r.skew_median_ns);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    mpiscope_context_destroy(ctx);
    return err;
}

/* One timer: available on every rank or not, and if so everything above. */
static int check_timer(const bench_options_t *o, mpiscope_timer_kind_t kind, mpiscope__json_t *j)
{
    int err = mpiscope_timer_init(kind, 0), worst;
    MPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "name", mpiscope_timer_kind_name(kind));
    mpiscope__json_bool(j, "available", worst == 0);
    if (worst != 0) {
        mpiscope__json_string(j, "why_unavailable", mpiscope_strerror(worst));
        mpiscope__json_end(j);
        return 0;
    }
    mpiscope_timer_info_t info;
    mpiscope_timer_info(&info);
    mpiscope__json_string(j, "source", info.source);
    mpiscope__json_bool(j, "invariant", info.invariant);
    mpiscope__json_number(j, "frequency_hz", info.frequency_hz);
    mpiscope__json_bool(j, "wtime_is_global", info.wtime_is_global);
    read_checks(j);
    if (kind == MPISCOPE_TIMER_TSC)
        mpiscope__json_number(j, "frequency_error_ppm", frequency_error_ppm());
    err = wait_patterns(o, kind, j);
    mpiscope__json_end(j);
    return err;
}

/* One synchronisation algorithm: residual now, and after a wait. */
static int check_sync(const bench_options_t *o, mpiscope_sync_algorithm_t algorithm, mpiscope__json_t *j)
{
    mpiscope_sync_params_t p = o->params.sync;
    p.algorithm = algorithm;
    mpiscope_clock_sync_t *sync;
    int err = mpiscope_clock_sync_run(MPI_COMM_WORLD, &p, &sync);
    if (err)
        return err;
    double *after = calloc((size_t)sync->nprocs, sizeof *after);
    if (!after) {
        mpiscope_clock_sync_free(sync);
        return MPISCOPE_ENOMEM;
    }
    struct timespec wait = {.tv_sec = (time_t)o->drift_seconds,
                            .tv_nsec = (long)((o->drift_seconds - (time_t)o->drift_seconds) * 1e9)};
    nanosleep(&wait, NULL);
    mpiscope_clock_sync_verify(MPI_COMM_WORLD, sync, after);
    double before = mpiscope_clock_sync_max_residual_ns(sync), later = mpiscope__max_abs(after, sync->nprocs);
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "algorithm", mpiscope_sync_algorithm_name(algorithm));
    mpiscope__json_number(j, "duration_ns", sync->duration_ns);
    mpiscope__json_number(j, "max_abs_residual_ns", before);
    mpiscope__json_number(j, "after_seconds", o->drift_seconds);
    mpiscope__json_number(j, "max_abs_residual_after_ns", later);
    mpiscope__json_number(j, "drift_ppm", o->drift_seconds > 0 ? (later - before) / (o->drift_seconds * 1e3) : NAN);
    mpiscope__json_end(j);
    free(after);
    mpiscope_clock_sync_free(sync);
    return 0;
}

static int measure(const bench_options_t *o, mpiscope__json_t *j)
{
    static const mpiscope_timer_kind_t timers[] = {MPISCOPE_TIMER_TSC, MPISCOPE_TIMER_MONOTONIC,
                                                   MPISCOPE_TIMER_GETTIMEOFDAY, MPISCOPE_TIMER_WTIME};
    int err = 0;
    mpiscope__json_object(j, NULL);
    mpiscope__json_array(j, "timers");
    for (size_t i = 0; i < sizeof timers / sizeof *timers && !err; i++)
        err = check_timer(o, timers[i], j);
    mpiscope__json_end(j);
    /* syncs on the default timer, as runs use it */
    if (!err)
        err = mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0);
    mpiscope__json_array(j, "sync");
    for (int a = MPISCOPE_SYNC_LINEAR; a <= MPISCOPE_SYNC_RING && !err; a++)
        err = check_sync(o, (mpiscope_sync_algorithm_t)a, j);
    mpiscope__json_end(j);
    mpiscope__json_end(j);
    return err ? err : j->failed ? MPISCOPE_ENOMEM : 0;
}

int bench_check(const bench_options_t *o)
{
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    int err = measure(o, &j);
    mpiscope_context_t *ctx = NULL;
    mpiscope_result_t *res = NULL;
    if (!err)
        err = mpiscope_context_create(MPI_COMM_WORLD, &o->params, &ctx);
    if (!err)
        err = mpiscope_result_open(ctx, o->out, o->force ? MPISCOPE_RESULT_FORCE : 0, &res);
    if (!err) {
        for (int i = 0; i < o->n_meta; i++)
            mpiscope_result_set_meta(res, o->meta_keys[i], o->meta_values[i]);
        err = mpiscope__result_set_section(res, "check", j.buf);
        int close_err = mpiscope_result_close(res, err != 0);
        err = err ? err : close_err;
    }
    mpiscope_context_destroy(ctx);
    mpiscope__json_free(&j);
    return err;
}
