/* trace_call.h (internal): what every generated wrapper uses: the recording
 * path (begin, stamps, end) inline, and the hand-written hooks. */
#ifndef MPISCOPE_TRACE_CALL_H
#define MPISCOPE_TRACE_CALL_H

#include <stdint.h>
#include <string.h>
#include <mpi.h>
#include "mpiscope_trace_have.h"
#include "trace_functions.h"
#include "trace_state.h"

typedef struct mpiscope__trace_call {
    mpiscope__trace_thread_t *t;
    mpiscope_trace_record_t *r;
} mpiscope__trace_call_t;

#define MPISCOPE__TRACE_SITE() __builtin_return_address(0)

/* Any MPI handle (an int or a pointer, by implementation) as 64 bits. */
#define MPISCOPE__H(handle) mpiscope__trace_handle(&(handle), sizeof(handle))
static inline __attribute__((always_inline)) uint64_t mpiscope__trace_handle(const void *handle, size_t size)
{
    uint64_t v = 0;
    memcpy(&v, handle, size < sizeof v ? size : sizeof v);
    return v;
}

/* The owner alone changes count: a relaxed load and a release store, no
 * read-modify-write. */
static inline __attribute__((always_inline)) mpiscope_trace_record_t *mpiscope__trace_slot(mpiscope__trace_thread_t *t)
{
    uint64_t n = atomic_load_explicit(&t->count, memory_order_relaxed);
    if (__builtin_expect(n >= t->capacity, 0)) {
        mpiscope__trace_switch(t);
        n = atomic_load_explicit(&t->count, memory_order_relaxed);
    }
    mpiscope_trace_record_t *r = &t->records[n];
    r->t_enter = 0;
    /* released with the count: a flush that sees the record sees t_enter 0 (not started) */
    atomic_store_explicit(&t->count, n + 1, memory_order_release);
    return r;
}

/* Start recording a call: 0 when not recording (before MPI is initialized,
 * after it is finalized, while paused, or inside another traced call, as
 * for the tracer's own MPI traffic): the wrapper then calls PMPI alone. */
static inline __attribute__((always_inline)) int mpiscope__trace_begin(mpiscope__trace_call_t *c, unsigned func,
                                                                       void *site)
{
    if (__builtin_expect(!atomic_load_explicit(&mpiscope__trace_active, memory_order_relaxed), 0))
        return 0;
    mpiscope__trace_thread_t *t = mpiscope__trace_self;
    if (__builtin_expect(t == NULL, 0) && (t = mpiscope__trace_thread_attach()) == NULL)
        return 0;
    if (t->depth)
        return 0;
    t->depth = 1;
    mpiscope_trace_record_t *r = mpiscope__trace_slot(t);
    r->t_exit = 0;
    r->comm = 0;
    r->request = 0;
    r->site = (uint64_t)(uintptr_t)site;
    r->bytes = -1;
    r->peer = MPISCOPE_TRACE_NONE;
    r->tag = MPISCOPE_TRACE_NONE;
    r->root = MPISCOPE_TRACE_NONE;
    r->func = (uint16_t)func;
    r->flags = 0;
    c->t = t;
    c->r = r;
    return 1;
}

static inline __attribute__((always_inline)) void mpiscope__trace_stamp_enter(mpiscope__trace_call_t *c)
{
    c->r->t_enter = mpiscope__trace_stamp();
}

static inline __attribute__((always_inline)) void mpiscope__trace_stamp_exit(mpiscope__trace_call_t *c)
{
    c->r->t_exit = mpiscope__trace_stamp();
}

static inline __attribute__((always_inline)) void mpiscope__trace_end(mpiscope__trace_call_t *c, int failed)
{
    if (failed)
        c->r->flags |= MPISCOPE_TRACE_F_ERROR;
    c->t->depth = 0;
    /* A half filled during this call is written now, after its exit stamp
     * and last part: in no call's time. */
    if (__builtin_expect(atomic_load_explicit(&c->t->pending, memory_order_relaxed) != 0, 0))
        mpiscope__trace_flush_pending(c->t);
    else if (__builtin_expect((int64_t)(c->r->t_exit - c->t->early_at) > (int64_t)mpiscope__trace_proc.early_stamps, 0)
             && mpiscope__trace_proc.early_stamps)
        mpiscope__trace_write_early(c->t, c->r->t_exit);
}

static inline __attribute__((always_inline)) int32_t mpiscope__trace_peer(int rank)
{
    if (rank >= 0)
        return rank;
    if (rank == MPI_PROC_NULL)
        return MPISCOPE_TRACE_PEER_PROC_NULL;
    if (rank == MPI_ANY_SOURCE)
        return MPISCOPE_TRACE_PEER_ANY_SOURCE;
    return rank;
}

/* A further record that belongs to the call (a completed request, the
 * receive half of a sendrecv): stamps, function and site of the call.
 * NULL when the call itself was dropped. */
