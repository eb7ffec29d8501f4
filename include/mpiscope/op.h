/* mpiscope/op.h: a measurable operation, built-in or user-defined.
 *
 * An operation is a const descriptor (MPIBlib's shape): a name, a one-line
 * description, what the message size means, its options, and hooks. The
 * built-in operations (mpiscope_op_find("bcast"), `mpiscope list-ops`,
 * docs/operations.md) and an application's own are the same kind of
 * object: pass either to mpiscope_context_measure(). A user-defined
 * operation needs no registration; examples/library/ has two.
 *
 *   static int my_execute(mpiscope_op_ctx_t *ctx) { ... one launch ... }
 *   static const mpiscope_op_t my_op = {
 .abi = MPISCOPE_OP_ABI,
 *       .abi = MPISCOPE_OP_ABI, .name = "one_to_two", .description = "...", .size_meaning = "bytes of each message",
 *       .flags = MPISCOPE_OP_USES_SIZE, .initialize = my_initialize,
 *       .execute = my_execute, .finalize = my_finalize, .validate = my_validate,
 *   };
 *
 * The hooks, for one measurement point (communicator, size, root fixed):
 *   initialize  once, on every rank of the point's communicator (it may
 *               communicate: it is collective): allocate buffers with
 *               mpiscope_op_ctx_buffers() and private state in ctx->state,
 *               parse options (mpiscope_op_ctx_option()). A failure on
 *               one rank fails the point on all; finalize is called on the
 *               ranks whose initialize succeeded, so a failing initialize
 *               frees what it allocated itself.
 *   execute     one launch, on every rank, at the same scheduled instant of
 *               the global clock; the engine times exactly this call. It
 *               must leave no communication pending and must not
 *               allocate, log, parse or touch files.
 *   finalize    once, after the last launch, on every rank: undo
 *               initialize (buffers from mpiscope_op_ctx_buffers() belong
 *               to the engine; free only ctx->state). Collective.
 *   validate    optional, only when validation is asked for
 *               (mpiscope_point_spec_t.validate, `--validate`), never in
 *               the timed region: MPISCOPE_VALIDATE_PREPARE before every
 *               launch (write the launch's data into ctx->send, poison
 *               ctx->recv; make the data depend on ctx->launch so that a
 *               buffer left over from an earlier launch shows), and
 *               MPISCOPE_VALIDATE_CHECK after it (check what this rank
 *               received; on the first mismatch call
 *               mpiscope_op_ctx_mismatch() and return its value). Every
 *               rank calls both phases for every launch, so the hook may
 *               communicate (e.g. a barrier). The engine counts the failed
 *               checks and reports the first mismatch of the lowest rank.
 *   free        optional: releases descriptor-level data (user_data) of a
 *               descriptor built at run time; called by mpiscope_op_free(),
 *               never by the engine.
 * Every hook but free returns 0 or a negative MPISCOPE_E* code
 * (MPISCOPE_ENOTSUP: this MPI library lacks what the operation needs). */
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
    MPISCOPE_OP_USES_SIZE = 1u << 0,      /* message size varies the op (else measured once, size 0) */
    MPISCOPE_OP_USES_ROOT = 1u << 1,      /* has a root rank (ctx->root) */
    MPISCOPE_OP_USES_REDUCTION = 1u << 2, /* element type and reduction apply (ctx->dtype, ctx->reduce_op) */
    MPISCOPE_OP_GROUND_TRUTH = 1u << 3,   /* known true time: checks the tool */
    MPISCOPE_OP_SYNCHRONIZING = 1u << 4,  /* no rank leaves before all have entered: with
                                             validation the engine checks it on the global clock */
    MPISCOPE_OP_BROADCAST = 1u << 5,      /* execute is one broadcast from ctx->root: methods that
                                             time the root's data reaching each rank apply */
    MPISCOPE_OP_BANDWIDTH = 1u << 6,      /* size / time is a bandwidth (the size is data each rank
                                             sends or receives; nccl-tests' algorithm bandwidth) */
    MPISCOPE_OP_PAIRS = 1u << 7,          /* messages between ranks: needs 2 ranks at least (front
                                             ends refuse fewer before launching) */
    MPISCOPE_OP_THREADS = 1u << 8,        /* calls MPI from several threads of a rank: needs
                                             MPI_THREAD_MULTIPLE (mpiscope-bench asks for it when a
                                             plan holds such an op; the op refuses a lower level) */
    MPISCOPE_OP_FILES = 1u << 9,          /* writes a temporary file into the directory of its
                                             `dir` option, unlinked as soon as it is open (nothing
                                             is left, whatever ends the run) */
    MPISCOPE_OP_LARGE_COUNT = 1u << 10    /* the MPI-4 large-count (_c, MPI_Count) calls: messages
                                             beyond 2^31 - 1 elements */
};

