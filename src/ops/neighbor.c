/* neighbor.c: the neighborhood collectives (MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v/w)) in their three forms, on the Cartesian or
 * graph topology their options describe (topology.h). */
#include "coll.h"

#define A_SEND a->send, a->count, a->type
#define A_RECV a->recv, a->count, a->type

static int allgather_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Neighbor_allgather(A_SEND, A_RECV, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ineighbor_allgather(A_SEND, A_RECV, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Neighbor_allgather_init(A_SEND, A_RECV, a->comm, MPI_INFO_NULL, request));
    }
}

static int allgatherv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Neighbor_allgatherv(A_SEND, a->recv, a->counts, a->displs, a->type, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ineighbor_allgatherv(A_SEND, a->recv, a->counts, a->displs, a->type, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Neighbor_allgatherv_init(A_SEND, a->recv, a->counts, a->displs, a->type,
                                                                 a->comm, MPI_INFO_NULL, request));
    }
}

static int alltoall_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Neighbor_alltoall(A_SEND, A_RECV, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ineighbor_alltoall(A_SEND, A_RECV, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Neighbor_alltoall_init(A_SEND, A_RECV, a->comm, MPI_INFO_NULL, request));
    }
}

#define V_SEND a->send, a->counts, a->displs, a->type
#define V_RECV a->recv, a->counts, a->displs, a->type
static int alltoallv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Neighbor_alltoallv(V_SEND, V_RECV, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ineighbor_alltoallv(V_SEND, V_RECV, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Neighbor_alltoallv_init(V_SEND, V_RECV, a->comm, MPI_INFO_NULL, request));
    }
}

/* Neighbor_alltoallw's displacements are MPI_Aint bytes. */
#define W_SEND a->send, a->counts, a->aint_displs, a->types
#define W_RECV a->recv, a->counts, a->aint_displs, a->types
static int alltoallw_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Neighbor_alltoallw(W_SEND, W_RECV, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ineighbor_alltoallw(W_SEND, W_RECV, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Neighbor_alltoallw_init(W_SEND, W_RECV, a->comm, MPI_INFO_NULL, request));
    }
}

#define NEIGHBOR_CLASS(call_fn, send_shape, from, with_vectors)                                                        \
    {.call = call_fn,                                                                                                  \
     .kind = MPISCOPE__COLL_MOVE,                                                                                      \
     .send = send_shape,                                                                                               \
     .recv = MPISCOPE__SHAPE_IN_NEIGHBORS,                                                                             \
     .source = from,                                                                                                   \
     .vectors = with_vectors,                                                                                          \
     .topology = 1}
static const mpiscope__coll_class_t allgather_class =
    NEIGHBOR_CLASS(allgather_call, MPISCOPE__SHAPE_ONE, MPISCOPE__FROM_NEIGHBOR_BLOCK_0, 0);
static const mpiscope__coll_class_t allgatherv_class =
    NEIGHBOR_CLASS(allgatherv_call, MPISCOPE__SHAPE_ONE, MPISCOPE__FROM_NEIGHBOR_BLOCK_0, 1);
static const mpiscope__coll_class_t alltoall_class =
    NEIGHBOR_CLASS(alltoall_call, MPISCOPE__SHAPE_OUT_NEIGHBORS, MPISCOPE__FROM_NEIGHBOR, 0);
static const mpiscope__coll_class_t alltoallv_class =
    NEIGHBOR_CLASS(alltoallv_call, MPISCOPE__SHAPE_OUT_NEIGHBORS, MPISCOPE__FROM_NEIGHBOR, 1);
static const mpiscope__coll_class_t alltoallw_class =
    NEIGHBOR_CLASS(alltoallw_call, MPISCOPE__SHAPE_OUT_NEIGHBORS, MPISCOPE__FROM_NEIGHBOR, 1);

#define GATHER_SIZE "bytes each rank sends (the same message to every out-neighbor)"
#define ALLTOALL_SIZE "bytes each rank sends to each out-neighbor"
MPISCOPE__COLL_OPS(neighbor_allgather, allgather_class, MPISCOPE_OP_USES_SIZE, mpiscope__opts_neighbor,
                   mpiscope__opts_neighbor_nb, "Neighbor_allgather", "Ineighbor_allgather",
                   "every rank sends one message to each out-neighbor of its topology", GATHER_SIZE)
MPISCOPE__COLL_OPS(neighbor_allgatherv, allgatherv_class, MPISCOPE_OP_USES_SIZE, mpiscope__opts_neighbor,
                   mpiscope__opts_neighbor_nb, "Neighbor_allgatherv", "Ineighbor_allgatherv",
                   "with equal counts, every rank sends one message to each out-neighbor", GATHER_SIZE)
MPISCOPE__COLL_OPS(neighbor_alltoall, alltoall_class, MPISCOPE_OP_USES_SIZE, mpiscope__opts_neighbor,
                   mpiscope__opts_neighbor_nb, "Neighbor_alltoall", "Ineighbor_alltoall",
                   "every rank sends a different message to each out-neighbor", ALLTOALL_SIZE)
MPISCOPE__COLL_OPS(neighbor_alltoallv, alltoallv_class, MPISCOPE_OP_USES_SIZE, mpiscope__opts_neighbor,
                   mpiscope__opts_neighbor_nb, "Neighbor_alltoallv", "Ineighbor_alltoallv",
                   "with equal counts, every rank sends a different message to each out-neighbor", ALLTOALL_SIZE)
MPISCOPE__COLL_OPS(neighbor_alltoallw, alltoallw_class, MPISCOPE_OP_USES_SIZE, mpiscope__opts_neighbor,
                   mpiscope__opts_neighbor_nb, "Neighbor_alltoallw", "Ineighbor_alltoallw",
                   "with equal counts and one type for every neighbor, every rank sends a different "
                   "message to each out-neighbor",
                   ALLTOALL_SIZE)
