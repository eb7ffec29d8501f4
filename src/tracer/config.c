/* config.c: the tracer's options from the environment, and its messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_state.h"

/* Records per window of the file: 4 MiB, two mapped per thread (the
 * current one and the next). The largest: 1 GiB per window. */
enum { DEFAULT_RECORDS = 1 << 16, MAX_RECORDS = 1 << 24, DEFAULT_PATIENCE = 100 };

static unsigned long long env_number(const char *name, unsigned long long fallback,
                                     unsigned long long min, unsigned long long max)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || v < min || v > max) {
        mpiscope__trace_warn("ignoring %s=%s: not a whole number in [%llu, %llu]", name, text, min,
                             max);
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
    const char *writer = getenv("MPISCOPE_TRACE_WRITER_THREAD");
    if (writer && *writer && strcmp(writer, "0") != 0)
        mpiscope__trace_warn("ignoring MPISCOPE_TRACE_WRITER_THREAD: records are written into "
                             "the mapped file, there is nothing left to write");
    p->sync_patience = (unsigned)env_number("MPISCOPE_TRACE_SYNC_PATIENCE", DEFAULT_PATIENCE, 1,
                                            100000);
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
