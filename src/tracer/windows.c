/* windows.c: a thread's records go straight into its rank file. Each
 * thread fills a window: whole pages of the file, mapped MAP_SHARED, laid
 * out as a 24-byte PAD chunk, a THRD head and the records (64-byte
 * aligned). A record is in the page cache as soon as it is written: no
 * copy, no write(2), and a SIGKILL loses nothing.
 *
 * A window is reserved at the end of the file with one atomic add, its
 * blocks are allocated (fallocate: a full disk or a file size limit is an
 * error here, never a SIGBUS when a record is written) and its pages are
 * faulted in (MADV_POPULATE_WRITE), all at the end of the call that began
 * the window before it: in no call's time. Until the switch it is one
 * PAD chunk; the switch writes its THRD head (first sequence number), then
 * shrinks the PAD to 24 bytes with one 8-byte store, so a reader sees
 * either padding or the block. The THRD head counts the whole window:
 * slots not taken yet are zeros, which the reader skips (t_enter 0), and a
 * run that finalizes trims the block to its records.
 *
 * Before the file is open, and when no window can be had, records go to
 * the thread's anonymous area, written as a block with pwrite(2) when it
 * fills (or at the end). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "trace_call.h"

typedef struct block_head {
    char tag[4];
    uint32_t reserved;
    uint64_t size;   /* payload bytes */
    uint32_t index, reserved2;
    uint64_t count;  /* records in this block */
    uint64_t first;  /* the thread's sequence number of the first one */
} block_head_t;

typedef struct pad_head {
    char tag[4];
    uint32_t reserved;
    uint64_t size;
} pad_head_t;

enum { PAD_BYTES = MPISCOPE__TRACE_BLOCK_HEAD - sizeof(block_head_t) }; /* 24 */

_Static_assert(sizeof(block_head_t) == 40, "THRD head is 40 bytes");
_Static_assert(PAD_BYTES == 24 && PAD_BYTES >= sizeof(pad_head_t), "PAD before a THRD head");

static uint64_t page_bytes = 4096;

void mpiscope__trace_windows_init(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0)
        page_bytes = (uint64_t)page;
    uint64_t bytes = MPISCOPE__TRACE_BLOCK_HEAD + p->records_per_thread * sizeof(mpiscope_trace_record_t);
    p->window_bytes = (bytes + page_bytes - 1) / page_bytes * page_bytes;
    p->window_records = (p->window_bytes - MPISCOPE__TRACE_BLOCK_HEAD) / sizeof(mpiscope_trace_record_t);
}

static void put_pad(char *at, uint64_t bytes)
{
    pad_head_t pad = {{'P', 'A', 'D', ' '}, 0, bytes - sizeof(pad_head_t)};
    memcpy(at, &pad, sizeof pad);
}

/* Blocks for [at, at + len): fallocate, or zeros written where the file
 * system cannot preallocate. */
static int allocate(int fd, uint64_t at, uint64_t len)
{
    if (fallocate(fd, 0, (off_t)at, (off_t)len) == 0)
        return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS)
        return -1;
    static const char zeros[4096];
    for (uint64_t done = 0; done < len; done += sizeof zeros)
        if (mpiscope__trace_pwrite_quiet(zeros, sizeof zeros, at + done) != 0)
            return -1;
    return 0;
}

/* A page-aligned range of the file for a window; a gap left before it
 * becomes a PAD chunk (gaps are multiples of 8: chunks are padded to 8). */
static int reserve_window(uint64_t *start_out)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    uint64_t old = __atomic_load_n(&p->file_end, __ATOMIC_RELAXED), start, end;
    do {
        start = (old + page_bytes - 1) / page_bytes * page_bytes;
        if (start - old == 8) /* no room for a chunk header */
            start += page_bytes;
        end = start + p->window_bytes;
    } while (!__atomic_compare_exchange_n(&p->file_end, &old, end, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    if (allocate(p->fd, start, p->window_bytes) != 0) {
        /* Give the range back if nothing was reserved after it; else it
         * stays a hole that the reader reports. */
        uint64_t expected = end;
        __atomic_compare_exchange_n(&p->file_end, &expected, old, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
        return -1;
    }
    if (start > old) {
        char gap[sizeof(pad_head_t)];
        put_pad(gap, start - old);
        mpiscope__trace_pwrite_quiet(gap, sizeof gap, old);
    }
    *start_out = start;
    return 0;
}

int mpiscope__trace_window_prepare(mpiscope__trace_thread_t *t)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (t->next)
        return 0;
    if (p->fd < 0)
        return -1;
    uint64_t at;
    if (reserve_window(&at) != 0) {
        mpiscope__trace_write_failed();
        return -1;
    }
    char *w = mmap(NULL, p->window_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, (off_t)at);
    if (w == MAP_FAILED) {
        mpiscope__trace_write_failed(); /* the range stays zeros: a hole the reader reports */
        return -1;
    }
#ifdef MADV_POPULATE_WRITE
    /* Write faults now (page allocation, dirty tracking), not in the calls;
     * EFAULT: a page could not be had (a SIGBUS had we written it). */
    if (madvise(w, p->window_bytes, MADV_POPULATE_WRITE) != 0 && errno != EINVAL) {
        munmap(w, p->window_bytes);
        mpiscope__trace_write_failed();
        return -1;
    }
#endif
    put_pad(w, p->window_bytes); /* the whole window, until it is used */
    t->next = w;
    t->next_at = at;
    return 0;
}

/* Start writing into the prepared window: its THRD head first, then the
 * PAD shrinks to 24 bytes in one store, which shows the block. */
static void use_next(mpiscope__trace_thread_t *t)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    char *w = t->next;
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0,
                         24 + p->window_records * sizeof(mpiscope_trace_record_t), t->index, 0,
                         p->window_records, t->seq};
    memcpy(w + PAD_BYTES, &head, sizeof head);
    __atomic_store_n((uint64_t *)(void *)(w + 8), (uint64_t)(PAD_BYTES - sizeof(pad_head_t)),
                     __ATOMIC_RELEASE);
    t->next = NULL;
    t->window = w;
    t->window_at = t->next_at;
    t->records = (mpiscope_trace_record_t *)(void *)(w + MPISCOPE__TRACE_BLOCK_HEAD);
    t->capacity = p->window_records;
    t->in_area = 0;
}

