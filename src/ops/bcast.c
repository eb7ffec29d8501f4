/* bcast.c: MPI_Bcast, MPI_Ibcast, MPI_Bcast_init. Its one buffer is the
 * receive buffer on every rank: the root sends from it. */
#include "coll.h"

static int bcast_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING: return MPI_Bcast(a->recv, a->count, a->type, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING: return MPI_Ibcast(a->recv, a->count, a->type, a->root, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Bcast_init(a->recv, a->count, a->type, a->root, a->comm, MPI_INFO_NULL, request));
    }
}

static const mpiscope__coll_class_t bcast_class = {
    .call = bcast_call, .kind = MPISCOPE__COLL_MOVE, .send = MPISCOPE__SHAPE_ROOT_ONE,
    .recv = MPISCOPE__SHAPE_ONE, .source = MPISCOPE__FROM_ROOT_BLOCK_0, .in_place = MPISCOPE__IN_PLACE_BCAST,
};

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_BROADCAST | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(bcast, bcast_class, FLAGS, mpiscope__opts_root_move, mpiscope__opts_root_move_nb, "Bcast",
                   "Ibcast", "the root sends one message to every rank", "bytes broadcast by the root")
