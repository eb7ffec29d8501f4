/* trace_state.h (internal): the tracer's per-thread buffers and per-process
 * state. Records go to the calling thread's own buffer: no lock, no
 * allocation on the recording path. */
#ifndef MPISCOPE_TRACE_STATE_H
#define MPISCOPE_TRACE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "mpiscope/sync.h"
#include "timer_read.h"
#include "trace_record.h"

#define MPISCOPE__TRACE_MAX_THREADS 256

typedef struct mpiscope__trace_thread {
    /* The calls fill a window: a range of the rank file mapped MAP_SHARED
     * (windows.c), so a record is in the page cache once written and
     * survives a SIGKILL. The next window is mapped and its pages faulted
     * in at the end of the call that started the current one, in no call's
     * time. Before the file is open, or when no window can be had (a full
     * disk), the calls fill the thread's own anonymous area instead. */
    mpiscope_trace_record_t *records;  /* the current window's (or area's) records */
    uint64_t capacity;                 /* records in it */
    uint64_t count;                    /* records taken in it */
    uint64_t seq;                      /* this thread's sequence number of records[0] */
    int in_area;                       /* 1: records is the anonymous area */
    int after_switch;                  /* the end of this call prepares the next window */
    char *window;                      /* the current file window, NULL in the area */
    char *next;                        /* the next window, mapped and populated; NULL: none */
    char *retired;                     /* the full window, unmapped at the end of the call */
    uint64_t window_at, next_at;       /* their offsets in the file */
    volatile int lost;                 /* the current window's pages were lost (SIGBUS) */
    char *area;                        /* MPISCOPE__TRACE_BLOCK_HEAD bytes, then records */
    uint64_t area_capacity;
    uint64_t dropped;                  /* records lost: the file could not be written */
    int depth;                         /* 1 inside a traced call: nested MPI calls pass through */
    unsigned index;                    /* thread number in this process, from 0 */
    uint64_t *handles;                 /* scratch: request handles saved before a completion */
    size_t handles_cap;
    MPI_Status *statuses;              /* scratch: statuses when the caller ignores them */
    size_t statuses_cap;
    mpiscope_trace_record_t spill;     /* the record of a call that is not kept */
    mpiscope_trace_record_t held;      /* a call whose own window had to be unmapped */
} mpiscope__trace_thread_t;

/* A communicator definition: peer ranks of records on `handle` (created
 * at or after stamp `created`) are translated to trace ranks by members. */
typedef struct mpiscope__trace_comm {
    uint64_t handle;
    uint64_t id;        /* the same on every member */
    uint64_t created;   /* stamp */
    uint32_t flags;     /* MPISCOPE__TRACE_COMM_F_* */
    uint32_t size;      /* entries in members */
    int32_t *members;   /* trace rank of each rank of the peer group */
    uint64_t dups;      /* communicators duplicated from this one so far */
} mpiscope__trace_comm_t;

#define MPISCOPE__TRACE_COMM_F_INTER 1u  /* members: the remote group */
#define MPISCOPE__TRACE_COMM_F_LOCAL 2u  /* id not agreed (dynamic processes) */

/* The clock at one synchronisation point. */
typedef struct mpiscope__trace_clock {
    int valid;
    double offset_ns;       /* global = local + offset_ns */
    double rtt_min_ns;
    double local_ns;        /* local time (timer ns) at the end of the sync */
    double duration_ns;
    uint64_t exchanges;
    int nprocs;
    double *offsets_ns;     /* rank 0 only: [nprocs] */
    double *rtt_all_ns;     /* rank 0 only */
    double *residual_ns;    /* rank 0 only: left right after the sync */
    double *drift_ns;       /* rank 0, final only: residual of the first sync, measured at the end */
} mpiscope__trace_clock_t;

enum { MPISCOPE__TRACE_END_NONE = 0, MPISCOPE__TRACE_END_FINALIZED, MPISCOPE__TRACE_END_SIGNAL,
       MPISCOPE__TRACE_END_ABORT, MPISCOPE__TRACE_END_EXIT };

typedef struct mpiscope__trace_proc {
    int started;            /* MPI initialised by world or session model */
    int world;              /* MPI_Init seen and not finalised */
    int sessions;           /* user sessions open */
    int rank, nprocs;
    int thread_level;
    MPI_Comm comm;          /* private communicator for the tracer's own traffic */
    MPI_Session session;    /* private session (session model only) */
    int own_session;
    uint64_t start_stamp;
    uint64_t comm_counter;  /* communicators registered here */
    mpiscope__trace_clock_t clock[2]; /* at start, at the end */
    char dir[1024];
    char path[1152];
    char meta[4096];        /* JSON, prepared before it is needed */
    size_t meta_len;
    uint64_t records_per_thread;
    unsigned sync_patience;
    mpiscope__trace_comm_t *comms;
    size_t ncomms, comms_cap;
    volatile int written;   /* the end of the file has been written (once) */
    int fd;                 /* the rank file, open from the start of tracing; -1 before */
    volatile uint64_t file_end;        /* bytes reserved in the file so far */
    uint64_t window_bytes;             /* a thread's file window: whole pages */
    uint64_t window_records;           /* records in a window */
    volatile uint64_t write_failures;  /* writes that failed (disk full, file size limit) */
    volatile int write_warned;
    char write_error_msg[1400];         /* prepared: said from a signal handler too */
    size_t write_error_len;
} mpiscope__trace_proc_t;

