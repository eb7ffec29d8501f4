/* trace_state.h (internal): the tracer's per-thread buffers and per-process
 * state. Records go to the calling thread's own buffer: no lock, no
 * allocation on the recording path. */
#ifndef MPISCOPE_TRACE_STATE_H
#define MPISCOPE_TRACE_STATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "mpiscope/sync.h"
#include "timer_read.h"
#include "trace_record.h"

#define MPISCOPE__TRACE_MAX_THREADS 256

/* What one thread's calls write and another thread, or a signal handler on
 * any thread, reads (the end of the file, a flush) is atomic (C11), never
 * merely volatile. The owner's hot path uses relaxed loads and release
 * stores: plain moves on x86-64 and AArch64. A signal handler may only
 * touch lock-free atomics (it could interrupt a lock's holder). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2
                   && ATOMIC_POINTER_LOCK_FREE == 2,
               "the tracer's signal handlers need lock-free atomics");

enum { MPISCOPE__TRACE_PACK_IDLE, MPISCOPE__TRACE_PACK_PACKING, MPISCOPE__TRACE_PACK_READY };

typedef struct mpiscope__trace_thread {
    /* Two buffers ("halves") of capacity records each: the calls fill the
     * current one; a full one becomes pending, with its range of the file
     * reserved, and is written at the end of the call that filled it
     * (blocks.c). */
    mpiscope_trace_record_t *records; /* the current half */
    uint64_t capacity;                /* records per half */
    _Atomic uint64_t count;           /* records taken in the current half */
    _Atomic uint64_t seq;             /* this thread's sequence number of records[0] */
    _Atomic unsigned current;         /* which half records is */
    _Atomic uint64_t pending;         /* records of the other half not written yet, 0: none */
    _Atomic unsigned pending_half;    /* which half is pending */
    /* The pending half's block as the owner writes it (blocks.c): packed
     * (THRC, pack.c) or raw, its bytes and place; ready once pack_state is
     * MPISCOPE__TRACE_PACK_READY. */
    _Atomic int pack_state;
    const char *_Atomic pending_data;
    _Atomic uint64_t pending_len;
    _Atomic uint64_t pending_at;
    char *packed;             /* room to pack a half (mpiscope__trace_pack_room) */
    char *half[2];            /* each: MPISCOPE__TRACE_BLOCK_HEAD bytes, then records */
    _Atomic uint64_t dropped; /* records lost: the file could not be written */
    int depth;                /* 1 inside a traced call: nested MPI calls pass through */
    unsigned index;           /* thread number in this process, from 0 */
    uint64_t *handles;        /* scratch: request handles saved before a completion */
    size_t handles_cap;
    MPI_Status *statuses; /* scratch: statuses when the caller ignores them */
    size_t statuses_cap;
    uint64_t early;                /* records of the current half written early (blocks.c) */
    uint64_t early_at;             /* stamp of the last early write (or of the thread's start) */
    mpiscope_trace_record_t spill; /* the record of a call that is not kept */
    mpiscope_trace_record_t held;  /* a call whose own half had to be reused (writer.c) */
} mpiscope__trace_thread_t;

/* A communicator definition: peer ranks of records on `handle` (created
 * at or after stamp `created`) are translated to trace ranks by members. */
typedef struct mpiscope__trace_comm {
    uint64_t handle;
    uint64_t id;      /* the same on every member */
    uint64_t created; /* stamp */
    uint32_t flags;   /* MPISCOPE__TRACE_COMM_F_* */
    uint32_t size;    /* entries in members */
    int32_t *members; /* trace rank of each rank of the peer group */
    uint64_t dups;    /* communicators duplicated from this one so far */
} mpiscope__trace_comm_t;

#define MPISCOPE__TRACE_COMM_F_INTER 1u /* members: the remote group */
#define MPISCOPE__TRACE_COMM_F_LOCAL 2u /* id not agreed (dynamic processes) */