int mpiscope__trace_area_write(mpiscope__trace_thread_t *t, uint64_t count)
{
    uint64_t len = sizeof(block_head_t) + count * sizeof(mpiscope_trace_record_t);
    char *data = t->area + PAD_BYTES;
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, 24 + count * sizeof(mpiscope_trace_record_t),
                         t->index, 0, count, t->seq};
    memcpy(data, &head, sizeof head);
    return mpiscope__trace_pwrite(data, len, mpiscope__trace_reserve(len));
}

/* The stores are ordered so that a signal handler arriving between any
 * two at worst writes the area's block twice (the reader keeps one copy),
 * never a record under the wrong sequence number. */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    uint64_t n = t->count;
    if (t->in_area && n) {
        if (p->fd < 0 || mpiscope__trace_area_write(t, n) != 0)
            t->dropped += n; /* full before the file was open: not with >= 16 records */
    } else if (!t->in_area && t->lost) {
        t->dropped += n;
        t->lost = 0;
    }
    if (t->window) { /* mapped until this call ends: its record may be there */
        if (t->retired)
            munmap(t->retired, p->window_bytes);
        t->retired = t->window;
        t->window = NULL;
        t->after_switch = 1;
    }
    __atomic_store_n(&t->count, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&t->seq, t->seq + n, __ATOMIC_SEQ_CST);
    if (!t->next && p->fd >= 0)
        mpiscope__trace_window_prepare(t); /* not prepared ahead: a failure before, or the first */
    if (t->next) {
        use_next(t);
        t->after_switch = 1;
    } else {
        t->records = (mpiscope_trace_record_t *)(void *)(t->area + MPISCOPE__TRACE_BLOCK_HEAD);
        t->capacity = t->area_capacity;
        t->in_area = 1;
    }
}

void mpiscope__trace_after_switch(mpiscope__trace_thread_t *t)
{
    t->after_switch = 0;
    if (t->retired) {
        munmap(t->retired, mpiscope__trace_proc.window_bytes);
        t->retired = NULL;
    }
    mpiscope__trace_window_prepare(t);
}

/* Give the whole pages of [from, to) of the window at `at` back to the file system. */
static void release(uint64_t at, uint64_t from, uint64_t to)
{
    from = (from + page_bytes - 1) / page_bytes * page_bytes;
    to = to / page_bytes * page_bytes;
    if (to > from)
        (void)fallocate(mpiscope__trace_proc.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)(at + from), (off_t)(to - from));
}

/* The windows stay mapped (a late part of an erroneous program's call
 * lands in padding, not in freed memory). */
void mpiscope__trace_windows_close(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    const uint64_t size = sizeof(mpiscope_trace_record_t);
    unsigned nthreads = __atomic_load_n(&mpiscope__trace_nthreads, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < nthreads; i++) {
        mpiscope__trace_thread_t *t = mpiscope__trace_threads[i];
        char *w = t->window;
        uint64_t n = t->count;
        if (w && n < p->window_records) {
            uint64_t used = MPISCOPE__TRACE_BLOCK_HEAD + n * size;
            put_pad(w + used, p->window_bytes - used);
            block_head_t head;
            memcpy(&head, w + PAD_BYTES, sizeof head);
            head.count = n;
            head.size = 24 + n * size;
            memcpy(w + PAD_BYTES, &head, sizeof head);
            release(t->window_at, used + sizeof(pad_head_t), p->window_bytes);
        }
        if (t->next) /* prepared, never used: one PAD chunk */
            release(t->next_at, sizeof(pad_head_t), p->window_bytes);
    }
}

int mpiscope__trace_window_fault(void *addr)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    char *a = addr;
    unsigned n = __atomic_load_n(&mpiscope__trace_nthreads, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++) {
        mpiscope__trace_thread_t *t = mpiscope__trace_threads[i];
        char *windows[3] = {t->window, t->next, t->retired};
        for (int k = 0; k < 3; k++) {
            char *w = windows[k];
            if (!w || a < w || a >= w + p->window_bytes)
                continue;
            if (mmap(w, p->window_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                return 0;
            if (k == 0)
                t->lost = 1;
            mpiscope__trace_write_failed();
            return 1;
        }
    }
    return 0;
}
