/* opctx.h (internal): setting up an mpiscope_op_ctx_t for one measurement
 * point, its buffer pool, and op-specific options. */
#ifndef MPISCOPE_OPCTX_H
#define MPISCOPE_OPCTX_H

#include <stddef.h>
#include "mpiscope/op.h"

typedef struct mpiscope__buffer_pool mpiscope__buffer_pool_t;

/* 1 if the engine can run the descriptor: compiled against this header's
 * layout (MPISCOPE_OP_ABI) and with initialize and execute; else 0, and
 * when the layout differs `why` (if not NULL) says so in one line. */
int mpiscope__op_usable(const mpiscope_op_t *op, char *why, size_t size);

/* A buffer pool lives for the whole run and is reused by every point.
 * cold != 0: each launch gets a new (send, recv) pair, taken in a shuffled
 * order from one region of at most limit_bytes (default target: twice the
 * last-level cache), so no launch finds its data in cache.
 * cold == 0 (warm): every launch reuses one pair. */
int mpiscope__buffer_pool_create(int cold, size_t alignment_bytes, size_t limit_bytes, mpiscope__buffer_pool_t **out);
void mpiscope__buffer_pool_destroy(mpiscope__buffer_pool_t *pool);

/* Switch between cold and warm for the points that follow. */
void mpiscope__buffer_pool_set_cold(mpiscope__buffer_pool_t *pool, int cold);

/* Under SMPI: whether the regions of the points that follow may be the
 * simulator's shared memory, one set of pages for every rank (not for a
 * point that validates its data). Elsewhere it does nothing. */
void mpiscope__buffer_pool_set_shared(mpiscope__buffer_pool_t *pool, int shared);

/* Flush mode (the default where the CPU can flush lines: x86-64, aarch64;
 * never under SMPI): a cold point gets max(2, launches) slots, launches
 * being its largest stage, and mpiscope__buffer_pool_flush() evicts them
 * before each stage. Without it, cold slots span twice the LLC (at most
 * the limit). set_flush(0) forces the region mode (for comparing both). */
void mpiscope__buffer_pool_set_stage_launches(mpiscope__buffer_pool_t *pool, size_t launches);
void mpiscope__buffer_pool_set_flush(mpiscope__buffer_pool_t *pool, int flush);

/* Evict from every cache level every line of the current point's slots
 * that a launch used since the last flush (all of them after the point's
 * layout is made): the others are still out (cold flush mode only; call
 * outside the timed region, on every rank). Returns 1 in flush mode, even
 * with no slot used (the ranks agree on it), 0 when there is nothing to
 * do (warm, region mode, one slot). */
int mpiscope__buffer_pool_flush(mpiscope__buffer_pool_t *pool);

/* The slot launch number `launch` uses (for tests: the reuse order). */
size_t mpiscope__buffer_pool_slot_of(const mpiscope__buffer_pool_t *pool, size_t launch);

/* What the pool did for the current point (for the result document). */
typedef struct mpiscope__buffer_pool_info {
    int cold;
    int flush; /* cold slots flushed before each stage (not a region > LLC) */
    size_t alignment_bytes;
    size_t limit_bytes;
    size_t llc_bytes;     /* last-level cache size found on this machine (0 if unknown) */
    size_t slot_bytes;    /* bytes of one (send, recv) pair, aligned */
    size_t slots;         /* distinct pairs rotated through */
    size_t region_bytes;  /* slots * slot_bytes */
    size_t flushed_slots; /* how many the last flush evicted */
} mpiscope__buffer_pool_info_t;
void mpiscope__buffer_pool_info(const mpiscope__buffer_pool_t *pool, mpiscope__buffer_pool_info_t *info);

/* Engine-private part of a ctx (ctx->engine points to one). */
typedef struct mpiscope__op_engine {
    mpiscope__buffer_pool_t *pool;
    const mpiscope_op_t *op;
    const char *const *option_names; /* user-given op-specific options */
    const char *const *option_values;
    size_t n_options;
    char mismatch[256]; /* first validation mismatch of the point, "" if none */
    char error[256];    /* why initialize refused the point, "" if it did not */
    size_t mismatch_launch;
    double *parts; /* mpiscope_op_ctx_parts(): [n_parts], owned */
    size_t n_parts;
    char part_name[32];
    size_t n_notes; /* mpiscope_op_ctx_note() */
    char note_keys[MPISCOPE_OP_MAX_NOTES][32];
    char note_values[MPISCOPE_OP_MAX_NOTES][1024];
} mpiscope__op_engine_t;

