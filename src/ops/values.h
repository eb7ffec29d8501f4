/* values.h (internal to src/ops): the element values the validate hooks
 * of reductions (collective and one-sided) write and check, for any
 * named element type and reduction. Values are small non-negative
 * integers chosen per reduction (1..5 for sum, min, max; a single 2 or 3
 * among ones for prod; 0/1 for the logical ones; 7 bits for the bitwise
 * ones), so every result is exact in every type, and they change with the
 * launch. The expected result is reduced by MPI itself
 * (MPI_Reduce_local on int64_t with the same MPI_Op). */
#ifndef MPISCOPE_OPS_VALUES_H
#define MPISCOPE_OPS_VALUES_H

#include <stddef.h>
#include <stdint.h>
#include "mpiscope/op.h"

typedef struct mpiscope__values {
    int kind;     /* mpiscope__dtype_kind_t of the element type */
    size_t bytes; /* of one element */
    MPI_Op op;    /* the reduction (MPI_OP_NULL: the sum pattern) */
    int nprocs;
    int64_t *expect, *term; /* scratch of the checks, `capacity` elements each */
    size_t capacity;
} mpiscope__values_t;

/* For elements of `dtype` (`bytes` each), reduced with `op` (MPI_OP_NULL:
 * none, the sum pattern), among nprocs ranks. MPISCOPE_EINVAL for an
 * element type that is not one of the named ones. Not collective. */
int mpiscope__values_init(mpiscope__values_t *v, MPI_Datatype dtype, size_t bytes, MPI_Op op, int nprocs);
void mpiscope__values_free(mpiscope__values_t *v);

/* The value of element e of rank's contribution in `launch`. */
int64_t mpiscope__values_at(const mpiscope__values_t *v, int rank, size_t e, size_t launch);

/* Write elements [first, first + n) of rank's contribution to buf[0..n). */
void mpiscope__values_fill(const mpiscope__values_t *v, void *buf, size_t first, size_t n, int rank, size_t launch);

/* Write explicit values (one-sided compare-and-swap). */
void mpiscope__values_store(const mpiscope__values_t *v, void *element, int64_t value);

/* Check buf[0..n) against the reduction, over the ranks listed, of their
 * elements [first, first + n) of ctx->launch; n_ranks == 0: nothing is
 * defined there and nothing is checked. Reports the first difference
 * (naming `what`) and returns MPISCOPE_EVALIDATE; MPISCOPE_ENOMEM. */
int mpiscope__values_check(mpiscope__values_t *v, mpiscope_op_ctx_t *ctx, const void *buf, size_t first, size_t n,
                           const int *ranks, size_t n_ranks, const char *what);

#endif
