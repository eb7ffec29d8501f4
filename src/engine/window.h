/* window.h (internal): the synchronized-window scheduler (MPIPerf section
 * 4) as a pure state machine. The MPI driver (measure.c) runs each stage
 * and feeds the per-rank start/end times in here; everything that decides
 * (validity, window size, stopping) happens here or in samples.c without
 * MPI, so it is tested with a simulated clock. */
#ifndef MPISCOPE_WINDOW_H
#define MPISCOPE_WINDOW_H

#include <stddef.h>
#include "samples.h"

enum { MPISCOPE__WINDOW_HISTORY = 32 }; /* needed-window samples kept for sizing */

/* One stage to run: k launches, launch l at tau_ns + l * delta_ns (global clock). */
typedef struct mpiscope__stage_plan {
    unsigned index; /* stage number j; 0 is the discarded initialization stage */
    unsigned k;
    double delta_ns;
} mpiscope__stage_plan_t;

typedef struct mpiscope__window {
    mpiscope_params_t params;
    int nprocs;
    mpiscope__samples_t *samples;
    const double *arrival_ns;    /* [nprocs] planned start delays, or NULL */
    mpiscope__stage_plan_t plan; /* the next (or current) stage */
    double needed_ns[MPISCOPE__WINDOW_HISTORY];
    size_t needed_count;
    double window_initial_ns, window_last_ns, window_min_seen_ns, window_max_seen_ns;
    unsigned widened, shrunk, restarts;
} mpiscope__window_t;

/* A scheduler recording into `samples` (not owned). arrival_ns, if not
 * NULL, delays rank r's start by arrival_ns[r] after each slot (must
 * outlive the window). params->window_ns > 0 fixes the window. */
int mpiscope__window_create(const mpiscope_params_t *params, mpiscope__samples_t *samples, const double *arrival_ns,
                            mpiscope__window_t **out);
void mpiscope__window_destroy(mpiscope__window_t *w);

/* Feed the stage just run (w->plan): tau_ns its start, start/end the
 * global-clock times [rank * k + l] of each launch, done_ns when each rank
 * was through with it (its validation check included; = end otherwise):
 * a slot must hold that. elapsed_ns is the time the point has taken so
 * far. Records the launches, plans the next stage in w->plan, and returns
 * 1 when the measurement is done (samples->stop_reason). */
int mpiscope__window_feed(mpiscope__window_t *w, double tau_ns, const double *start_ns, const double *end_ns,
                          const double *done_ns, double elapsed_ns);

/* The window bookkeeping fields of a result. */
void mpiscope__window_result(const mpiscope__window_t *w, mpiscope_point_result_t *out);

#endif
