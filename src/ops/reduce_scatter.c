/* reduce_scatter.c: MPI_Reduce_scatter (equal counts) and
 * MPI_Reduce_scatter_block in their three forms. Every rank contributes
 * nprocs blocks of ctx->count elements; rank i receives the reduction of
 * the blocks i. */
#include "coll.h"

static int reduce_scatter_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING: return MPI_Reduce_scatter(a->send, a->recv, a->counts, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ireduce_scatter(a->send, a->recv, a->counts, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Reduce_scatter_init(a->send, a->recv, a->counts, a->type, a->op, a->comm,
                                                            MPI_INFO_NULL, request));
    }
}

static int reduce_scatter_block_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form,
                                     MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Reduce_scatter_block(a->send, a->recv, a->count, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ireduce_scatter_block(a->send, a->recv, a->count, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Reduce_scatter_block_init(a->send, a->recv, a->count, a->type, a->op,
                                                                  a->comm, MPI_INFO_NULL, request));
    }
}

#define REDUCE_SCATTER_CLASS(call_fn, with_vectors)                                                    \
    {.call = call_fn, .kind = MPISCOPE__COLL_REDUCE, .send = MPISCOPE__SHAPE_ALL,                     \
     .recv = MPISCOPE__SHAPE_ONE, .source = MPISCOPE__REDUCE_ALL_BLOCK_RANK,                          \
     .in_place = MPISCOPE__IN_PLACE_SEND, .vectors = with_vectors}
static const mpiscope__coll_class_t reduce_scatter_class = REDUCE_SCATTER_CLASS(reduce_scatter_call, 1);
static const mpiscope__coll_class_t reduce_scatter_block_class = REDUCE_SCATTER_CLASS(reduce_scatter_block_call, 0);

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION | MPISCOPE_OP_BANDWIDTH)
#define SIZE_MEANING "bytes of the reduced block each rank receives (each rank sends nprocs times that)"
MPISCOPE__COLL_OPS(reduce_scatter, reduce_scatter_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING, mpiscope__opts_reduce, mpiscope__opts_reduce_nb,
                   "Reduce_scatter", "Ireduce_scatter",
                   "with equal counts, a reduction whose result is split among the ranks", SIZE_MEANING)
MPISCOPE__COLL_OPS(reduce_scatter_block, reduce_scatter_block_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING, mpiscope__opts_reduce,
                   mpiscope__opts_reduce_nb, "Reduce_scatter_block", "Ireduce_scatter_block",
                   "a reduction whose result is split in equal blocks among the ranks", SIZE_MEANING)
