/* reduce_scatter.c: MPI_Reduce_scatter (equal counts) and
 * MPI_Reduce_scatter_block in their three forms. Every rank contributes
 * nprocs blocks of ctx->count elements; rank i receives the reduction of
 * the blocks i. */
#include "coll.h"

static int reduce_scatter_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Reduce_scatter(a->send, a->recv, a->counts, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ireduce_scatter(a->send, a->recv, a->counts, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Reduce_scatter_init(a->send, a->recv, a->counts, a->type, a->op, a->comm, MPI_INFO_NULL, request));
    }
}

static int reduce_scatter_block_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Reduce_scatter_block(a->send, a->recv, a->count, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ireduce_scatter_block(a->send, a->recv, a->count, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Reduce_scatter_block_init(a->send, a->recv, a->count, a->type, a->op, a->comm, MPI_INFO_NULL, request));
    }
}

#define REDUCE_SCATTER_SHAPE(call_fn, with_vectors)                                                                    \
    .call = call_fn, .kind = MPISCOPE__COLL_REDUCE, .send = MPISCOPE__SHAPE_ALL, .recv = MPISCOPE__SHAPE_ONE,          \
    .source = MPISCOPE__REDUCE_ALL_BLOCK_RANK, .in_place = MPISCOPE__IN_PLACE_SEND, .vectors = with_vectors
#define REDUCE_SCATTER_CLASS(call_fn, with_vectors) {REDUCE_SCATTER_SHAPE(call_fn, with_vectors)}
static const mpiscope__coll_class_t reduce_scatter_class = REDUCE_SCATTER_CLASS(reduce_scatter_call, 1);
static const mpiscope__coll_class_t reduce_scatter_block_class = REDUCE_SCATTER_CLASS(reduce_scatter_block_call, 0);

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION | MPISCOPE_OP_BANDWIDTH)
#define SIZE_MEANING "bytes of the reduced block each rank receives (each rank sends nprocs times that)"
MPISCOPE__COLL_OPS(reduce_scatter, reduce_scatter_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING, mpiscope__opts_reduce,
                   mpiscope__opts_reduce_nb, "Reduce_scatter", "Ireduce_scatter",
                   "with equal counts, a reduction whose result is split among the ranks", SIZE_MEANING)
MPISCOPE__COLL_OPS(reduce_scatter_block, reduce_scatter_block_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING,
                   mpiscope__opts_reduce, mpiscope__opts_reduce_nb, "Reduce_scatter_block", "Ireduce_scatter_block",
                   "a reduction whose result is split in equal blocks among the ranks", SIZE_MEANING)

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int reduce_scatter_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Reduce_scatter_c(a->send, a->recv, a->ccounts, a->type, a->op, a->comm));
}

static int reduce_scatter_block_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Reduce_scatter_block_c(a->send, a->recv, a->ccount, a->type, a->op, a->comm));
}

static const mpiscope__coll_class_t reduce_scatter_c_class = {REDUCE_SCATTER_SHAPE(reduce_scatter_c_call, 1),
                                                              .large = 1};
static const mpiscope__coll_class_t reduce_scatter_block_c_class = {
    REDUCE_SCATTER_SHAPE(reduce_scatter_block_c_call, 0), .large = 1};
MPISCOPE__COLL_LARGE_OP(reduce_scatter_c, reduce_scatter_c_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING,
                        mpiscope__opts_reduce, "Reduce_scatter_c",
                        "with equal counts, a reduction whose result is split among the ranks", SIZE_MEANING)
MPISCOPE__COLL_LARGE_OP(reduce_scatter_block_c, reduce_scatter_block_c_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING,
                        mpiscope__opts_reduce, "Reduce_scatter_block_c",
                        "a reduction whose result is split in equal blocks among the ranks", SIZE_MEANING)
