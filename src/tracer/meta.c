/* meta.c: the JSON header of a trace file, prepared when tracing starts. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mpiscope/timer.h"
#include "mpiscope/version.h"
#include "trace_state.h"

typedef struct text {
    char *buf;
    size_t cap, len;
} text_t;

static void add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text_t *t, const char *fmt, ...)
{
    if (t->len >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len = n < 0 ? t->len : t->len + (size_t)n;
    if (t->len >= t->cap)
        t->len = t->cap - 1;
}

/* A JSON string of at most `max` characters of `s` (n bytes, may hold NULs). */
static void add_string(text_t *t, const char *s, size_t n, size_t max)
{
    add(t, "\"");
    for (size_t i = 0; i < n && i < max; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            add(t, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            add(t, "\\u%04x", ch);
        else
            add(t, "%c", ch);
    }
    add(t, "\"");
}

static void add_command(text_t *t)
{
    char cmd[1024];
    ssize_t n = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        n = (ssize_t)fread(cmd, 1, sizeof cmd, f);
        fclose(f);
    }
    add(t, "\"command\": [");
    for (ssize_t i = 0; i < n;) {
        size_t len = strnlen(cmd + i, (size_t)(n - i));
        add(t, i ? ", " : "");
        add_string(t, cmd + i, len, 200);
        i += (ssize_t)len + 1;
    }
    add(t, "]");
}

void mpiscope__trace_meta(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    text_t t = {p->meta, sizeof p->meta, 0};
    mpiscope_timer_info_t info;
    mpiscope_timer_info(&info);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, version = 0, subversion = 0;
    PMPI_Get_library_version(library, &len);
    PMPI_Get_version(&version, &subversion);
    add(&t, "{\"format\": \"mpiscope-trace\", \"version\": %d, \"tracer\": \"%s\", ", MPISCOPE_TRACE_FORMAT_VERSION,
        MPISCOPE_VERSION_STRING);
    add(&t, "\"rank\": %d, \"nprocs\": %d, \"pid\": %ld, \"host\": ", p->rank, p->nprocs, (long)getpid());
    add_string(&t, host, strlen(host), 255);
    add(&t, ", \"model\": \"%s\", \"thread_level\": %d, ", p->world ? "world" : "sessions", p->thread_level);
    add(&t, "\"world\": %d, \"spawned\": %s, ", p->world_index, p->spawned ? "true" : "false");
    add(&t, "\"mpi_version\": \"%d.%d\", \"mpi_library\": ", version, subversion);
    add_string(&t, library, strnlen(library, sizeof library), 300);
    add(&t,
        ", \"timer\": {\"name\": \"%s\", \"source\": \"%s\", \"frequency_hz\": %.17g, "
        "\"resolution_ns\": %.6g, \"read_overhead_ns\": %.6g}, ",
        info.name, info.source, info.frequency_hz, info.resolution_ns, info.read_overhead_ns);
#if defined(__x86_64__) || defined(__i386__)
    const char *counter = "rdtsc";
#elif defined(__aarch64__)
    const char *counter = "cntvct_el0";
#else
    const char *counter = "timer";
#endif
    add(&t, "\"stamp_source\": \"%s\", ", mpiscope__trace_stamp_ticks ? counter : info.source);
    add(&t, "\"stamp\": \"%s\", \"ns_per_tick\": %.17g, \"origin_ticks\": %llu, ",
        mpiscope__trace_stamp_ticks ? "ticks" : "ns", mpiscope__trace_stamp_ticks ? mpiscope__timer.ns_per_tick : 1.0,
        (unsigned long long)(mpiscope__trace_stamp_ticks ? mpiscope__timer.origin_ticks : 0));
    add(&t, "\"start_stamp\": %llu, \"records_per_thread\": %llu, \"sync_patience\": %u, ",
        (unsigned long long)p->start_stamp, (unsigned long long)p->records_per_thread, p->sync_patience);
    add_command(&t);
    add(&t, "}\n");
    p->meta_len = t.len;
}
