/* mpiscope/firstcall.h: the first call of an operation against its second
 * call (late initialization: many MPI libraries set up connections or
 * algorithms on an operation's first call; MPIPerf's Table 1).
 *
 * Call it first thing after MPI_Init: whatever communicates before (a
 * context, a clock synchronization, a barrier) sets up the very
 * connections being measured.
 *
 *   MPI_Init(&argc, &argv);
 *   const mpiscope_op_t *ops[] = {mpiscope_op_find("bcast")};
 *   mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;  spec.size_bytes = 1024;
 *   mpiscope_firstcall_t *fc;
 *   mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, &spec, &fc);  // collective
 *   // on rank 0: fc->first_ns[r] / fc->second_ns[r], rank r's ratio
 *   // then, on a context made afterwards: mpiscope_result_add_firstcall(res, fc);
 *   mpiscope_firstcall_free(fc);
 */
#ifndef MPISCOPE_FIRSTCALL_H
#define MPISCOPE_FIRSTCALL_H

#include <stddef.h>
#include <mpi.h>
#include "mpiscope/export.h"
#include "mpiscope/measure.h"
#include "mpiscope/op.h"
#include "mpiscope/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The two calls of every op on every rank. The times are gathered on rank
 * 0 of the communicator only; on every other rank first_ns and second_ns
 * are NULL. (Changed in 0.1.0, issue 29: they were gathered on every rank,
 * nprocs^2 pairs in all, which at 1,024 ranks under a simulator, where
 * every rank lives in one process, took gigabytes. A rank that needs its
 * own times keeps them itself, or receives them from rank 0.) */
typedef struct mpiscope_firstcall {
    size_t n_ops;
    int nprocs;                /* ranks of the communicator */
    size_t size_bytes;         /* message size of every call, bytes */
    const mpiscope_op_t **ops; /* [n_ops] the descriptors measured (not owned) */
    double *first_ns;          /* rank 0: [n_ops * nprocs] the first call of op i on
                                  rank r at [i * nprocs + r], ns of rank r's own
                                  clock; NULL on the other ranks */
    double *second_ns;         /* the same for the second call */
} mpiscope_firstcall_t;

/* Collective over comm: for each op in turn, on a fresh duplicate of comm,
 * initialize it, time its first call on each rank with nothing before it
 * (no barrier, no clock synchronization), then synchronize the clocks and
 * start the second call on every rank at one moment of the global clock,
 * on a buffer at another address; then gather every rank's times on rank
 * 0. One call of each kind per rank: no statistics, no window.
 * params: timer, sync (the clock synchronization before the second calls),
 * alignment_bytes and pool_limit_bytes are used (NULL: the defaults; the
 * automatic timer falls back to monotonic). spec: size_bytes,
 * root, dtype, reduce_op and the op-specific options are used; nprocs,
 * validate and arrival_ns must be 0 / NULL; method and cache are ignored.
 * ops must outlive *out. *out is allocated here and freed with
 * mpiscope_firstcall_free(). Returns 0 or the same code on every rank:
 * MPISCOPE_EINVAL (NULL argument, n_ops 0, a NULL op, an unused spec field
 * set, an element type, reduction or option value refused), MPISCOPE_ERANGE
 * (root out of range), MPISCOPE_ENOTIMER, MPISCOPE_ENOTSUP (an MPI-4 call
 * this MPI lacks), MPISCOPE_EMPI, MPISCOPE_ENOMEM; then *out is not set. */
MPISCOPE_API int mpiscope_firstcall_run(MPI_Comm comm, const mpiscope_params_t *params, const mpiscope_op_t *const *ops,
                                        size_t n_ops, const mpiscope_point_spec_t *spec, mpiscope_firstcall_t **out);

/* Free what mpiscope_firstcall_run() made (NULL is ignored). Not collective. */
MPISCOPE_API void mpiscope_firstcall_free(mpiscope_firstcall_t *fc);

/* Append one point of "kind": "firstcall" per op (schema 1.1: first_ns,
 * second_ns per rank, ratio_rank0, ratio_max) and the warning that such a
 * document has no statistics, and write the file. The values are copied.
 * Call on every rank of the result's context (each point is agreed on, as
 * by mpiscope_result_add_point); rank 0 writes, and must be rank 0 of the
 * measurement (the rank that holds the times). Returns 0, MPISCOPE_EINVAL
 * (NULL argument, or the writer holds no times), MPISCOPE_EIO,
 * MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_result_add_firstcall(mpiscope_result_t *res, const mpiscope_firstcall_t *fc);

#ifdef __cplusplus
}
#endif
#endif
