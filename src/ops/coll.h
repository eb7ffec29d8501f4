/* coll.h (internal to src/ops): the collective family. Each collective
 * (the 17 of MPI, the neighborhood ones, MPIBlib's linear ones) is a
 * class: one call function issuing its MPI call in the blocking,
 * nonblocking (I-) and persistent (_init) forms, and a description of its
 * buffers and of what each rank receives. From that the family's shared
 * hooks size the buffers, apply MPI_IN_PLACE and the `datatype` option,
 * run the three forms and validate. One macro makes the three descriptors
 * (NAME, iNAME, NAME_init) of a class. */
#ifndef MPISCOPE_OPS_COLL_H
#define MPISCOPE_OPS_COLL_H

#include <mpi.h>
#include "common.h"
#include "options.h"

typedef enum mpiscope__coll_form {
    MPISCOPE__COLL_BLOCKING,
    MPISCOPE__COLL_NONBLOCKING,
    MPISCOPE__COLL_PERSISTENT
} mpiscope__coll_form_t;

/* Everything one call needs; send and recv are set before every launch. */
typedef struct mpiscope__coll_args {
    MPI_Comm comm; /* the point's communicator, or the topology made from it */
    int root, rank, nprocs;
    const void *send; /* MPI_IN_PLACE where in place */
    void *recv;
    MPI_Datatype type; /* the message type (layout), or the element type (reductions) */
    int count;         /* of `type` per message */
    MPI_Op op;
    /* v and w variants, one entry per peer: count, displacement in
     * extents of `type`, in bytes (int and MPI_Aint), type */
    int *counts, *displs, *byte_displs;
    MPI_Aint *aint_displs;
    MPI_Datatype *types;
    size_t span_bytes;     /* bytes one message spans */
    MPI_Request *requests; /* linear ops: nprocs + 1 */
    /* large-count classes (the MPI-4 _c calls): count, counts and
     * displacements (in extents of `type`) as MPI_Count and MPI_Aint */
    MPI_Count ccount;
    MPI_Count *ccounts;
    MPI_Aint *cdispls;
} mpiscope__coll_args_t;

typedef int (*mpiscope__coll_call_t)(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request);

enum { MPISCOPE__COLL_MOVE, MPISCOPE__COLL_REDUCE, MPISCOPE__COLL_SYNC };

/* Buffer sizes, in messages. */
enum {
    MPISCOPE__SHAPE_NONE,
    MPISCOPE__SHAPE_ONE,
    MPISCOPE__SHAPE_ALL,
    MPISCOPE__SHAPE_ROOT_ONE,
    MPISCOPE__SHAPE_ROOT_ALL,
    MPISCOPE__SHAPE_IN_NEIGHBORS,
    MPISCOPE__SHAPE_OUT_NEIGHBORS
};

/* What receive block j holds: data movement (the rank and send block it
 * came from) or reductions (whose contributions are reduced into it). */
enum {
    MPISCOPE__FROM_ROOT_BLOCK_0,
    MPISCOPE__FROM_J_BLOCK_0,
    MPISCOPE__FROM_ROOT_BLOCK_RANK,
    MPISCOPE__FROM_J_BLOCK_RANK,
    MPISCOPE__FROM_NEIGHBOR_BLOCK_0,
    MPISCOPE__FROM_NEIGHBOR,
    MPISCOPE__REDUCE_ALL,
    MPISCOPE__REDUCE_ALL_BLOCK_RANK,
    MPISCOPE__REDUCE_INCLUSIVE,
    MPISCOPE__REDUCE_EXCLUSIVE,
    MPISCOPE__FROM_NOBODY
};

/* Where in_place=1 puts MPI_IN_PLACE; BCAST: the root's data is in the
 * receive buffer (its one buffer) whatever the option. */
enum {
    MPISCOPE__IN_PLACE_NO,
    MPISCOPE__IN_PLACE_SEND_AT_ROOT,
    MPISCOPE__IN_PLACE_RECV_AT_ROOT,
    MPISCOPE__IN_PLACE_SEND,
    MPISCOPE__IN_PLACE_BCAST
};

typedef struct mpiscope__coll_class {
    mpiscope__coll_call_t call;
    unsigned char kind; /* MPISCOPE__COLL_* */
    unsigned char send; /* MPISCOPE__SHAPE_* */
    unsigned char recv;
    unsigned char source;   /* MPISCOPE__FROM_* or MPISCOPE__REDUCE_* */
    unsigned char in_place; /* MPISCOPE__IN_PLACE_* */
    unsigned char vectors;  /* 1: the v/w arrays */
    unsigned char topology; /* 1: on the topology the options describe */
    unsigned char linear;   /* 1: args.requests */
    unsigned char large;    /* 1: the _c call: bytes (no datatype option) or elements as MPI_Count,
                                one buffer pair for the point, the node's memory checked first */
} mpiscope__coll_class_t;

