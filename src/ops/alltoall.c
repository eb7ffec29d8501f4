/* alltoall.c: MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw (equal counts,
 * one type for every peer) in their three forms. Block i of the send
 * buffer goes to rank i; block i of the receive buffer comes from rank i. */
#include "coll.h"

static int alltoall_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Alltoall(a->send, a->count, a->type, a->recv, a->count, a->type, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ialltoall(a->send, a->count, a->type, a->recv, a->count, a->type, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Alltoall_init(a->send, a->count, a->type, a->recv, a->count, a->type, a->comm, MPI_INFO_NULL, request));
    }
}

static int alltoallv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Alltoallv(a->send, a->counts, a->displs, a->type, a->recv, a->counts, a->displs, a->type, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ialltoallv(a->send, a->counts, a->displs, a->type, a->recv, a->counts, a->displs, a->type, a->comm,
                              request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Alltoallv_init(a->send, a->counts, a->displs, a->type, a->recv, a->counts,
                                                       a->displs, a->type, a->comm, MPI_INFO_NULL, request));
    }
}

/* Alltoallw's displacements are in bytes. */
static int alltoallw_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Alltoallw(a->send, a->counts, a->byte_displs, a->types, a->recv, a->counts, a->byte_displs, a->types,
                             a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ialltoallw(a->send, a->counts, a->byte_displs, a->types, a->recv, a->counts, a->byte_displs,
                              a->types, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Alltoallw_init(a->send, a->counts, a->byte_displs, a->types, a->recv, a->counts,
                                                       a->byte_displs, a->types, a->comm, MPI_INFO_NULL, request));
    }
}

#define ALLTOALL_SHAPE(call_fn, with_vectors)                                                                          \
    .call = call_fn, .kind = MPISCOPE__COLL_MOVE, .send = MPISCOPE__SHAPE_ALL, .recv = MPISCOPE__SHAPE_ALL,            \
    .source = MPISCOPE__FROM_J_BLOCK_RANK, .in_place = MPISCOPE__IN_PLACE_SEND, .vectors = with_vectors
#define ALLTOALL_CLASS(call_fn, with_vectors) {ALLTOALL_SHAPE(call_fn, with_vectors)}
static const mpiscope__coll_class_t alltoall_class = ALLTOALL_CLASS(alltoall_call, 0);
static const mpiscope__coll_class_t alltoallv_class = ALLTOALL_CLASS(alltoallv_call, 1);
static const mpiscope__coll_class_t alltoallw_class = ALLTOALL_CLASS(alltoallw_call, 1);

#define SIZE_MEANING "bytes each rank sends to each rank (itself included)"
MPISCOPE__COLL_OPS(alltoall, alltoall_class, MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                   mpiscope__opts_move_in_place, mpiscope__opts_move_in_place_nb, "Alltoall", "Ialltoall",
                   "every rank sends a different message to every rank", SIZE_MEANING)
MPISCOPE__COLL_OPS(alltoallv, alltoallv_class,
                   MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                   mpiscope__opts_move_in_place, mpiscope__opts_move_in_place_nb, "Alltoallv", "Ialltoallv",
                   "with equal counts, every rank sends a different message to every rank", SIZE_MEANING)
MPISCOPE__COLL_OPS(alltoallw, alltoallw_class,
                   MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                   mpiscope__opts_move_in_place, mpiscope__opts_move_in_place_nb, "Alltoallw", "Ialltoallw",
                   "with equal counts and one type for every peer, every rank sends a different message "
                   "to every rank",
                   SIZE_MEANING)

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int alltoall_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Alltoall_c(a->send, a->ccount, a->type, a->recv, a->ccount, a->type, a->comm));
}

static int alltoallv_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(
        MPI_Alltoallv_c(a->send, a->ccounts, a->cdispls, a->type, a->recv, a->ccounts, a->cdispls, a->type, a->comm));
}

/* Alltoallw_c's displacements are in bytes (MPI_Aint). */
static int alltoallw_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Alltoallw_c(a->send, a->ccounts, a->aint_displs, a->types, a->recv, a->ccounts,
                                           a->aint_displs, a->types, a->comm));
}

static const mpiscope__coll_class_t alltoall_c_class = {ALLTOALL_SHAPE(alltoall_c_call, 0), .large = 1};
static const mpiscope__coll_class_t alltoallv_c_class = {ALLTOALL_SHAPE(alltoallv_c_call, 1), .large = 1};
static const mpiscope__coll_class_t alltoallw_c_class = {ALLTOALL_SHAPE(alltoallw_c_call, 1), .large = 1};
#define LARGE_FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_LARGE_OP(alltoall_c, alltoall_c_class, LARGE_FLAGS, mpiscope__opts_large_in_place, "Alltoall_c",
                        "every rank sends a different message to every rank", SIZE_MEANING)
MPISCOPE__COLL_LARGE_OP(alltoallv_c, alltoallv_c_class, LARGE_FLAGS, mpiscope__opts_large_in_place, "Alltoallv_c",
                        "with equal counts, every rank sends a different message to every rank", SIZE_MEANING)
MPISCOPE__COLL_LARGE_OP(alltoallw_c, alltoallw_c_class, LARGE_FLAGS, mpiscope__opts_large_in_place, "Alltoallw_c",
                        "with equal counts and one type for every peer, every rank sends a "
                        "different message to every rank",
                        SIZE_MEANING)