extern mpiscope__trace_proc_t mpiscope__trace_proc;
extern volatile int mpiscope__trace_active;  /* record calls now */
extern int mpiscope__trace_stamp_ticks;      /* stamps are raw counter ticks */
extern mpiscope__trace_thread_t *volatile mpiscope__trace_threads[MPISCOPE__TRACE_MAX_THREADS];
extern volatile unsigned mpiscope__trace_nthreads;
extern __thread mpiscope__trace_thread_t *mpiscope__trace_self
    __attribute__((tls_model("initial-exec")));

/* The counter the engine calibrated, read WITHOUT serialisation (plain
 * rdtsc; the engine's mpiscope__tsc_read adds rdtscp+lfence): a stamp may
 * move by some tens of cycles against the instructions around it, which is
 * nothing next to an MPI call, and the read costs half as much. */
static inline uint64_t mpiscope__trace_tsc(void)
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

static inline uint64_t mpiscope__trace_stamp(void)
{
    if (mpiscope__trace_stamp_ticks)
        return mpiscope__trace_tsc();
    return (uint64_t)mpiscope__now_ns();
}

/* This thread's buffer, made on its first traced call (NULL when the
 * thread table is full: the thread's calls are then counted as dropped in
 * mpiscope__trace_lost_threads). */
mpiscope__trace_thread_t *mpiscope__trace_thread_attach(void);
extern volatile uint64_t mpiscope__trace_lost_calls;

/* Reads the MPISCOPE_TRACE_* environment (docs/tracer.md). */
void mpiscope__trace_config(mpiscope__trace_proc_t *p);

/* Tracer messages on stderr: "mpiscope-trace[rank N]: ..." */
void mpiscope__trace_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Bytes before the records of a window or area: room for a THRD head. */
#define MPISCOPE__TRACE_BLOCK_HEAD 64

/* Open this rank's file and write what is known at the start: preamble,
 * META, FUNC, the first clock synchronisation, communicators, memory map. */
void mpiscope__trace_stream_open(void);

/* Append one communicator definition (a COMM chunk) once the file is open. */
void mpiscope__trace_stream_comm(const mpiscope__trace_comm_t *comm);

/* Windows (windows.c). The size of a window, once the file is open. */
void mpiscope__trace_windows_init(void);

/* Map this thread's next window, ahead of need (called outside the calls'
 * time where it can be): 0, or -1 when the file cannot grow (said once,
 * counted as a write failure). */
int mpiscope__trace_window_prepare(mpiscope__trace_thread_t *t);

/* After the call that switched windows: unmap the full one, map the next. */
void mpiscope__trace_after_switch(mpiscope__trace_thread_t *t) __attribute__((noinline, cold));

/* The records of the anonymous area, as a THRD block written with pwrite
 * (records from before the file was open, or kept there for want of a
 * window): 0, or -1 when the write failed. */
int mpiscope__trace_area_write(mpiscope__trace_thread_t *t, uint64_t count);

/* The end of a run that finalized: each thread's windows are trimmed to
 * their records (the rest becomes padding and is given back to the file
 * system). Only when no other thread can still record. */
void mpiscope__trace_windows_close(void);

/* A SIGBUS at `addr` in a window (its pages could not be had after all):
 * anonymous memory replaces the window, its records are counted as lost,
 * and 1 is returned; 0 when addr is not in a window. Async-signal-safe. */
int mpiscope__trace_window_fault(void *addr);

/* Reserve `len` bytes at the end of the file: their offset (writer.c). */
uint64_t mpiscope__trace_reserve(uint64_t len);

/* Write at a reserved offset; a failure is counted and said once: -1. */
int mpiscope__trace_pwrite(const void *data, size_t n, uint64_t at);

/* The same without counting a failure (the caller does), and counting one. */
int mpiscope__trace_pwrite_quiet(const void *data, size_t n, uint64_t at);
void mpiscope__trace_write_failed(void);

/* The current window (or area) is full: go on in the next one. */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t) __attribute__((noinline, cold));

/* Write every thread's records that are not in a window yet (the end
 * writes them again; the reader keeps the last copy): before the final
 * synchronisation, which waits for every rank, so that a rank killed there
 * by the launcher (a peer died) has its calls up to MPI_Finalize in its
 * file. */
void mpiscope__trace_write_current(void);

/* Write the end of this rank's file: every thread's records not written
 * yet, the final clock, the memory map and END (once; async-signal-safe:
 * pwrite(2) only). */
void mpiscope__trace_write(int end_status, int end_code);

/* Install the signal handlers and the atexit flush. */
void mpiscope__trace_signals_install(void);

/* Synchronise clocks on the tracer communicator into clock[which]. */
void mpiscope__trace_clock_sync(int which);

/* Prepare the JSON header of the file (meta.c). */
void mpiscope__trace_meta(void);

/* Register the predefined communicators. */
void mpiscope__trace_comms_predefined(void);

#endif