mpiscope_trace_record_t *mpiscope__trace_part(mpiscope__trace_call_t *c, uint16_t flags);

/* --- arguments (args.c) --- */
/* The last predefined datatype this thread sent or received and its size
 * (-1: none yet): a ping-pong asks for the same one at every call, and
 * MPI_Type_size_x costs 3.6 ns (bench/trace_parts.c); asked of MPI for any
 * other datatype (a derived one's handle may name another once freed). */
extern __thread MPI_Datatype mpiscope__trace_last_type __attribute__((tls_model("initial-exec")));
extern __thread int64_t mpiscope__trace_last_size __attribute__((tls_model("initial-exec")));
int64_t mpiscope__trace_bytes_asked(MPI_Count count, MPI_Datatype type);
static inline __attribute__((always_inline)) int64_t mpiscope__trace_bytes(MPI_Count count, MPI_Datatype type)
{
    if (count > 0 && type == mpiscope__trace_last_type && mpiscope__trace_last_size >= 0)
        return (int64_t)count * mpiscope__trace_last_size;
    return mpiscope__trace_bytes_asked(count, type);
}
int64_t mpiscope__trace_bytes_v(const int counts[], MPI_Datatype type, MPI_Comm comm);
int64_t mpiscope__trace_bytes_v_c(const MPI_Count counts[], MPI_Datatype type, MPI_Comm comm);
int64_t mpiscope__trace_bytes_w(const int counts[], const MPI_Datatype types[], MPI_Comm comm);
int64_t mpiscope__trace_bytes_w_c(const MPI_Count counts[], const MPI_Datatype types[], MPI_Comm comm);
/* Received message: peer, tag and bytes from the status (of a request:
 * also whether it was cancelled). */
void mpiscope__trace_status(mpiscope__trace_call_t *c, const MPI_Status *status);
void mpiscope__trace_request_status(mpiscope_trace_record_t *r, const MPI_Status *status);
void mpiscope__trace_recv_half(mpiscope__trace_call_t *c, const MPI_Status *status);
void mpiscope__trace_post_recv_half(mpiscope__trace_call_t *c, int source, int recvtag);

/* --- requests (requests.c) --- */
void mpiscope__trace_request_created(mpiscope__trace_call_t *c, uint64_t request);
void mpiscope__trace_message(mpiscope__trace_call_t *c, uint64_t message);
/* A part holding the message an MPI_Imrecv received (its request field
 * holds the request it made). */
void mpiscope__trace_message_part(mpiscope__trace_call_t *c, uint64_t message);
void mpiscope__trace_started_all(mpiscope__trace_call_t *c, int count, const MPI_Request reqs[]);
/* The caller's statuses, or scratch ones when it passed MPI_STATUSES_IGNORE. */
MPI_Status *mpiscope__trace_statuses(mpiscope__trace_call_t *c, MPI_Status *statuses, int count);
/* The request handles before a completion call overwrites them. */
uint64_t *mpiscope__trace_save_requests(mpiscope__trace_call_t *c, int count, const MPI_Request reqs[]);
void mpiscope__trace_completed(mpiscope__trace_call_t *c, uint64_t request, const MPI_Status *status);
void mpiscope__trace_completed_all(mpiscope__trace_call_t *c, int count, const uint64_t *reqs,
                                   const MPI_Status *statuses);
void mpiscope__trace_completed_index(mpiscope__trace_call_t *c, int count, const uint64_t *reqs, int index,
                                     const MPI_Status *status);
void mpiscope__trace_completed_some(mpiscope__trace_call_t *c, int incount, const uint64_t *reqs, int outcount,
                                    const int indices[], const MPI_Status *statuses);

/* --- windows (windows.c) --- */
void mpiscope__trace_window_created(mpiscope__trace_call_t *c, uint64_t win);
/* A part per member of `group` (Win_start's targets, Win_post's origins),
 * its peer the member's rank in the window's group. */
void mpiscope__trace_window_group(mpiscope__trace_call_t *c, MPI_Group group, MPI_Win win);

/* --- communicators (comms.c) --- */
enum { MPISCOPE__TRACE_COMM_AGREE, MPISCOPE__TRACE_COMM_DUP, MPISCOPE__TRACE_COMM_LOCAL };
void mpiscope__trace_comm_created(mpiscope__trace_call_t *c, int how, MPI_Comm parent, MPI_Comm comm);

/* --- lifecycle (lifecycle.c) --- */
void mpiscope__trace_init_begin(mpiscope__trace_call_t *c, unsigned func, void *site);
void mpiscope__trace_world_started(mpiscope__trace_call_t *c, int ret, int thread_level);
void mpiscope__trace_session_started(mpiscope__trace_call_t *c, int ret);
void mpiscope__trace_world_stopping(void);
void mpiscope__trace_session_stopping(void);
void mpiscope__trace_stopped(void);
void mpiscope__trace_abort(mpiscope__trace_call_t *c, int errorcode);
void mpiscope__trace_pcontrol(int level);

#endif