/* The clock at one synchronization point. */
typedef struct mpiscope__trace_clock {
    int valid;
    double offset_ns; /* global = local + offset_ns */
    double rtt_min_ns;
    double local_ns; /* local time (timer ns) at the end of the sync */
    double duration_ns;
    uint64_t exchanges;
    int nprocs;
    double *offsets_ns;  /* rank 0 only: [nprocs] */
    double *rtt_all_ns;  /* rank 0 only */
    double *residual_ns; /* rank 0 only: left right after the sync */
    double *drift_ns;    /* rank 0, final only: residual of the first sync, measured at the end */
} mpiscope__trace_clock_t;

enum {
    MPISCOPE__TRACE_END_NONE = 0,
    MPISCOPE__TRACE_END_FINALIZED,
    MPISCOPE__TRACE_END_SIGNAL,
    MPISCOPE__TRACE_END_ABORT,
    MPISCOPE__TRACE_END_EXIT
};

typedef struct mpiscope__trace_proc {
    int started;  /* MPI initialized by world or session model */
    int world;    /* MPI_Init seen and not finalized */
    int sessions; /* user sessions open */
    int rank, nprocs;
    int thread_level;
    MPI_Comm comm;       /* private communicator for the tracer's own traffic */
    MPI_Session session; /* private session (session model only) */
    int own_session;
    uint64_t start_stamp;
    _Atomic uint64_t comm_counter;    /* communicators registered here */
    mpiscope__trace_clock_t clock[2]; /* at start, at the end */
    char dir[1024];
    char path[1152];
    char meta[4096]; /* JSON, prepared before it is needed */
    size_t meta_len;
    uint64_t records_per_thread;
    int pack; /* full halves go packed (THRC) when smaller: MPISCOPE_TRACE_PACK */
    unsigned sync_patience;
    uint64_t early_stamps; /* a half's records are written after this long (stamps); 0: not */
    int quiet;             /* MPISCOPE_TRACE_QUIET: failed writes are not said (the caller
                               reads them from the file: mpiscope trace says them in its line) */
    mpiscope__trace_comm_t *comms;
    _Atomic size_t ncomms; /* comms: changed under a lock, read by the end */
    size_t comms_cap;
    _Atomic int written;             /* the end of the file has been written (once) */
    int fd;                          /* the rank file, open from the start of tracing; -1 before */
    _Atomic uint64_t file_end;       /* bytes reserved in the file so far */
    _Atomic uint64_t write_failures; /* writes that failed (disk full, file size limit) */
    _Atomic int write_warned;
    char write_error_msg[1400]; /* prepared: said from a signal handler too */
    size_t write_error_len;
    int spawned;      /* the world has a parent (MPI_Comm_spawn) */
    int world_index;  /* 0: files in dir; K: in dir/world-K (worlds.c); -1: no place */
    int path_created; /* rank 0 created its (empty) file when claiming dir */
} mpiscope__trace_proc_t;

extern mpiscope__trace_proc_t mpiscope__trace_proc;
extern _Atomic int mpiscope__trace_active; /* record calls now */
extern int mpiscope__trace_stamp_ticks;    /* stamps are raw counter ticks */
/* The threads' buffers: nthreads is stored (release) after the entry. */
extern mpiscope__trace_thread_t *_Atomic mpiscope__trace_threads[MPISCOPE__TRACE_MAX_THREADS];
extern _Atomic unsigned mpiscope__trace_nthreads;
extern __thread mpiscope__trace_thread_t *mpiscope__trace_self __attribute__((tls_model("initial-exec")));

/* The counter the engine calibrated, read WITHOUT serialization (plain
 * rdtsc; the engine's mpiscope__tsc_read adds rdtscp+lfence): a stamp may
 * move by some tens of cycles against the instructions around it, which is
 * nothing next to an MPI call, and the read costs half as much. */
static inline __attribute__((always_inline)) uint64_t mpiscope__trace_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return mpiscope__tsc_read();
#endif
}

