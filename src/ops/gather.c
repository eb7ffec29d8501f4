/* gather.c: MPI_Gather and MPI_Gatherv (equal counts) in their three
 * forms. The root receives the blocks in rank order. */
#include "coll.h"

static int gather_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Gather(a->send, a->count, a->type, a->recv, a->count, a->type, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Igather(a->send, a->count, a->type, a->recv, a->count, a->type, a->root, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Gather_init(a->send, a->count, a->type, a->recv, a->count, a->type, a->root,
                                                    a->comm, MPI_INFO_NULL, request));
    }
}

static int gatherv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Gatherv(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Igatherv(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type, a->root, a->comm,
                            request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Gatherv_init(a->send, a->count, a->type, a->recv, a->counts, a->displs, a->type,
                                                     a->root, a->comm, MPI_INFO_NULL, request));
    }
}

#define GATHER_SHAPE(call_fn, with_vectors)                                                                            \
    .call = call_fn, .kind = MPISCOPE__COLL_MOVE, .send = MPISCOPE__SHAPE_ONE, .recv = MPISCOPE__SHAPE_ROOT_ALL,       \
    .source = MPISCOPE__FROM_J_BLOCK_0, .in_place = MPISCOPE__IN_PLACE_SEND_AT_ROOT, .vectors = with_vectors
#define GATHER_CLASS(call_fn, with_vectors) {GATHER_SHAPE(call_fn, with_vectors)}
static const mpiscope__coll_class_t gather_class = GATHER_CLASS(gather_call, 0);
static const mpiscope__coll_class_t gatherv_class = GATHER_CLASS(gatherv_call, 1);

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(gather, gather_class, FLAGS, mpiscope__opts_root_move_in_place, mpiscope__opts_root_move_in_place_nb,
                   "Gather", "Igather", "every rank sends one message to the root", "bytes each rank sends to the root")
MPISCOPE__COLL_OPS(gatherv, gatherv_class, FLAGS, mpiscope__opts_root_move_in_place,
                   mpiscope__opts_root_move_in_place_nb, "Gatherv", "Igatherv",
                   "with equal counts, every rank sends one message to the root", "bytes each rank sends to the root")

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int gather_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Gather_c(a->send, a->ccount, a->type, a->recv, a->ccount, a->type, a->root, a->comm));
}

static int gatherv_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(
        MPI_Gatherv_c(a->send, a->ccount, a->type, a->recv, a->ccounts, a->cdispls, a->type, a->root, a->comm));
}

static const mpiscope__coll_class_t gather_c_class = {GATHER_SHAPE(gather_c_call, 0), .large = 1};
static const mpiscope__coll_class_t gatherv_c_class = {GATHER_SHAPE(gatherv_c_call, 1), .large = 1};
MPISCOPE__COLL_LARGE_OP(gather_c, gather_c_class, FLAGS, mpiscope__opts_large_root_in_place, "Gather_c",
                        "every rank sends one message to the root", "bytes each rank sends to the root")
MPISCOPE__COLL_LARGE_OP(gatherv_c, gatherv_c_class, FLAGS, mpiscope__opts_large_root_in_place, "Gatherv_c",
                        "with equal counts, every rank sends one message to the root",
                        "bytes each rank sends to the root")