/* Phases of the validate hook. */
enum { MPISCOPE_VALIDATE_PREPARE = 0, MPISCOPE_VALIDATE_CHECK = 1 };

/* One documented option of an operation (shown by list-ops and
 * `mpiscope-bench --describe`). Values reach the hooks as text through
 * mpiscope_op_ctx_option(). */
typedef struct mpiscope_op_option {
    const char *name;           /* "window" */
    const char *default_value;  /* "64": what mpiscope_op_ctx_option() returns when the user gave none */
    const char *unit;           /* "messages", "rank", "bytes", "us", "" */
    const char *description;    /* one line */
    const char *type;           /* what the text holds, for front ends: "integer", "number",
                                  "choice", "name", "text"; NULL: "text" */
    const char *const *choices; /* "choice": the accepted values, NULL-terminated */
} mpiscope_op_option_t;

typedef struct mpiscope_op mpiscope_op_t;

/* Everything an op needs for one measurement point. Filled by the engine
 * before initialize; the op writes only `state` (and the buffers). */
typedef struct mpiscope_op_ctx {
    MPI_Comm comm;           /* the point's communicator (owned by the engine) */
    int rank;                /* rank in comm */
    int nprocs;              /* size of comm */
    size_t size_bytes;       /* the message size asked for, bytes (0 for ops without USES_SIZE) */
    int root;                /* root rank in comm (ops with a root; else 0) */
    MPI_Datatype dtype;      /* element type: the reduction type, else MPI_BYTE */
    size_t dtype_bytes;      /* size of dtype, bytes */
    size_t count;            /* elements per message: size_bytes / dtype_bytes, >= 1 */
    size_t actual_bytes;     /* data bytes one message really carries: size_bytes, or
                                 count x dtype_bytes for reductions; an op whose layout
                                 rounds the size (derived datatypes) sets it in initialize */
    MPI_Op reduce_op;        /* reduction operation (ops with USES_REDUCTION; else MPI_OP_NULL) */
    size_t launch;           /* number of the current launch in this point, from 0 */
    void *send;              /* send buffer of the current launch (rotated in cold mode) */
    void *recv;              /* receive buffer of the current launch */
    void *state;             /* private to the op: set in initialize, freed in finalize */
    void *engine;            /* private to the engine */
    const mpiscope_op_t *op; /* the descriptor being measured (its user_data, options) */
    double *part_ns;         /* parts timed by the op (mpiscope_op_ctx_parts()), else NULL:
                                 execute writes part i's duration, ns of mpiscope_timer_now_ns(),
                                 into part_ns[i] (NAN: the part did not run this launch) */
    size_t n_parts;
    double launch_start_ns; /* this rank's clock (mpiscope_timer_now_ns()) read by the engine
                                 just before it called execute: the start of the timed launch;
                                 NAN outside a timed launch. An op that waits a known time
                                 counts from it, so its own clock read is not in the launch */
} mpiscope_op_ctx_t;

/* The layout of mpiscope_op_t below. A descriptor names the layout it was
 * compiled against in its first field, `.abi = MPISCOPE_OP_ABI`; the engine
 * refuses a descriptor of another layout (MPISCOPE_EINVAL, and
 * mpiscope_context_last_error() says so) rather than read its fields at the
 * wrong places: an op built against an older libmpiscope is rebuilt, not
 * misread. Raised whenever a field is added, moved or changes type. */
#define MPISCOPE_OP_ABI 1

struct mpiscope_op {
    unsigned abi;                        /* MPISCOPE_OP_ABI, as this descriptor was compiled */
    const char *name;                    /* lower case, unique among built-ins: "bcast", "one_to_two" */
    const char *description;             /* one line for list-ops */
    const char *size_meaning;            /* what size_bytes is: "bytes broadcast by the root" */
    unsigned flags;                      /* MPISCOPE_OP_* */
    const mpiscope_op_option_t *options; /* array ending with {NULL}, or NULL */
    int (*initialize)(mpiscope_op_ctx_t *ctx);
    int (*execute)(mpiscope_op_ctx_t *ctx);
    int (*finalize)(mpiscope_op_ctx_t *ctx);
    void (*free)(const mpiscope_op_t *op);              /* optional, see above */
    int (*validate)(mpiscope_op_ctx_t *ctx, int phase); /* optional, see above */
    void *user_data;               /* for user-defined ops (ctx->op->user_data); the engine never reads it */
    int (*prepare)(MPI_Comm comm); /* optional: once per run, before its first point, on every
                                      rank of the run's communicator (collective): what the MPI
                                      library must have set up on every process before a point
                                      whose communicator may leave some of them out (0 or an
                                      MPISCOPE_E* code, the same on every rank) */
};

