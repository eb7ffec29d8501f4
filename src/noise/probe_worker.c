/* probe_worker.c: one worker's sequence of probes and files. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "affinity.h"
#include "probe_file.h"
#include "probe_worker.h"

static double engine_now(void *ctx)
{
    (void)ctx;
    return mpiscope_timer_now_ns();
}

mpiscope__noise_clock_t mpiscope__noise_engine_clock(void)
{
    return (mpiscope__noise_clock_t){.now_ns = engine_now, .ctx = NULL};
}

static int fail(mpiscope__probe_worker_t *w, int code, const char *what)
{
    if (!w->error) {
        w->error = code;
        snprintf(w->message, sizeof w->message, "%s", what);
    }
    return code;
}

int mpiscope__probe_worker_prepare(const mpiscope__probe_options_t *o, mpiscope__probe_worker_t *w)
{
    char text[MPISCOPE__NOISE_ERR_LEN];
    w->error = 0;
    w->files = 0;
    if (w->pin_core >= 0 && mpiscope__pin_self(w->pin_core) != 0) {
        snprintf(text, sizeof text, "cannot pin to core %d (offline or outside this cpuset?)", w->pin_core);
        return fail(w, MPISCOPE_EINVAL, text);
    }
    if (mpiscope__cpus_allowed(&w->allowed) != 0)
        return fail(w, MPISCOPE_EIO, "cannot read the CPU affinity");
    w->core = w->pin_core >= 0 ? w->pin_core : mpiscope__current_cpu();
    if (mpiscope__probe_records_init(&w->records, mpiscope__probe_capacity(o)) != 0)
        return fail(w, MPISCOPE_ENOMEM, "cannot allocate the probe records");
    return 0;
}

int mpiscope__probe_worker_triad(mpiscope__probe_worker_t *w, long long elements, long long llc_bytes,
                                 const char *llc_source)
{
    char text[MPISCOPE__NOISE_ERR_LEN];
    const size_t n = (size_t)elements;
    w->elements = elements;
    w->llc_bytes = llc_bytes;
    w->llc_source = llc_source;
    w->a = malloc(n * sizeof *w->a);
    w->b = malloc(n * sizeof *w->b);
    w->c = malloc(n * sizeof *w->c);
    if (!w->a || !w->b || !w->c) {
        snprintf(text, sizeof text, "cannot allocate the triad's arrays (3 x %lld doubles)", elements);
        return fail(w, MPISCOPE_ENOMEM, text);
    }
    for (size_t i = 0; i < n; i++) { /* first touch by the pinned worker */
        w->a[i] = 0.0;
        w->b[i] = 1.0;
        w->c[i] = 2.0;
    }
    return 0;
}

static void run_kind(const mpiscope__probe_options_t *o, mpiscope__probe_worker_t *w, int kind,
                     mpiscope__probe_header_t *h)
{
    const mpiscope__noise_clock_t *c = &w->clock;
    const double ns = o->seconds * 1e9;
    mpiscope__probe_records_clear(&w->records);
    if (kind == MPISCOPE__PROBE_FWQ) {
        h->work_ns_target = o->fwq_work_ns;
        h->work_iterations = mpiscope__fwq_calibrate(c, o->fwq_work_ns);
        w->sync(w->sync_ctx); /* calibration times differ: start the records together */
        mpiscope__fwq_run(c, h->work_iterations, ns, &w->records, &h->start_ns);
    } else if (kind == MPISCOPE__PROBE_FTQ) {
        h->quantum_ns = o->ftq_quantum_ns;
        w->sync(w->sync_ctx);
        mpiscope__ftq_run(c, o->ftq_quantum_ns, ns, &w->records, &h->start_ns);
    } else if (kind == MPISCOPE__PROBE_TRIAD) {
        h->elements = w->elements;
        h->llc_bytes = w->llc_bytes;
        h->llc_source = w->llc_source;
        mpiscope__stream_triad(w->a, w->b, w->c, w->elements); /* one pass unrecorded: pages and TLB warm */
        w->sync(w->sync_ctx);
        mpiscope__triad_run(c, w->a, w->b, w->c, w->elements, ns, &w->records, &h->start_ns);
    } else {
        h->loop_median_ns = mpiscope__selfish_median_step(c, 4096);
        h->threshold_ns = o->selfish_threshold_ns > 0 ? o->selfish_threshold_ns
                                                      : mpiscope__selfish_default_threshold(h->loop_median_ns);
        w->sync(w->sync_ctx);
        mpiscope__selfish_run(c, h->threshold_ns, ns, &w->records, &h->start_ns);
    }
}

void mpiscope__probe_worker_run(const mpiscope__probe_options_t *o, mpiscope__probe_worker_t *w)
{
    for (int i = 0; i < o->nkinds; i++) {
        mpiscope__probe_header_t h = {.kind = mpiscope__probe_kind_name(o->kinds[i]),
                                      .rank = w->rank,
                                      .host = w->host,
                                      .pid = (long)getpid(),
                                      .core = w->core,
                                      .cpus_allowed = &w->allowed,
                                      .seconds = o->seconds,
                                      .timer = w->timer};
        w->sync(w->sync_ctx);
        run_kind(o, w, o->kinds[i], &h);
        char path[4096], text[MPISCOPE__NOISE_ERR_LEN];
        if (mpiscope__probe_file_write(o->out_dir, &h, &w->records, path, sizeof path) == 0) {
            w->files++;
        } else {
            snprintf(text, sizeof text, "cannot write %.200s", path);
            fail(w, MPISCOPE_EIO, text);
        }
    }
}

void mpiscope__probe_worker_release(mpiscope__probe_worker_t *w)
{
    mpiscope__probe_records_free(&w->records);
    free(w->a);
    free(w->b);
    free(w->c);
    w->a = w->b = w->c = NULL;
}