static inline __attribute__((always_inline)) uint64_t mpiscope__trace_stamp(void)
{
    if (mpiscope__trace_stamp_ticks)
        return mpiscope__trace_tsc();
    return (uint64_t)mpiscope__now_ns();
}

/* This thread's buffer, made on its first traced call (NULL when the
 * thread table is full: the thread's calls are then counted as dropped in
 * mpiscope__trace_lost_threads). */
mpiscope__trace_thread_t *mpiscope__trace_thread_attach(void);
extern _Atomic uint64_t mpiscope__trace_lost_calls;

/* Reads the MPISCOPE_TRACE_* environment (docs/tracer.md). */
void mpiscope__trace_config(mpiscope__trace_proc_t *p);

/* Tracer messages on stderr: "mpiscope-trace[rank N]: ..." */
void mpiscope__trace_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Bytes before each half of a thread: room for the block's chunk header. */
#define MPISCOPE__TRACE_BLOCK_HEAD 64

/* Open this rank's file and write what is known at the start: preamble,
 * META, FUNC, the first clock synchronization, communicators, memory map. */
void mpiscope__trace_stream_open(void);

/* Append one communicator definition (a COMM chunk) once the file is open. */
void mpiscope__trace_stream_comm(const mpiscope__trace_comm_t *comm);

/* Write the calling thread's pending half now, if it has one, packed
 * when that is smaller (blocks.c). */
void mpiscope__trace_flush_pending(mpiscope__trace_thread_t *t);

/* Write thread t's pending half from another thread or a signal handler:
 * the owner's block if it is ready (the same bytes at the same place),
 * else the half raw (the reader keeps one copy of a record written twice). */
void mpiscope__trace_flush_pending_foreign(mpiscope__trace_thread_t *t);

/* The THRD chunk of `n` records of half `which` of `t` starting at
 * sequence number `first`, prepared in the room before the half: returns
 * its bytes (40 + 64 n of them). */
const char *mpiscope__trace_block(mpiscope__trace_thread_t *t, unsigned which, uint64_t n, uint64_t first);

/* Reserve `len` bytes at the end of the file: their offset (writer.c). */
uint64_t mpiscope__trace_reserve(uint64_t len);

/* Write at a reserved offset; a failure is counted and said once: -1. */
int mpiscope__trace_pwrite(const void *data, size_t n, uint64_t at);

/* The records the calling thread took since its last write, written now
 * (at `now`, a stamp) as a block of their own: a rank killed by SIGKILL
 * (the launcher kills the others so when one dies) loses at most the
 * calls of the last MPISCOPE_TRACE_FLUSH_MS, not a whole half. They are
 * written again with their half (the reader keeps one copy). */
void mpiscope__trace_write_early(mpiscope__trace_thread_t *t, uint64_t now) __attribute__((noinline, cold));

/* The current half is full: it becomes pending, the other one current. */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t) __attribute__((noinline, cold));

/* Write every thread's records so far (the end writes them again; the
 * reader keeps the last copy): before the final synchronization, which
 * waits for every rank, so that a rank killed there by the launcher (a
 * peer died) has its calls up to MPI_Finalize in its file. */
void mpiscope__trace_write_current(void);

/* Write the end of this rank's file: every thread's records not written
 * yet, the final clock, the memory map and END (once; async-signal-safe:
 * pwrite(2) only). */
void mpiscope__trace_write(int end_status, int end_code);

/* Install the signal handlers and the atexit flush. */
void mpiscope__trace_signals_install(void);

/* Synchronize clocks on the tracer communicator into clock[which]. */
void mpiscope__trace_clock_sync(int which);

/* Prepare the JSON header of the file (meta.c). */
void mpiscope__trace_meta(void);

/* This world's file name in p->path: dir/rank-NNNNN.mst for the first world
 * in dir, dir/world-K/... for a later one (worlds.c; collective on p->comm). */
void mpiscope__trace_world_place(void);

/* Register the predefined communicators. */
void mpiscope__trace_comms_predefined(void);

#endif
