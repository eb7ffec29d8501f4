/* mpiscope/op.h: a measurable operation, built-in or user-defined.
 *
 * An operation is a const descriptor with four hooks (MPIBlib's shape):
 *   initialize  once per measurement point (comm, size, root fixed):
 *               allocate buffers with mpiscope_op_ctx_buffers() and any
 *               private state in ctx->state;
 *   execute     one launch; the engine times exactly this call. It must not
 *               allocate, log or touch files;
 *   finalize    once per point, after the last launch: undo initialize
 *               (buffers from mpiscope_op_ctx_buffers() are freed by the
 *               engine; free only ctx->state);
 *   free        once when the engine drops the descriptor (may be NULL):
 *               release descriptor-level user data.
 *   validate    optional, only when the user asks for validation
 *               (--validate): called with MPISCOPE_VALIDATE_PREPARE before
 *               a launch (write the launch's expected data into ctx->send,
 *               e.g. from ctx->launch and ctx->rank) and with
 *               MPISCOPE_VALIDATE_CHECK after it (check ctx->recv; on a
 *               mismatch call mpiscope_op_ctx_mismatch() and return
 *               MPISCOPE_EVALIDATE). Never inside the timed region.
 * Every hook returns 0 or a negative MPISCOPE_E* code. */
#ifndef MPISCOPE_OP_H
#define MPISCOPE_OP_H

#include "mpiscope/export.h"

#include <stddef.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What parameters an operation uses (descriptor `flags`). */
enum {
    MPISCOPE_OP_USES_SIZE      = 1u << 0, /* message size varies the op */
    MPISCOPE_OP_USES_ROOT      = 1u << 1, /* has a root rank */
    MPISCOPE_OP_USES_REDUCTION = 1u << 2, /* datatype + reduction op apply */
    MPISCOPE_OP_GROUND_TRUTH   = 1u << 3  /* known true time: checks the tool */
};

/* Phases of the validate hook. */
enum { MPISCOPE_VALIDATE_PREPARE = 0, MPISCOPE_VALIDATE_CHECK = 1 };

/* One documented option of an operation (shown by list-ops). */
typedef struct mpiscope_op_option {
    const char *name;          /* "root" */
    const char *default_value; /* "0" */
    const char *unit;          /* "rank", "bytes", "us", "" */
    const char *description;   /* one line */
} mpiscope_op_option_t;

/* Everything an op needs for one measurement point. Filled by the engine. */
typedef struct mpiscope_op_ctx {
    MPI_Comm comm;            /* the point's communicator */
    int rank;                 /* rank in comm */
    int nprocs;               /* size of comm */
    size_t size_bytes;        /* the message size asked for, bytes */
    int root;                 /* root rank in comm (ops with a root) */
    MPI_Datatype dtype;       /* element type: MPI_BYTE, or the reduction type */
    size_t dtype_bytes;       /* size of dtype */
    size_t count;             /* elements per message: size_bytes / dtype_bytes, >= 1 */
    MPI_Op reduce_op;         /* reduction operation (ops with a reduction) */
    size_t launch;            /* number of the current launch in this point, from 0 */
    void *send;               /* send buffer of the current launch (rotated in cold mode) */
    void *recv;               /* receive buffer of the current launch */
    void *state;              /* private to the op */
    void *engine;             /* private to the engine */
} mpiscope_op_ctx_t;

typedef struct mpiscope_op mpiscope_op_t;
struct mpiscope_op {
    const char *name;         /* lower case, unique: "bcast", "waitpattern_up" */
    const char *description;  /* one line for list-ops */
    const char *size_meaning; /* what size_bytes is: "bytes per rank sent by root" */
    unsigned flags;           /* MPISCOPE_OP_* */
    const mpiscope_op_option_t *options; /* array ending with {NULL}, or NULL */
    int (*initialize)(mpiscope_op_ctx_t *ctx);
    int (*execute)(mpiscope_op_ctx_t *ctx);
    int (*finalize)(mpiscope_op_ctx_t *ctx);
    void (*free)(const mpiscope_op_t *op);
    int (*validate)(mpiscope_op_ctx_t *ctx, int phase); /* optional, see above */
    void *user_data;          /* for user-defined ops; the engine never reads it */
};

/* Ask the engine for per-launch send and receive buffers of the given
 * sizes (bytes, 0 allowed). Call from initialize. The engine aligns them,
 * fills them with a pattern, and before every launch points ctx->send and
 * ctx->recv at the buffers for that launch (a new pair each launch in
 * cold-cache mode). Returns 0 or MPISCOPE_ENOMEM / MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_op_ctx_buffers(mpiscope_op_ctx_t *ctx, size_t send_bytes, size_t recv_bytes);

/* Report the first mismatch a validate hook found (printf-style, one line,
 * e.g. "rank 1 byte 17: got 0x00, want 0xa5"). The engine keeps the first
 * one of the point with the launch number. Returns MPISCOPE_EVALIDATE. */
MPISCOPE_API int mpiscope_op_ctx_mismatch(mpiscope_op_ctx_t *ctx, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The value of an op-specific option for this point, as text: the user's
 * value if given, else the descriptor's default; NULL if unknown. */
MPISCOPE_API const char *mpiscope_op_ctx_option(const mpiscope_op_ctx_t *ctx, const char *name);

/* The registry of built-in operations. */
MPISCOPE_API size_t mpiscope_op_count(void);                       /* number of built-in ops */
MPISCOPE_API const mpiscope_op_t *mpiscope_op_at(size_t index);    /* NULL past the end */
MPISCOPE_API const mpiscope_op_t *mpiscope_op_find(const char *name); /* case-insensitive; NULL if unknown */

#ifdef __cplusplus
}
#endif
#endif