/* From initialize: ask the engine for per-launch send and receive buffers
 * of the given sizes (bytes, 0 allowed). The engine owns them: it aligns
 * them, fills them once with a pattern (no page fault lands in a timed
 * launch), and before every launch points ctx->send and ctx->recv at the
 * pair for that launch (a different pair each launch in cold-cache mode,
 * the same pair in warm mode); it frees them after finalize. A second call
 * replaces the first. Not collective. Returns 0, MPISCOPE_ENOMEM,
 * MPISCOPE_ERANGE (sizes overflow) or MPISCOPE_EINVAL (ctx not the
 * engine's). */
MPISCOPE_API int mpiscope_op_ctx_buffers(mpiscope_op_ctx_t *ctx, size_t send_bytes, size_t recv_bytes);

/* The same, but one pair serves every launch of the point, even in
 * cold-cache mode: for operations that bind their buffers in initialize
 * (persistent requests, RMA windows). The result then reports 1 slot. */
MPISCOPE_API int mpiscope_op_ctx_buffers_fixed(mpiscope_op_ctx_t *ctx, size_t send_bytes, size_t recv_bytes);

/* From a validate hook: report a mismatch (printf-style, one line, e.g.
 * "rank 1: recv block 0 byte 17: got 0x00, want 0xa5"; at most 255
 * characters are kept). The engine keeps the first one of the point with
 * its launch number. Not collective. Returns MPISCOPE_EVALIDATE. */
MPISCOPE_API int mpiscope_op_ctx_mismatch(mpiscope_op_ctx_t *ctx, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* From initialize: this op times parts of every launch itself, one per
 * thread for example (`name`: what a part is, "thread"; at most
 * MPISCOPE_OP_MAX_PARTS). The engine allocates ctx->part_ns[n_parts]
 * (every rank of the point must give the same n_parts), sets every entry
 * to NAN before each launch, and after it keeps the values of the valid
 * launches: the result then holds each rank's and part's distribution
 * (median, quartiles, extremes over the valid launches) and their spread
 * (`parts` in the point). Execute writes each part's duration, measured
 * with mpiscope_timer_now_ns() (any thread may read it), into its entry:
 * plain stores into preallocated memory. Not collective. Returns 0,
 * MPISCOPE_EINVAL (n_parts 0 or above the maximum, a second call with
 * another count, NULL name), MPISCOPE_ENOMEM. */
enum { MPISCOPE_OP_MAX_PARTS = 256 };
MPISCOPE_API int mpiscope_op_ctx_parts(mpiscope_op_ctx_t *ctx, size_t n_parts, const char *name);

/* A note for the point's result (`notes` in the document: what the op
 * learnt or used that the numbers depend on: the thread level granted, a
 * file system, the hints in force), printf-style, one line, at most 1023
 * characters kept; a key given again replaces its value. Rank 0's notes
 * are written. Call from initialize (outside the timed region). Not
 * collective. Returns 0, MPISCOPE_EINVAL (NULL or empty key, more than
 * MPISCOPE_OP_MAX_NOTES keys, a key longer than 31 characters). */
enum { MPISCOPE_OP_MAX_NOTES = 16 };
MPISCOPE_API int mpiscope_op_ctx_note(mpiscope_op_ctx_t *ctx, const char *key, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* From initialize: refuse the point, saying why in one line
 * (printf-style, at most 255 characters: "needs MPI_THREAD_MULTIPLE; the
 * MPI library granted MPI_THREAD_SERIALIZED"). The engine reports the
 * first refusing rank's line as the point's error. Returns `err`, which
 * initialize then returns (a negative MPISCOPE_E* code). Not collective. */
MPISCOPE_API int mpiscope_op_ctx_refuse(mpiscope_op_ctx_t *ctx, int err, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The value of an op-specific option for this point, as text: the user's
 * value if given (the last one if given twice), else the descriptor's
 * default; NULL if the descriptor has no such option and the user gave
 * none. The string belongs to the engine or the descriptor and lives as
 * long as the point. Not collective. */
MPISCOPE_API const char *mpiscope_op_ctx_option(const mpiscope_op_ctx_t *ctx, const char *name);

/* The registry of built-in operations; the descriptors are static (never
 * freed). Not collective; callable before MPI_Init. */
MPISCOPE_API size_t mpiscope_op_count(void);                          /* number of built-in ops */
MPISCOPE_API const mpiscope_op_t *mpiscope_op_at(size_t index);       /* NULL past the end */
MPISCOPE_API const mpiscope_op_t *mpiscope_op_find(const char *name); /* any case, '-' for '_'; NULL if unknown */

/* Release a descriptor's own data: calls op->free(op) if it is set (built-in
 * descriptors have none). For descriptors an application built at run
 * time, once no context measures them any more. Not collective; NULL is
 * ignored. */
MPISCOPE_API void mpiscope_op_free(const mpiscope_op_t *op);

#ifdef __cplusplus
}
#endif
#endif
