/* blocks.c: a thread's full half buffer goes to the file as a THRD block.
 *
 * The switch (once per half, 65,536 calls by default) makes the full half
 * pending, with its range of the file reserved and its chunk header
 * written in the room before it. By default the owning thread writes it
 * when the call that filled it ends (after its exit stamp: in no call's
 * time). With MPISCOPE_TRACE_WRITER_THREAD=1 a writer thread, woken by one
 * byte on a pipe, writes it instead: the calling thread then pays no copy
 * (50-100 ns per 64-byte record on a loaded node), but the writer needs a
 * free core; on a node whose cores all run ranks it costs more than it
 * saves (bench/trace_overhead.py, docs/tracer.md). The owner writes, or
 * waits, when the writer is a whole half behind or a call filled both
 * halves. Whoever writes a block claims it first; a signal handler writes
 * the same bytes at the same place again. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
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

_Static_assert(sizeof(block_head_t) == 40, "THRD head is 40 bytes");
_Static_assert(sizeof(block_head_t) <= MPISCOPE__TRACE_BLOCK_HEAD, "room before a half");

static int wake[2] = {-1, -1};
static int writer_running;

const char *mpiscope__trace_block(mpiscope__trace_thread_t *t, unsigned which, uint64_t n,
                                  uint64_t first)
{
    char *data = t->half[which] + MPISCOPE__TRACE_BLOCK_HEAD - sizeof(block_head_t);
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, 24 + n * sizeof(mpiscope_trace_record_t),
                         t->index, 0, n, first};
    memcpy(data, &head, sizeof head);
    return data;
}

static int try_claim(mpiscope__trace_thread_t *t)
{
    int free_ = 0;
    return __atomic_compare_exchange_n(&t->claim, &free_, 1, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* With the claim: write the pending half, then let the owner reuse it. */
static void write_claimed(mpiscope__trace_thread_t *t)
{
    uint64_t n = __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE);
    if (n) {
        const char *block = t->half[t->pending_half] + MPISCOPE__TRACE_BLOCK_HEAD
                            - sizeof(block_head_t);
        if (mpiscope__trace_pwrite(block, sizeof(block_head_t) + n * sizeof(mpiscope_trace_record_t),
                                   t->pending_at) != 0)
            t->dropped += n;
        __atomic_store_n(&t->pending, 0, __ATOMIC_SEQ_CST);
    }
    __atomic_store_n(&t->claim, 0, __ATOMIC_RELEASE);
}

void mpiscope__trace_flush_pending(mpiscope__trace_thread_t *t)
{
    while (__atomic_load_n(&t->pending, __ATOMIC_ACQUIRE)) {
        if (try_claim(t)) {
            write_claimed(t);
            return;
        }
        sched_yield(); /* the writer thread is writing it */
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    char bytes[256];
    for (;;) {
        ssize_t r = read(wake[0], bytes, sizeof bytes);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return NULL;
        unsigned n = __atomic_load_n(&mpiscope__trace_nthreads, __ATOMIC_ACQUIRE);
        for (unsigned i = 0; i < n; i++) {
            mpiscope__trace_thread_t *t = mpiscope__trace_threads[i];
            if (__atomic_load_n(&t->pending, __ATOMIC_ACQUIRE) && try_claim(t))
                write_claimed(t);
        }
    }
}

void mpiscope__trace_writer_start(void)
{
    if (writer_running || !mpiscope__trace_proc.writer_thread || pipe2(wake, O_CLOEXEC) != 0)
        return;
    fcntl(wake[1], F_SETFL, O_NONBLOCK); /* a full pipe: the writer has wake-ups enough */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the program's signals go to its own threads */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t id;
    writer_running = pthread_create(&id, &attr, writer_main, NULL) == 0;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!writer_running) {
        close(wake[0]);
        close(wake[1]);
        mpiscope__trace_warn("no writer thread: each thread writes its full buffers itself");
    }
}

/* The stores are ordered so that a signal handler arriving between any
 * two writes at worst a block twice (the reader keeps one copy), never a
 * record under the wrong sequence number. */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t)
{
    if (t->pending) /* the writer is a half behind, or one call filled both halves */
        mpiscope__trace_flush_pending(t);
    uint64_t n = t->count;
    unsigned full = t->current;
    uint64_t len = sizeof(block_head_t) + n * sizeof(mpiscope_trace_record_t);
    mpiscope__trace_block(t, full, n, t->seq);
    int open = mpiscope__trace_proc.fd >= 0;
    t->pending_at = open ? mpiscope__trace_reserve(len) : 0;
    t->pending_half = full;
    t->pending_seq = t->seq;
    if (open)
        __atomic_store_n(&t->pending, n, __ATOMIC_SEQ_CST);
    else
        t->dropped += n; /* full before the file was open: not with >= 16 records */
    __atomic_store_n(&t->count, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&t->seq, t->seq + n, __ATOMIC_SEQ_CST);
    t->current = full ^ 1u;
    t->records = (mpiscope_trace_record_t *)(t->half[full ^ 1u] + MPISCOPE__TRACE_BLOCK_HEAD);
    if (!open)
        return;
    if (writer_running) {
        char one = 1;
        if (write(wake[1], &one, 1) < 0) {
            /* EAGAIN: the pipe is full of wake-ups the writer has not read yet */
        }
    } else {
        t->own_write = 1;
    }
}
