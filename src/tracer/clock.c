/* clock.c: the global clock of a trace: the engine's clock synchronization
 * on the tracer's private communicator at the start and at the end (two
 * points give offset and drift), and the residuals it measures. */
#include <stdlib.h>
#include <string.h>
#include "mpiscope/sync.h"
#include "trace_state.h"

static mpiscope_clock_sync_t *first_sync;

static double *copy_array(const double *from, int n)
{
    double *a = malloc((size_t)n * sizeof *a);
    if (a)
        memcpy(a, from, (size_t)n * sizeof *a);
    return a;
}

void mpiscope__trace_clock_sync(int which)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    mpiscope__trace_clock_t *c = &p->clock[which];
    mpiscope_sync_params_t params;
    mpiscope_sync_params_default(&params);
    params.patience = p->sync_patience;
    double *drift = NULL;
    if (which == 1 && first_sync) {
        /* How far the first synchronization has drifted by now. */
        drift = calloc((size_t)p->nprocs, sizeof *drift);
        if (mpiscope_clock_sync_verify(p->comm, first_sync, drift) != 0 || p->rank != 0) {
            free(drift);
            drift = NULL;
        }
    }
    mpiscope_clock_sync_t *s = NULL;
    int err = mpiscope_clock_sync_run(p->comm, &params, &s);
    if (err) {
        mpiscope__trace_warn("clock synchronization failed (%d): times are not on a global clock", err);
        free(drift);
        return;
    }
    c->valid = 1;
    c->offset_ns = s->offset_ns;
    c->rtt_min_ns = s->rtt_min_ns[p->rank];
    c->local_ns = mpiscope__now_ns();
    c->duration_ns = s->duration_ns;
    c->exchanges = s->exchanges;
    c->nprocs = s->nprocs;
    if (p->rank == 0) {
        c->offsets_ns = copy_array(s->offsets_ns, s->nprocs);
        c->rtt_all_ns = copy_array(s->rtt_min_ns, s->nprocs);
        c->residual_ns = copy_array(s->residual_ns, s->nprocs);
        c->drift_ns = drift;
        if (!c->offsets_ns || !c->rtt_all_ns || !c->residual_ns) {
            free(c->offsets_ns);
            free(c->rtt_all_ns);
            free(c->residual_ns);
            free(c->drift_ns);
            c->offsets_ns = c->rtt_all_ns = c->residual_ns = c->drift_ns = NULL;
        }
    }
    if (which == 0)
        first_sync = s;
    else
        mpiscope_clock_sync_free(s);
}
