/* config.c: the tracer's options from the environment, and its messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_state.h"

/* Records per half buffer: 4 MiB, two per thread; a killed rank loses at
 * most the records of its current halves. The largest: 1 GiB per half. */
enum { DEFAULT_RECORDS = 1 << 12, MAX_RECORDS = 1 << 24, DEFAULT_PATIENCE = 100 };
/* Records older than this (ms) are written even when their half is not full. */
enum { DEFAULT_FLUSH_MS = 100, MAX_FLUSH_MS = 3600000 };

static unsigned long long env_number(const char *name, unsigned long long fallback, unsigned long long min,
                                     unsigned long long max)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || v < min || v > max) {
        mpiscope__trace_warn("ignoring %s=%s: not a whole number in [%llu, %llu]", name, text, min, max);
        return fallback;
    }
    return v;
}

void mpiscope__trace_config(mpiscope__trace_proc_t *p)
{
    const char *dir = getenv("MPISCOPE_TRACE_DIR");
    if (!dir || !*dir)
        dir = "mpiscope.trace";
    if (strlen(dir) >= sizeof p->dir) {
        mpiscope__trace_warn("MPISCOPE_TRACE_DIR is too long; using mpiscope.trace");
        dir = "mpiscope.trace";
    }
    strcpy(p->dir, dir);
    p->records_per_thread = env_number("MPISCOPE_TRACE_RECORDS", DEFAULT_RECORDS, 16, MAX_RECORDS);
    p->pack = (int)env_number("MPISCOPE_TRACE_PACK", 1, 0, 1);
    p->sync_patience = (unsigned)env_number("MPISCOPE_TRACE_SYNC_PATIENCE", DEFAULT_PATIENCE, 1, 100000);
    p->early_stamps = env_number("MPISCOPE_TRACE_FLUSH_MS", DEFAULT_FLUSH_MS, 0, MAX_FLUSH_MS);
    p->quiet = (int)env_number("MPISCOPE_TRACE_QUIET", 0, 0, 1);
    /* milliseconds for now: made stamps once the timer is known (mpiscope__trace_early_stamps) */
}

void mpiscope__trace_warn(const char *fmt, ...)
{
    char line[512];
    int n = mpiscope__trace_proc.started
                ? snprintf(line, sizeof line, "mpiscope-trace[rank %d]: ", mpiscope__trace_proc.rank)
                : snprintf(line, sizeof line, "mpiscope-trace: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
