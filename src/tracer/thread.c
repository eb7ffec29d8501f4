/* thread.c: per-thread record buffers, made on a thread's first traced call. */
#include <pthread.h>
#include <sys/mman.h>
#include "trace_call.h"
#include "trace_pack.h"

__thread mpiscope__trace_thread_t *mpiscope__trace_self __attribute__((tls_model("initial-exec")));
mpiscope__trace_thread_t *_Atomic mpiscope__trace_threads[MPISCOPE__TRACE_MAX_THREADS];
_Atomic unsigned mpiscope__trace_nthreads;
_Atomic uint64_t mpiscope__trace_lost_calls;

static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;

/* A thread's two halves are mapped and their pages touched now
 * (MAP_POPULATE), on the thread's first traced call: the first write to
 * fresh memory costs a page fault and the page's zeroing, tens of ns per
 * record, which the calls would otherwise pay while they are timed. The
 * halves are reused for the whole run: memory is bounded. */
static mpiscope__trace_thread_t *thread_new(unsigned index)
{
    uint64_t capacity = mpiscope__trace_proc.records_per_thread;
    size_t head = (sizeof(mpiscope__trace_thread_t) + 63) / 64 * 64;
    size_t half = MPISCOPE__TRACE_BLOCK_HEAD + (size_t)capacity * sizeof(mpiscope_trace_record_t);
    size_t room = mpiscope__trace_proc.pack ? mpiscope__trace_pack_room(capacity) : 0;
    void *mem =
        mmap(NULL, head + 2 * half + room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    mpiscope__trace_thread_t *t = mem;
    t->half[0] = (char *)mem + head;
    t->half[1] = t->half[0] + half;
    t->packed = room ? t->half[1] + half : NULL;
    t->records = (mpiscope_trace_record_t *)(t->half[0] + MPISCOPE__TRACE_BLOCK_HEAD);
    t->capacity = capacity;
    t->index = index;
    return t;
}

mpiscope__trace_thread_t *mpiscope__trace_thread_attach(void)
{
    pthread_mutex_lock(&attach_lock);
    mpiscope__trace_thread_t *t = NULL;
    unsigned n = atomic_load_explicit(&mpiscope__trace_nthreads, memory_order_relaxed);
    if (n < MPISCOPE__TRACE_MAX_THREADS && (t = thread_new(n)) != NULL) {
        atomic_store_explicit(&mpiscope__trace_threads[n], t, memory_order_relaxed);
        atomic_store_explicit(&mpiscope__trace_nthreads, n + 1, memory_order_release);
    } else {
        atomic_fetch_add_explicit(&mpiscope__trace_lost_calls, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&attach_lock);
    mpiscope__trace_self = t;
    return t;
}

static int in_half(const mpiscope__trace_thread_t *t, unsigned which, const mpiscope_trace_record_t *r)
{
    const char *from = t->half[which] + MPISCOPE__TRACE_BLOCK_HEAD;
    return (const char *)r >= from && (const char *)r < from + t->capacity * sizeof(mpiscope_trace_record_t);
}

mpiscope_trace_record_t *mpiscope__trace_part(mpiscope__trace_call_t *c, uint16_t flags)
{
    mpiscope__trace_thread_t *t = c->t;
    if (c->r == &t->spill) {
        atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
        return NULL;
    }
    /* This call's parts filled both halves (a completion of more requests
     * than a half holds): its own record is written with the other half
     * and kept on in `held` (a flag set after this is not in the file). */
    if (atomic_load_explicit(&t->count, memory_order_relaxed) >= t->capacity
        && atomic_load_explicit(&t->pending, memory_order_relaxed)
        && in_half(t, atomic_load_explicit(&t->pending_half, memory_order_relaxed), c->r)) {
        t->held = *c->r;
        c->r = &t->held;
    }
    mpiscope_trace_record_t *r = mpiscope__trace_slot(t);
    *r = *c->r;
    r->flags = (uint16_t)(flags | MPISCOPE_TRACE_F_PART);
    r->request = 0;
    r->bytes = -1;
    r->peer = MPISCOPE_TRACE_NONE;
    r->tag = MPISCOPE_TRACE_NONE;
    return r;
}
