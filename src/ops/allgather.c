/* allgather.c: MPI_Allgather and MPI_Allgatherv (equal counts) in their
 * three forms. Every rank receives all blocks in rank order. */
#include "coll.h"

static int allgather_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Allgather(a->send, a->count, a->type, a->recv, a->count, a->type, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iallgather(a->send, a->count, a->type, a->recv, a->count, a->type, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Allgather_init(a->send, a->count, a->type, a->recv, a->count, a->type,
                                                       a->comm, MPI_INFO_NULL, request));
    }
}

static int allgatherv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Allgatherv(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iallgatherv(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type, a->comm,
                               request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Allgatherv_init(a->send, a->count, a->type, a->recv, a->counts,
                                                        a->displs, a->type, a->comm, MPI_INFO_NULL, request));
    }
}

#define ALLGATHER_CLASS(call_fn, with_vectors)                                                         \
    {.call = call_fn, .kind = MPISCOPE__COLL_MOVE, .send = MPISCOPE__SHAPE_ONE,                       \
     .recv = MPISCOPE__SHAPE_ALL, .source = MPISCOPE__FROM_J_BLOCK_0,                                 \
     .in_place = MPISCOPE__IN_PLACE_SEND, .vectors = with_vectors}
static const mpiscope__coll_class_t allgather_class = ALLGATHER_CLASS(allgather_call, 0);
static const mpiscope__coll_class_t allgatherv_class = ALLGATHER_CLASS(allgatherv_call, 1);

#define SIZE_MEANING "bytes each rank contributes (each rank receives nprocs times that)"
MPISCOPE__COLL_OPS(allgather, allgather_class, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH, mpiscope__opts_move_in_place,
                   mpiscope__opts_move_in_place_nb, "Allgather", "Iallgather",
                   "every rank sends one message to every rank", SIZE_MEANING)
MPISCOPE__COLL_OPS(allgatherv, allgatherv_class, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH, mpiscope__opts_move_in_place,
                   mpiscope__opts_move_in_place_nb, "Allgatherv", "Iallgatherv",
                   "with equal counts, every rank sends one message to every rank", SIZE_MEANING)
