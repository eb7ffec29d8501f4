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
        return MPISCOPE__PERSISTENT(MPI_Allgather_init(a->send, a->count, a->type, a->recv, a->count, a->type, a->comm,
                                                       MPI_INFO_NULL, request));
    }
}

static int allgatherv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Allgatherv(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iallgatherv(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Allgatherv_init(a->send, a->count, a->type, a->recv, a->counts, a->displs,
                                                        a->type, a->comm, MPI_INFO_NULL, request));
    }
}

#define ALLGATHER_SHAPE(call_fn, with_vectors)                                                                         \
    .call = call_fn, .kind = MPISCOPE__COLL_MOVE, .send = MPISCOPE__SHAPE_ONE, .recv = MPISCOPE__SHAPE_ALL,            \
    .source = MPISCOPE__FROM_J_BLOCK_0, .in_place = MPISCOPE__IN_PLACE_SEND, .vectors = with_vectors
#define ALLGATHER_CLASS(call_fn, with_vectors) {ALLGATHER_SHAPE(call_fn, with_vectors)}
static const mpiscope__coll_class_t allgather_class = ALLGATHER_CLASS(allgather_call, 0);
static const mpiscope__coll_class_t allgatherv_class = ALLGATHER_CLASS(allgatherv_call, 1);

#define SIZE_MEANING "bytes each rank contributes (each rank receives nprocs times that)"
MPISCOPE__COLL_OPS(allgather, allgather_class,
                   MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                   mpiscope__opts_move_in_place, mpiscope__opts_move_in_place_nb, "Allgather", "Iallgather",
                   "every rank sends one message to every rank", SIZE_MEANING)
MPISCOPE__COLL_OPS(allgatherv, allgatherv_class,
                   MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                   mpiscope__opts_move_in_place, mpiscope__opts_move_in_place_nb, "Allgatherv", "Iallgatherv",
                   "with equal counts, every rank sends one message to every rank", SIZE_MEANING)

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int allgather_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Allgather_c(a->send, a->ccount, a->type, a->recv, a->ccount, a->type, a->comm));
}

static int allgatherv_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(
        MPI_Allgatherv_c(a->send, a->ccount, a->type, a->recv, a->ccounts, a->cdispls, a->type, a->comm));
}

static const mpiscope__coll_class_t allgather_c_class = {ALLGATHER_SHAPE(allgather_c_call, 0), .large = 1};
static const mpiscope__coll_class_t allgatherv_c_class = {ALLGATHER_SHAPE(allgatherv_c_call, 1), .large = 1};
MPISCOPE__COLL_LARGE_OP(allgather_c, allgather_c_class,
                        MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                        mpiscope__opts_large_in_place, "Allgather_c", "every rank sends one message to every rank",
                        SIZE_MEANING)
MPISCOPE__COLL_LARGE_OP(allgatherv_c, allgatherv_c_class,
                        MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,
                        mpiscope__opts_large_in_place, "Allgatherv_c",
                        "with equal counts, every rank sends one message to every rank", SIZE_MEANING)
