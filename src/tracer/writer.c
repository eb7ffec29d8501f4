/* writer.c: this rank's trace file (docs/trace-format.md, version 2),
 * written as the run goes. At the start: preamble, header, function table,
 * the first clock synchronization, communicators, memory map. During the
 * run: a THRD block each time a thread's half buffer fills, a COMM chunk
 * per new communicator. At the end (MPI_Finalize, MPI_Abort, a signal,
 * exit): the records not written yet, the final clock, the map, END.
 *
 * Every chunk goes to a range of the file reserved with one atomic add and
 * is written there with pwrite(2): threads and a signal handler never
 * interleave their bytes, and a write cut by a signal can be done again.
 * Only pwrite/open/read/write are used: async-signal-safe. The blocks are
 * in blocks.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "trace_call.h"

typedef struct chunk_header {
    char tag[4];
    uint32_t reserved;
    uint64_t size; /* payload bytes; the payload is padded to 8 */
} chunk_header_t;

/* A chunk being written: the file, the next byte's offset, and whether a
 * write failed (the rest of the chunk is then skipped). */
typedef struct out {
    int fd;
    uint64_t at;
    int failed;
} out_t;

static uint64_t padded(uint64_t size)
{
    return (size + 7) / 8 * 8;
}

static void note_failure(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    atomic_fetch_add_explicit(&p->write_failures, 1, memory_order_relaxed);
    if (!atomic_exchange(&p->write_warned, 1) && p->write_error_len)
        (void)!write(2, p->write_error_msg, p->write_error_len);
}

static int pwrite_all(int fd, const void *data, size_t n, uint64_t at)
{
    const char *c = data;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
        at += (uint64_t)w;
    }
    return 0;
}

uint64_t mpiscope__trace_reserve(uint64_t len)
{
    return atomic_fetch_add_explicit(&mpiscope__trace_proc.file_end, len, memory_order_relaxed);
}

int mpiscope__trace_pwrite(const void *data, size_t n, uint64_t at)
{
    if (pwrite_all(mpiscope__trace_proc.fd, data, n, at) == 0)
        return 0;
    note_failure();
    return -1;
}

static void put(out_t *o, const void *data, size_t n)
{
    if (!o->failed && n && pwrite_all(o->fd, data, n, o->at) != 0) {
        o->failed = 1;
        note_failure();
    }
    o->at += n;
}

static void pad(out_t *o, uint64_t size)
{
    static const char zeros[8];
    if (size % 8)
        put(o, zeros, 8 - size % 8);
}

/* Reserve a chunk of `size` payload bytes and write its header. */
static out_t chunk_begin(const char tag[4], uint64_t size)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    out_t o = {p->fd, mpiscope__trace_reserve(16 + padded(size)), 0};
    chunk_header_t h = {.size = size};
    memcpy(h.tag, tag, 4);
    put(&o, &h, sizeof h);
    return o;
}

static void chunk(const char tag[4], const void *payload, uint64_t size)
{
    out_t o = chunk_begin(tag, size);
    put(&o, payload, size);
    pad(&o, size);
}

static void write_functions(void)
{
    uint64_t names = 0;
    for (unsigned i = 0; i < MPISCOPE_TRACE_FN_COUNT; i++)
        names += strlen(mpiscope__trace_fn_names[i]) + 1;
    uint32_t head[2] = {MPISCOPE_TRACE_FN_COUNT, 0};
    uint64_t classes = (MPISCOPE_TRACE_FN_COUNT + 7) / 8 * 8;
    out_t o = chunk_begin("FUNC", sizeof head + classes + names);
    put(&o, head, sizeof head);
    put(&o, mpiscope__trace_fn_classes, MPISCOPE_TRACE_FN_COUNT);
    pad(&o, MPISCOPE_TRACE_FN_COUNT);
    for (unsigned i = 0; i < MPISCOPE_TRACE_FN_COUNT; i++)
        put(&o, mpiscope__trace_fn_names[i], strlen(mpiscope__trace_fn_names[i]) + 1);
    pad(&o, sizeof head + classes + names);
}

static void write_clock(int which)
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
    } head = {(uint32_t)which, (uint32_t)c->nprocs, narrays,        0,           c->offset_ns,
              c->rtt_min_ns,   c->local_ns,         c->duration_ns, c->exchanges};
    uint64_t array_bytes = (uint64_t)c->nprocs * sizeof(double);
    out_t o = chunk_begin("CLOK", sizeof head + narrays * array_bytes);
    put(&o, &head, sizeof head);
    for (uint32_t i = 0; i < narrays; i++)
        put(&o, arrays[i], array_bytes);
}

