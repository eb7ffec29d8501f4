/* thread.c: per-thread record buffers, made on a thread's first traced call. */
#include <pthread.h>
#include <sys/mman.h>
#include "trace_call.h"

__thread mpiscope__trace_thread_t *mpiscope__trace_self __attribute__((tls_model("initial-exec")));
mpiscope__trace_thread_t *volatile mpiscope__trace_threads[MPISCOPE__TRACE_MAX_THREADS];
volatile unsigned mpiscope__trace_nthreads;
volatile uint64_t mpiscope__trace_lost_calls;

static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;

/* A thread's state and its anonymous area (one page of records: those of
 * MPI_Init before the file is open, or kept for want of a window) are
 * mapped and touched now (MAP_POPULATE), on the thread's first traced call. */
enum { AREA_BYTES = 4096 };

static mpiscope__trace_thread_t *thread_new(unsigned index)
{
    size_t head = (sizeof(mpiscope__trace_thread_t) + 63) / 64 * 64;
    void *mem = mmap(NULL, head + AREA_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    mpiscope__trace_thread_t *t = mem;
    t->area = (char *)mem + head;
    t->area_capacity = (AREA_BYTES - MPISCOPE__TRACE_BLOCK_HEAD) / sizeof(mpiscope_trace_record_t);
    t->records = (mpiscope_trace_record_t *)(void *)(t->area + MPISCOPE__TRACE_BLOCK_HEAD);
    t->capacity = t->area_capacity;
    t->in_area = 1;
    t->index = index;
    /* The file is open: the first call switches to a window. */
    if (mpiscope__trace_proc.fd >= 0 && mpiscope__trace_window_prepare(t) == 0)
        t->capacity = 0;
    return t;
}

mpiscope__trace_thread_t *mpiscope__trace_thread_attach(void)
{
    pthread_mutex_lock(&attach_lock);
    mpiscope__trace_thread_t *t = NULL;
    unsigned n = mpiscope__trace_nthreads;
    if (n < MPISCOPE__TRACE_MAX_THREADS && (t = thread_new(n)) != NULL) {
        mpiscope__trace_threads[n] = t;
        __atomic_store_n(&mpiscope__trace_nthreads, n + 1, __ATOMIC_RELEASE);
    } else {
        __atomic_add_fetch(&mpiscope__trace_lost_calls, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&attach_lock);
    mpiscope__trace_self = t;
    return t;
}

static int in_range(const void *r, const char *from, uint64_t bytes)
{
    return from && (const char *)r >= from && (const char *)r < from + bytes;
}

mpiscope_trace_record_t *mpiscope__trace_part(mpiscope__trace_call_t *c, uint16_t flags)
{
    mpiscope__trace_thread_t *t = c->t;
    if (c->r == &t->spill) {
        t->dropped++;
        return NULL;
    }
    /* This call's parts fill a second window (or the area again): the
     * window that holds its own record is unmapped (the area reused), so
     * the record is kept on in `held` (a flag set after this is not in the
     * file). */
    if (t->count >= t->capacity
        && (in_range(c->r, t->retired, mpiscope__trace_proc.window_bytes)
            || (t->in_area && in_range(c->r, t->area, AREA_BYTES)))) {
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
