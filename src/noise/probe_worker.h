/* probe_worker.h (internal): one probe worker (an MPI rank or a pinned
 * thread) running the selected kinds one after the other, each started
 * together with the other workers through a sync callback (MPI_Barrier or
 * a thread barrier). No MPI here. */
#ifndef MPISCOPE_NOISE_PROBE_WORKER_H
#define MPISCOPE_NOISE_PROBE_WORKER_H

#include "cli.h"
#include "probe_loops.h"
#include "probe_options.h"

typedef struct mpiscope__probe_worker {
    /* set by the caller */
    int rank;     /* MPI rank, or thread index */
    int pin_core; /* -1: do not pin */
    const char *host;
    const char *timer;       /* engine timer name, for the headers */
    void (*sync)(void *ctx); /* all workers wait here before each kind */
    void *sync_ctx;
    mpiscope__noise_clock_t clock;
    /* filled in */
    int core; /* pinned core, else the CPU seen after prepare */
    mpiscope__cpu_list_t allowed;
    mpiscope__probe_records_t records;
    /* the triad's arrays (mpiscope__probe_worker_triad), their size and its basis */
    double *a, *b, *c;
    long long elements, llc_bytes;
    const char *llc_source;
    int files; /* files written */
    int error; /* 0 or an MPISCOPE_E* code */
    char message[MPISCOPE__NOISE_ERR_LEN];
} mpiscope__probe_worker_t;

/* The engine timer (mpiscope_timer_now_ns) as a probe clock. */
mpiscope__noise_clock_t mpiscope__noise_engine_clock(void);

/* Pin (if asked), read the binding back, allocate the records. Returns 0
 * or the error (also in w->error, with w->message). */
int mpiscope__probe_worker_prepare(const mpiscope__probe_options_t *o, mpiscope__probe_worker_t *w);

/* Allocate and first-touch the triad's three arrays of `elements` (after
 * prepare: the pages land near the pinned core). Returns 0 or
 * MPISCOPE_ENOMEM (with w->message). */
int mpiscope__probe_worker_triad(mpiscope__probe_worker_t *w, long long elements, long long llc_bytes,
                                 const char *llc_source);

/* Run every selected kind (sync, probe, write its file). Keeps calling
 * sync after a failed write so the other workers never wait forever. */
void mpiscope__probe_worker_run(const mpiscope__probe_options_t *o, mpiscope__probe_worker_t *w);

void mpiscope__probe_worker_release(mpiscope__probe_worker_t *w);

#endif