/* Free what the engine part of a point holds (its parts). */
void mpiscope__op_engine_free(mpiscope__op_engine_t *engine);

/* Every part's entry NAN (before a launch). */
void mpiscope__op_ctx_reset_parts(mpiscope_op_ctx_t *ctx);

/* Fill ctx for a point: comm (rank, nprocs from it), size, root, element
 * type and reduction. count = max(1, size_bytes / dtype_bytes).
 * `engine` must outlive the point. */
int mpiscope__op_ctx_init(mpiscope_op_ctx_t *ctx, MPI_Comm comm, size_t size_bytes, int root, MPI_Datatype dtype,
                          MPI_Op reduce_op, mpiscope__op_engine_t *engine);

/* Point ctx->send / ctx->recv at the pair for launch number `launch`
 * (cheap: no allocation; call outside the timed region). */
void mpiscope__op_ctx_select_buffers(mpiscope_op_ctx_t *ctx, size_t launch);

/* Forget the point's buffers (the pool's memory is kept for the next point). */
void mpiscope__op_ctx_release_buffers(mpiscope_op_ctx_t *ctx);

/* Record why an option's value is refused ("option mode of pingpong:
 * 'eager' is not valid") for the point's error message; returns
 * MPISCOPE_EINVAL. */
int mpiscope__op_ctx_bad_option(const mpiscope_op_ctx_t *ctx, const char *name);

/* The same with the reason after the value ("... is not a valid value
 * here: why"). */
int mpiscope__op_ctx_bad_option_why(const mpiscope_op_ctx_t *ctx, const char *name, const char *why);

/* The element type and reduction a point of `op` uses: MPI_BYTE and no
 * reduction for data movement; for ops with a reduction the named ones
 * (NULL: "double", "sum"). Names are canonical ("MPI_DOUBLE"), NULL for
 * no reduction. Returns 0, or MPISCOPE_EINVAL for an unknown name or a
 * reduction that does not take the element type. */
typedef struct mpiscope__op_types {
    MPI_Datatype dtype;
    size_t dtype_bytes;
    MPI_Op reduce_op;
    const char *dtype_name, *reduce_name;
} mpiscope__op_types_t;
int mpiscope__op_types_resolve(const mpiscope_op_t *op, const char *dtype, const char *reduce_op,
                               mpiscope__op_types_t *out);

/* Element types and reductions by name ("double", "float", "int", "long",
 * "char", "byte"...; "sum", "prod", "min", "max", "band", "bor", "bxor",
 * "land", "lor", "lxor"). canonical: "MPI_DOUBLE", "MPI_SUM".
 * Return 0 or MPISCOPE_EINVAL. */
/* The named element types and reductions, by index (NULL past the end):
 * the short lower-case name ("double", "sum") and the element's bytes. */
const char *mpiscope__dtype_at(size_t index, size_t *bytes);
const char *mpiscope__reduce_op_at(size_t index);

int mpiscope__dtype_parse(const char *name, MPI_Datatype *dtype, size_t *bytes, const char **canonical);

/* Which reductions take which element types, from one table: the kind of
 * the index-th element type ("integer", "floating", "byte", "char"), the
 * k-th kind the index-th reduction takes ("integer", "floating",
 * "complex", "byte"; NULL past the last), and whether the named reduction
 * takes the named type (1, else 0; 0 for an unknown name). */
const char *mpiscope__dtype_kind_name_at(size_t index);
const char *mpiscope__reduce_op_kind_at(size_t index, size_t k);
int mpiscope__reduce_op_allows(const char *reduce_op, const char *dtype);
int mpiscope__reduce_op_parse(const char *name, MPI_Op *op, const char **canonical);

/* What the C type behind a named element type is (for ops that write and
 * check values of any element type); UNKNOWN for a type not in the list. */
typedef enum mpiscope__dtype_kind {
    MPISCOPE__DTYPE_UNKNOWN = 0,
    MPISCOPE__DTYPE_SIGNED,
    MPISCOPE__DTYPE_UNSIGNED,
    MPISCOPE__DTYPE_FLOATING
} mpiscope__dtype_kind_t;
mpiscope__dtype_kind_t mpiscope__dtype_kind(MPI_Datatype dtype);

#endif
