/* bcast.c: MPI_Bcast, MPI_Ibcast, MPI_Bcast_init. Its one buffer is the
 * receive buffer on every rank: the root sends from it. */
#include "coll.h"

static int bcast_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Bcast(a->recv, a->count, a->type, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ibcast(a->recv, a->count, a->type, a->root, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Bcast_init(a->recv, a->count, a->type, a->root, a->comm, MPI_INFO_NULL, request));
    }
}

static const mpiscope__coll_class_t bcast_class = {
    .call = bcast_call,
    .kind = MPISCOPE__COLL_MOVE,
    .send = MPISCOPE__SHAPE_ROOT_ONE,
    .recv = MPISCOPE__SHAPE_ONE,
    .source = MPISCOPE__FROM_ROOT_BLOCK_0,
    .in_place = MPISCOPE__IN_PLACE_BCAST,
};

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_BROADCAST | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(bcast, bcast_class, FLAGS, mpiscope__opts_root_move, mpiscope__opts_root_move_nb, "Bcast", "Ibcast",
                   "the root sends one message to every rank", "bytes broadcast by the root")

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int bcast_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Bcast_c(a->recv, a->ccount, a->type, a->root, a->comm));
}

static const mpiscope__coll_class_t bcast_c_class = {
    .call = bcast_c_call,
    .kind = MPISCOPE__COLL_MOVE,
    .send = MPISCOPE__SHAPE_ROOT_ONE,
    .recv = MPISCOPE__SHAPE_ONE,
    .source = MPISCOPE__FROM_ROOT_BLOCK_0,
    .in_place = MPISCOPE__IN_PLACE_BCAST,
    .large = 1,
};
MPISCOPE__COLL_LARGE_OP(bcast_c, bcast_c_class, FLAGS, mpiscope__opts_large_root, "Bcast_c",
                        "the root sends one message to every rank", "bytes broadcast by the root")