void mpiscope__trace_stream_comm(const mpiscope__trace_comm_t *c)
{
    if (mpiscope__trace_proc.fd < 0)
        return;
    uint64_t members = (uint64_t)c->size * 4;
    out_t o = chunk_begin("COMM", 8 + 32 + padded(members));
    uint32_t head[2] = {1, 0};
    uint64_t fixed[3] = {c->handle, c->id, c->created};
    uint32_t more[2] = {c->flags, c->size};
    put(&o, head, sizeof head);
    put(&o, fixed, sizeof fixed);
    put(&o, more, sizeof more);
    put(&o, c->members, (size_t)members);
    pad(&o, members);
}

/* /proc/self/maps, so that the reader finds which file each call site is
 * in: at the start (a killed rank keeps it) and again at the end (the
 * reader takes the last). Whole lines up to the buffer's size. */
static void write_maps(void)
{
    static char buf[1 << 18];
    int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return;
    size_t size = 0;
    ssize_t r;
    while (size < sizeof buf && (r = read(in, buf + size, sizeof buf - size)) > 0)
        size += (size_t)r;
    close(in);
    if (size == sizeof buf)
        while (size > 0 && buf[size - 1] != '\n')
            size--;
    chunk("MAPS", buf, size);
}

void mpiscope__trace_stream_open(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    /* never over another process's file (worlds.c): rank 0 may have made its own */
    int fd = open(p->path, O_WRONLY | O_CLOEXEC | (p->path_created ? 0 : O_CREAT | O_EXCL), 0644);
    if (fd < 0) {
        if (!p->quiet)
            mpiscope__trace_warn("cannot write the trace file %s: %s", p->path, strerror(errno));
        return;
    }
    int n = snprintf(p->write_error_msg, sizeof p->write_error_msg,
                     "mpiscope-trace[rank %d]: error: cannot write %s (disk full or file size "
                     "limit?): this rank's trace is short\n",
                     p->rank, p->path);
    p->write_error_len = !p->quiet && n > 0 && (size_t)n < sizeof p->write_error_msg ? (size_t)n : 0;
    atomic_store_explicit(&p->file_end, 16, memory_order_relaxed);
    p->fd = fd;
    static const char magic[8] = {'M', 'P', 'I', 'S', 'C', 'T', 'R', 'C'};
    uint32_t version[2] = {MPISCOPE_TRACE_FORMAT_VERSION, 0x01020304u};
    out_t o = {fd, 0, 0};
    put(&o, magic, sizeof magic);
    put(&o, version, sizeof version);
    chunk("META", p->meta, p->meta_len);
    write_functions();
    write_clock(0);
    size_t ncomms = atomic_load_explicit(&p->ncomms, memory_order_acquire);
    for (size_t i = 0; i < ncomms; i++)
        mpiscope__trace_stream_comm(&p->comms[i]);
    write_maps();
}

/* Every thread's pending half (again, maybe: the same bytes at the same
 * place) and the records of its current half. */
static void write_threads(void)
{
    unsigned n = atomic_load_explicit(&mpiscope__trace_nthreads, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        mpiscope__trace_thread_t *t = atomic_load_explicit(&mpiscope__trace_threads[i], memory_order_relaxed);
        if (t == mpiscope__trace_self)
            mpiscope__trace_flush_pending(t);
        else
            mpiscope__trace_flush_pending_foreign(t);
        uint64_t count = atomic_load_explicit(&t->count, memory_order_acquire);
        if (count) {
            uint64_t len = MPISCOPE__TRACE_RAW_BLOCK(count);
            const char *block = mpiscope__trace_block(t, atomic_load(&t->current), count, atomic_load(&t->seq));
            if (mpiscope__trace_pwrite(block, len, mpiscope__trace_reserve(len)) != 0)
                atomic_fetch_add_explicit(&t->dropped, count, memory_order_relaxed);
        }
    }
}

void mpiscope__trace_write_current(void)
{
    if (mpiscope__trace_proc.fd >= 0 && !atomic_load(&mpiscope__trace_proc.written))
        write_threads();
}

static void write_end(int status, int code)
{
    uint64_t dropped = 0;
    unsigned n = atomic_load_explicit(&mpiscope__trace_nthreads, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        dropped += atomic_load_explicit(
            &atomic_load_explicit(&mpiscope__trace_threads[i], memory_order_relaxed)->dropped, memory_order_relaxed);
    struct {
        uint32_t status;
        int32_t code;
        uint64_t stamp, dropped, lost_calls, write_failures;
    } end = {(uint32_t)status,
             code,
             mpiscope__trace_stamp(),
             dropped,
             atomic_load_explicit(&mpiscope__trace_lost_calls, memory_order_relaxed),
             atomic_load_explicit(&mpiscope__trace_proc.write_failures, memory_order_relaxed)};
    chunk("END ", &end, sizeof end);
}

void mpiscope__trace_write(int end_status, int end_code)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (!p->started || atomic_exchange(&p->written, 1))
        return;
    atomic_store(&mpiscope__trace_active, 0);
    if (p->fd < 0)
        return; /* said when the file could not be opened */
    int saved = errno;
    write_threads();
    write_clock(1);
    write_maps();
    write_end(end_status, end_code);
    errno = saved;
}
