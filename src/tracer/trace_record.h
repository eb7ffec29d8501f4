/* trace_record.h (internal): one traced call, as stored in memory and in
 * the trace file (docs/trace-format.md, format version 3). */
#ifndef MPISCOPE_TRACE_RECORD_H
#define MPISCOPE_TRACE_RECORD_H

#include <stdint.h>

#define MPISCOPE_TRACE_FORMAT_VERSION 3

/* 64 bytes, little-endian in the file (written as in memory on x86-64 and
 * aarch64). Stamps are raw counter ticks or nanoseconds (file header). */
typedef struct mpiscope_trace_record {
    uint64_t t_enter; /* stamp before the PMPI call */
    uint64_t t_exit;  /* stamp after it; 0: the call had not returned */
    uint64_t comm;    /* communicator handle value, 0 for none */
    uint64_t request; /* request (or message) handle value, see flags */
    uint64_t site;    /* return address in the caller: the call site */
    int64_t bytes;    /* payload in bytes, -1 unknown */
    int32_t peer;     /* rank in comm, or MPISCOPE_TRACE_PEER_* */
    int32_t tag;      /* tag, or MPISCOPE_TRACE_NONE */
    int32_t root;     /* root of a rooted collective, or MPISCOPE_TRACE_NONE */
    uint16_t func;    /* function id (generated/trace_functions.h) */
    uint16_t flags;   /* MPISCOPE_TRACE_F_* */
} mpiscope_trace_record_t;

_Static_assert(sizeof(mpiscope_trace_record_t) == 64, "trace records are 64 bytes");

/* The head of a block of records in the file (THRD raw, THRC packed):
 * the chunk header, then the thread and the records' place in its
 * sequence (docs/trace-format.md). */
typedef struct mpiscope__trace_block_head {
    char tag[4];
    uint32_t reserved;
    uint64_t size; /* payload bytes */
    uint32_t index, reserved2;
    uint64_t count; /* records in this block */
    uint64_t first; /* the thread's sequence number of the first one */
} mpiscope__trace_block_head_t;

_Static_assert(sizeof(mpiscope__trace_block_head_t) == 40, "a block head is 40 bytes");

/* Bytes of a raw (THRD) block of `n` records, its head included. */
#define MPISCOPE__TRACE_RAW_BLOCK(n)                                                                                   \
    (sizeof(mpiscope__trace_block_head_t) + (uint64_t)(n) * sizeof(mpiscope_trace_record_t))

/* peer / tag / root values that are not ranks or tags */
#define MPISCOPE_TRACE_NONE (-1000001)
#define MPISCOPE_TRACE_PEER_PROC_NULL (-1000002)
#define MPISCOPE_TRACE_PEER_ANY_SOURCE (-1000003)
#define MPISCOPE_TRACE_TAG_ANY (-1000004)

/* flags */
#define MPISCOPE_TRACE_F_ERROR 0x0001u       /* PMPI returned an error code */
#define MPISCOPE_TRACE_F_PART 0x0002u        /* belongs to the call before it */
#define MPISCOPE_TRACE_F_COMPLETED 0x0004u   /* part: request completed, status fields */
#define MPISCOPE_TRACE_F_RECV_HALF 0x0008u   /* part: the receive half of a sendrecv */
#define MPISCOPE_TRACE_F_REQUEST_NEW 0x0010u /* request: the request the call created */
#define MPISCOPE_TRACE_F_STARTED 0x0020u     /* request: a persistent request started */
#define MPISCOPE_TRACE_F_MESSAGE 0x0040u     /* request: holds an MPI_Message handle */
#define MPISCOPE_TRACE_F_CANCELLED 0x0080u   /* part: the completed request was cancelled */
#define MPISCOPE_TRACE_F_WINDOW 0x0100u      /* comm holds a window handle (RMA calls) */
#define MPISCOPE_TRACE_F_WINDOW_NEW 0x0200u  /* request holds the window the call created */
#define MPISCOPE_TRACE_F_GROUP                                                                                         \
    0x0400u                           /* part: peer is a member of the call's group
                                                  (Win_start, Win_post), rank in the window */
#define MPISCOPE_TRACE_F_TRUE 0x0800u /* the call's out flag was true (Win_test, Parrived) */
#define MPISCOPE_TRACE_F_FILE 0x1000u /* comm holds an MPI_File handle (MPI-IO calls) */
#define MPISCOPE_TRACE_F_OFFSET                                                                                        \
    0x2000u /* an MPI-IO access at an explicit offset (the *_at
                                                  calls): tag holds its high 32 bits, root its low */

#endif
