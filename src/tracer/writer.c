/* writer.c: this rank's trace file (docs/trace-format.md). Written once,
 * at the end of MPI or from a signal handler, with write(2) alone so that
 * it is async-signal-safe; every part was prepared before. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace_call.h"

typedef struct chunk_header {
    char tag[4];
    uint32_t reserved;
    uint64_t size;  /* payload bytes; the payload is padded to 8 */
} chunk_header_t;

static int put(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void pad(int fd, uint64_t size)
{
    static const char zeros[8];
    if (size % 8)
        put(fd, zeros, 8 - size % 8);
}

static void chunk_begin(int fd, const char tag[4], uint64_t size)
{
    chunk_header_t h = {.size = size};
    memcpy(h.tag, tag, 4);
    put(fd, &h, sizeof h);
}

static void chunk(int fd, const char tag[4], const void *payload, uint64_t size)
{
    chunk_begin(fd, tag, size);
    put(fd, payload, size);
    pad(fd, size);
}

static void write_functions(int fd)
{
    uint64_t names = 0;
    for (unsigned i = 0; i < MPISCOPE_TRACE_FN_COUNT; i++)
        names += strlen(mpiscope__trace_fn_names[i]) + 1;
    uint32_t head[2] = {MPISCOPE_TRACE_FN_COUNT, 0};
    uint64_t classes = (MPISCOPE_TRACE_FN_COUNT + 7) / 8 * 8;
    chunk_begin(fd, "FUNC", sizeof head + classes + names);
    put(fd, head, sizeof head);
    put(fd, mpiscope__trace_fn_classes, MPISCOPE_TRACE_FN_COUNT);
    pad(fd, MPISCOPE_TRACE_FN_COUNT);
    for (unsigned i = 0; i < MPISCOPE_TRACE_FN_COUNT; i++)
        put(fd, mpiscope__trace_fn_names[i], strlen(mpiscope__trace_fn_names[i]) + 1);
    pad(fd, sizeof head + classes + names);
}

static void write_clock(int fd, int which)
{
    const mpiscope__trace_clock_t *c = &mpiscope__trace_proc.clock[which];
    if (!c->valid)
        return;
    const double *arrays[4] = {c->offsets_ns, c->rtt_all_ns, c->residual_ns, c->drift_ns};
    uint32_t narrays = 0;
    while (narrays < 4 && arrays[narrays])
        narrays++;
    struct {
        uint32_t which, nprocs, narrays, reserved;
        double offset_ns, rtt_min_ns, local_ns, duration_ns;
        uint64_t exchanges;
    } head = {(uint32_t)which, (uint32_t)c->nprocs, narrays, 0, c->offset_ns, c->rtt_min_ns,
              c->local_ns, c->duration_ns, c->exchanges};
    uint64_t array_bytes = (uint64_t)c->nprocs * sizeof(double);
    chunk_begin(fd, "CLOK", sizeof head + narrays * array_bytes);
    put(fd, &head, sizeof head);
    for (uint32_t i = 0; i < narrays; i++)
        put(fd, arrays[i], array_bytes);
}

static void write_comms(int fd)
{
    const mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    size_t n = __atomic_load_n(&p->ncomms, __ATOMIC_ACQUIRE);
    uint64_t size = 8;
    for (size_t i = 0; i < n; i++)
        size += 32 + ((uint64_t)p->comms[i].size * 4 + 7) / 8 * 8;
    uint32_t head[2] = {(uint32_t)n, 0};
    chunk_begin(fd, "COMM", size);
    put(fd, head, sizeof head);
    for (size_t i = 0; i < n; i++) {
        const mpiscope__trace_comm_t *c = &p->comms[i];
        uint64_t fixed[3] = {c->handle, c->id, c->created};
        uint32_t more[2] = {c->flags, c->size};
        put(fd, fixed, sizeof fixed);
        put(fd, more, sizeof more);
        put(fd, c->members, (size_t)c->size * 4);
        pad(fd, (uint64_t)c->size * 4);
    }
}

static void write_threads(int fd)
{
    unsigned n = __atomic_load_n(&mpiscope__trace_nthreads, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++) {
        const mpiscope__trace_thread_t *t = mpiscope__trace_threads[i];
        uint64_t count = t->count;
        struct { uint32_t index, reserved; uint64_t count, dropped; } head = {t->index, 0, count,
                                                                             t->dropped};
        chunk_begin(fd, "THRD", sizeof head + count * sizeof(mpiscope_trace_record_t));
        put(fd, &head, sizeof head);
        put(fd, t->records, count * sizeof(mpiscope_trace_record_t));
    }
}

/* /proc/self/maps, so that the reader finds which file each call site is in. */
static void write_maps(int fd)
{
    int in = open("/proc/self/maps", O_RDONLY);
    if (in < 0)
        return;
    off_t at = lseek(fd, 0, SEEK_CUR);
    chunk_begin(fd, "MAPS", 0);
    char buf[4096];
    uint64_t size = 0;
    ssize_t r;
    while ((r = read(in, buf, sizeof buf)) > 0) {
        put(fd, buf, (size_t)r);
        size += (uint64_t)r;
    }
    close(in);
    pad(fd, size);
    chunk_header_t h = {.tag = {'M', 'A', 'P', 'S'}, .size = size};
    if (at >= 0)
        pwrite(fd, &h, sizeof h, at);
}

static void write_end(int fd, int status, int code)
{
    uint64_t dropped = 0;
    unsigned n = __atomic_load_n(&mpiscope__trace_nthreads, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        dropped += mpiscope__trace_threads[i]->dropped;
    struct { uint32_t status; int32_t code; uint64_t stamp, dropped, lost_calls; } end = {
        (uint32_t)status, code, mpiscope__trace_stamp(), dropped, mpiscope__trace_lost_calls};
    chunk(fd, "END ", &end, sizeof end);
}

void mpiscope__trace_write(int end_status, int end_code)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (!p->started || __atomic_exchange_n(&p->written, 1, __ATOMIC_ACQ_REL))
        return;
    mpiscope__trace_active = 0;
    int fd = open(p->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        static const char msg[] = "mpiscope-trace: cannot write the trace file\n";
        put(2, msg, sizeof msg - 1);
        return;
    }
    static const char magic[8] = {'M', 'P', 'I', 'S', 'C', 'T', 'R', 'C'};
    uint32_t version[2] = {MPISCOPE_TRACE_FORMAT_VERSION, 0x01020304u};
    put(fd, magic, sizeof magic);
    put(fd, version, sizeof version);
    chunk(fd, "META", p->meta, p->meta_len);
    write_functions(fd);
    write_clock(fd, 0);
    write_clock(fd, 1);
    write_comms(fd);
    write_threads(fd);
    write_maps(fd);
    write_end(fd, end_status, end_code);
    close(fd);
}
