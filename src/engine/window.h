/* window.h (internal): the synchronized-window scheduler (MPIPerf section
 * 4) as a pure state machine. The MPI driver (measure.c) runs each stage
 * and feeds the per-rank start/end times in here; everything that decides
 * (validity, window size, stopping, instability) happens here without MPI,
 * so it is tested with a simulated clock. */
#ifndef MPISCOPE_WINDOW_H
#define MPISCOPE_WINDOW_H

#include <stddef.h>
#include "mpiscope/measure.h"

enum { MPISCOPE__WINDOW_HISTORY = 32 }; /* needed-window samples kept for sizing */

/* Why a launch was invalid (raw per-launch flags). */
enum { MPISCOPE__LAUNCH_LATE = 1, MPISCOPE__LAUNCH_OVERRUN = 2 };

/* One stage to run: k launches, launch l at tau_ns + l * delta_ns (global clock). */
typedef struct mpiscope__stage_plan {
    unsigned index;     /* stage number j; 0 is the discarded initialisation stage */
    unsigned k;
    double delta_ns;
} mpiscope__stage_plan_t;

typedef struct mpiscope__window {
    mpiscope_params_t params;
    int nprocs;
    int keep_raw;
    mpiscope__stage_plan_t plan;       /* the next (or current) stage */
    /* valid launches of stages >= 1 */
    double *time_ns;                   /* [valid] max over ranks of own duration */
    double *span_ns;                   /* [valid] last end - first start */
    double *skew_ns;                   /* [valid] latest - earliest start */
    double *rank_time_ns;              /* [valid * nprocs] each rank's own duration */
    size_t valid, total, late, overrun;
    /* raw launches (all of stages >= 1) when keep_raw */
    double *raw_start_ns, *raw_end_ns; /* [total * nprocs] global clock */
    unsigned char *raw_flags;          /* [total] MPISCOPE__LAUNCH_* bits */
    double *raw_slot_ns;               /* [total] scheduled start, global clock */
    double *raw_time_ns;               /* [total] */
    size_t capacity;                   /* launches the arrays can hold */
    /* window sizing */
    double needed_ns[MPISCOPE__WINDOW_HISTORY];
    size_t needed_count;
    double window_initial_ns, window_last_ns, window_min_seen_ns, window_max_seen_ns;
    unsigned widened, shrunk;
    mpiscope_stop_reason_t stop_reason;
} mpiscope__window_t;

/* Allocate for at most params->max_launches launches of nprocs ranks. */
int mpiscope__window_create(const mpiscope_params_t *params, int nprocs, int keep_raw,
                            mpiscope__window_t **out);
void mpiscope__window_destroy(mpiscope__window_t *w);

/* Feed the stage just run (w->plan): tau_ns its start, start/end the
 * global-clock times [rank * k + l]. elapsed_ns is the time the point has
 * taken so far. Updates the statistics, plans the next stage in w->plan,
 * and returns 1 when the measurement is done (w->stop_reason says why). */
int mpiscope__window_feed(mpiscope__window_t *w, double tau_ns, const double *start_ns,
                          const double *end_ns, double elapsed_ns);

/* Statistics, instability and window bookkeeping of what was fed so far. */
int mpiscope__window_result(const mpiscope__window_t *w, mpiscope_point_result_t *out);

#endif
