/* samples.h (internal): what a measurement point keeps of its launches,
 * whatever the timing method: the samples behind the statistics, each
 * valid launch's span, start skew, idle gap and per-rank times, raw
 * launches on request, and the stopping rules. No MPI, no clock reads. */
#ifndef MPISCOPE_SAMPLES_H
#define MPISCOPE_SAMPLES_H

#include <stddef.h>
#include "mpiscope/measure.h"

/* Why a launch was invalid (raw per-launch flags). */
enum { MPISCOPE__LAUNCH_LATE = 1, MPISCOPE__LAUNCH_OVERRUN = 2 };

enum { MPISCOPE__MAX_VIEWS = 4 };

/* One launch as every rank saw it, on the global clock. */
typedef struct mpiscope__launch {
    const double *start_ns; /* rank r's start at start_ns[r * stride] */
    const double *end_ns;
    size_t stride;
    unsigned in_stage; /* the launch's place in its stage, from 0 (where its parts are) */
    double slot_ns;    /* scheduled start, NAN when the method has none */
    unsigned flags;    /* MPISCOPE__LAUNCH_*; 0 = valid */
    size_t launch;     /* the op's number of the launch (ctx->launch) */
} mpiscope__launch_t;

typedef struct mpiscope__samples {
    mpiscope_params_t params;
    int nprocs;
    int keep_raw;
    size_t capacity; /* launches the arrays hold now: they grow by doubling */
    size_t limit;    /* ... up to params.max_launches plus one stage */
    /* the statistic's inputs: one per valid launch, or per stage (barrier) */
    double *sample_ns;
    size_t n_samples;
    /* every valid launch */
    double *span_ns, *skew_ns, *gap_ns, *rank_time_ns; /* rank_time_ns[v * nprocs + r], net of
                                                          params.floor_ns */
    unsigned char *stage_first;                        /* [valid] 1: the first launch of its stage */
    size_t valid, total, late, overrun;
    size_t discarded;    /* valid launches dropped by mpiscope__samples_restart */
    size_t kept_from;    /* the first launch (raw index) whose sample counts: the last
                            restart dropped the valid ones before it */
    double *prev_end_ns; /* [nprocs] each rank's last end, for the idle gap */
    /* raw launches (keep_raw) */
    double *raw_start_ns, *raw_end_ns; /* [total * nprocs] */
    double *raw_slot_ns, *raw_time_ns; /* [total] */
    unsigned char *raw_flags;          /* [total] */
    size_t *raw_launch;                /* [total] the op's launch number of each (ctx->launch) */
    /* the op's launch number of the first launch of the stage being judged
     * (the stage loop sets it before the judge records the stage) */
    size_t stage_first_launch;
    /* method-specific series (e.g. the barrier loop's rank 0 / mean / max views) */
    const char *view_names[MPISCOPE__MAX_VIEWS];
    double *view_ns[MPISCOPE__MAX_VIEWS];
    size_t n_view_values[MPISCOPE__MAX_VIEWS];
    int n_views;
    /* parts timed by the op (mpiscope_op_ctx_parts): n_parts per rank and
     * valid launch, part_ns[(v * nprocs + r) * n_parts + p]; the stage's
     * gathered parts (stage_parts[(r * stage_k + index) * n_parts + p]),
     * set before each judge */
    size_t n_parts;
    double *part_ns;
    const double *stage_parts;
    size_t stage_k;
    mpiscope_stop_reason_t stop_reason;
    size_t short_of;        /* error rule, past the least time: valid launches still short of
                               min_valid (mpiscope__samples_stage_k) */
    int differed;           /* deterministic rule: two valid launches read different times, so
                               the point goes on under the error rule */
    double clock_max_ns;    /* the latest end seen: the deterministic rule's rounding scale */
    double resolution_ns;   /* the timer's step (the clock's limit of every interval) */
    double first_launch_ns; /* the point's first launch (mpiscope__samples_first) */
    /* validation of a synchronizing op: no rank may end a launch before
     * another started it (beyond the clocks' precision) */
    int check_sync;
    double sync_tolerance_ns;
    size_t sync_violations, sync_launch;
    int sync_rank;
    char sync_message[160];
} mpiscope__samples_t;

/* Room for params->max_launches plus one stage of launches, allocated as
 * launches come (the per-rank arrays are launches x nprocs: allocated for
 * the cap up front, a 1,024-rank point held 8 MiB whatever it needed, and
 * --max-launches 1000000 with --raw could not start). */
int mpiscope__samples_create(const mpiscope_params_t *params, int nprocs, int keep_raw, mpiscope__samples_t **out);

/* Keep n_parts op-timed parts per rank with every valid launch (before
 * the first launch). Returns 0 or MPISCOPE_ENOMEM. */
int mpiscope__samples_set_parts(mpiscope__samples_t *s, size_t n_parts);

/* Bytes the store holds in its arrays (for the tests' memory counts). */
size_t mpiscope__samples_bytes(const mpiscope__samples_t *s);
void mpiscope__samples_destroy(mpiscope__samples_t *s);

/* Record a launch; returns its own time (max over ranks of each rank's
 * duration). A valid launch's span, skew, gap and per-rank times are kept;
 * its sample is NOT added (methods choose what their sample is). */
double mpiscope__samples_add_launch(mpiscope__samples_t *s, const mpiscope__launch_t *launch);

/* The point's very first launch (stage 0, discarded): its max over ranks
 * of each rank's own duration; only the first call counts. */
void mpiscope__samples_first(mpiscope__samples_t *s, const double *start, const double *end, size_t stride);

/* Add one value to the statistic's inputs (params.floor_ns is subtracted). */
void mpiscope__samples_add_sample(mpiscope__samples_t *s, double value_ns);

/* Declare a method-specific series (index < MPISCOPE__MAX_VIEWS) and add to it. */
void mpiscope__samples_view(mpiscope__samples_t *s, int index, const char *name, double value_ns);

/* Drop the samples and valid launches so far (kept in the counts as
 * discarded): they were measured under other conditions (a window far
 * larger than the operation needs, i.e. another idle gap). */
void mpiscope__samples_restart(mpiscope__samples_t *s);

/* The statistics of the samples so far, with the floor's standard error
 * (params.floor_se_ns) and the clock's limit (resolution_ns) applied. */
int mpiscope__samples_stats(const mpiscope__samples_t *s, mpiscope_stats_t *st);

/* Whether the samples so far all read one time, to a clock's rounding:
 * within 1e-9 of the time plus 1e-12 of the latest clock reading (a
 * double's rounding of absolute times, far below any clock's step; SMPI's
 * launches agree to 1e-11 of their time). 0 with fewer than 2 samples. */
int mpiscope__samples_agree(const mpiscope__samples_t *s);

/* The stopping rules (error, count or deterministic, caps, time); also
 * sets s->stop_reason and s->short_of. */
mpiscope_stop_reason_t mpiscope__samples_stop(mpiscope__samples_t *s, double elapsed_ns);

/* Launches of the next stage of a method with one sample per launch: k,
 * or fewer when the point is past its least time and short of min_valid
 * by fewer than k (the last stop left s->short_of). */
unsigned mpiscope__samples_stage_k(const mpiscope__samples_t *s, unsigned k);

/* Statistics, summaries and instability of what was recorded (the
 * window bookkeeping fields are left for the window method). */
int mpiscope__samples_result(const mpiscope__samples_t *s, mpiscope_point_result_t *out);

#endif