/* The shared hooks. */
int mpiscope__coll_initialize(mpiscope_op_ctx_t *ctx, const mpiscope__coll_class_t *cls, mpiscope__coll_form_t form);
int mpiscope__coll_execute(mpiscope_op_ctx_t *ctx);
int mpiscope__coll_execute_nonblocking(mpiscope_op_ctx_t *ctx);
int mpiscope__coll_execute_persistent(mpiscope_op_ctx_t *ctx);
int mpiscope__coll_finalize(mpiscope_op_ctx_t *ctx);
int mpiscope__coll_validate(mpiscope_op_ctx_t *ctx, int phase);

/* Complete a started request: first busy-compute for compute_ns (0: not
 * at all), calling MPI_Test every test_ns (0: never), then MPI_Wait. */
int mpiscope__ops_wait_computing(MPI_Request *request, double compute_ns, double test_ns);

/* In a call function: the persistent form where the MPI library has it
 * (CMake: MPISCOPE_HAVE_PERSISTENT_COLL); else initialize returns
 * MPISCOPE_ENOTSUP before any call. */
#ifdef MPISCOPE_HAVE_PERSISTENT_COLL
#define MPISCOPE__PERSISTENT(call) (call)
#else
#define MPISCOPE__PERSISTENT(call) MPI_ERR_UNSUPPORTED_OPERATION
#endif

/* One descriptor of a class in one form. */
#define MPISCOPE__COLL_OP(NAME, CLASS, FORM, EXECUTE, FLAGS, OPTIONS, DESCRIPTION, SIZE_MEANING)                       \
    static int NAME##_initialize(mpiscope_op_ctx_t *ctx)                                                               \
    {                                                                                                                  \
        return mpiscope__coll_initialize(ctx, &(CLASS), FORM);                                                         \
    }                                                                                                                  \
    const mpiscope_op_t mpiscope__op_##NAME = {                                                                        \
        .abi = MPISCOPE_OP_ABI,                                                                                        \
        .name = #NAME,                                                                                                 \
        .description = DESCRIPTION,                                                                                    \
        .size_meaning = SIZE_MEANING,                                                                                  \
        .flags = FLAGS,                                                                                                \
        .options = OPTIONS,                                                                                            \
        .initialize = NAME##_initialize,                                                                               \
        .execute = EXECUTE,                                                                                            \
        .finalize = mpiscope__coll_finalize,                                                                           \
        .validate = mpiscope__coll_validate,                                                                           \
    };

/* A large-count collective: the blocking form of the _c call (MPI-4). */
#define MPISCOPE__COLL_LARGE_OP(NAME, CLASS, FLAGS, OPTIONS, MPI_NAME, WHAT, SIZE_MEANING)                             \
    MPISCOPE__COLL_OP(NAME, CLASS, MPISCOPE__COLL_BLOCKING, mpiscope__coll_execute, (FLAGS) | MPISCOPE_OP_LARGE_COUNT, \
                      OPTIONS,                                                                                         \
                      "MPI_" MPI_NAME " (MPI-4 large count: MPI_Count counts, beyond 2^31 - 1 elements "               \
                      "where memory allows): " WHAT,                                                                   \
                      SIZE_MEANING)

/* The three descriptors NAME, iNAME and NAME_init. MPI_NAME is the
 * blocking call's name ("Bcast"); OPTIONS and OPTIONS_NB the option lists
 * without and with compute_us/test_us. BROADCAST and BANDWIDTH stay with
 * the blocking form: the other two time compute_us with the call. */
#define MPISCOPE__COLL_BLOCKING_ONLY (MPISCOPE_OP_BROADCAST | MPISCOPE_OP_BANDWIDTH)
#define MPISCOPE__COLL_OPS(NAME, CLASS, FLAGS, OPTIONS, OPTIONS_NB, MPI_NAME, I_NAME, WHAT, SIZE_MEANING)              \
    MPISCOPE__COLL_OP(NAME, CLASS, MPISCOPE__COLL_BLOCKING, mpiscope__coll_execute, FLAGS, OPTIONS,                    \
                      "MPI_" MPI_NAME ": " WHAT, SIZE_MEANING)                                                         \
    MPISCOPE__COLL_OP(i##NAME, CLASS, MPISCOPE__COLL_NONBLOCKING, mpiscope__coll_execute_nonblocking,                  \
                      (FLAGS) & ~MPISCOPE__COLL_BLOCKING_ONLY, OPTIONS_NB,                                             \
                      "MPI_" I_NAME " + MPI_Wait (computing compute_us in between): " WHAT, SIZE_MEANING)              \
    MPISCOPE__COLL_OP(NAME##_init, CLASS, MPISCOPE__COLL_PERSISTENT, mpiscope__coll_execute_persistent,                \
                      (FLAGS) & ~MPISCOPE__COLL_BLOCKING_ONLY, OPTIONS_NB,                                             \
                      "MPI_" MPI_NAME "_init once, MPI_Start + MPI_Wait per launch (MPI-4): " WHAT, SIZE_MEANING)

#endif
