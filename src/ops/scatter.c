/* scatter.c: MPI_Scatter and MPI_Scatterv (equal counts) in their three
 * forms. Block i of the root's send buffer goes to rank i. */
#include "coll.h"

static int scatter_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Scatter(a->send, a->count, a->type, a->recv, a->count, a->type, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iscatter(a->send, a->count, a->type, a->recv, a->count, a->type, a->root, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Scatter_init(a->send, a->count, a->type, a->recv, a->count, a->type, a->root,
                                                     a->comm, MPI_INFO_NULL, request));
    }
}

static int scatterv_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Scatterv(a->send, a->counts, a->displs, a->type, a->recv, a->count, a->type, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iscatterv(a->send, a->counts, a->displs, a->type, a->recv, a->count, a->type, a->root, a->comm,
                             request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Scatterv_init(a->send, a->counts, a->displs, a->type, a->recv, a->count,
                                                      a->type, a->root, a->comm, MPI_INFO_NULL, request));
    }
}

#define SCATTER_SHAPE(call_fn, with_vectors)                                                                           \
    .call = call_fn, .kind = MPISCOPE__COLL_MOVE, .send = MPISCOPE__SHAPE_ROOT_ALL, .recv = MPISCOPE__SHAPE_ONE,       \
    .source = MPISCOPE__FROM_ROOT_BLOCK_RANK, .in_place = MPISCOPE__IN_PLACE_RECV_AT_ROOT, .vectors = with_vectors
#define SCATTER_CLASS(call_fn, with_vectors) {SCATTER_SHAPE(call_fn, with_vectors)}
static const mpiscope__coll_class_t scatter_class = SCATTER_CLASS(scatter_call, 0);
static const mpiscope__coll_class_t scatterv_class = SCATTER_CLASS(scatterv_call, 1);

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(scatter, scatter_class, FLAGS, mpiscope__opts_root_move_in_place,
                   mpiscope__opts_root_move_in_place_nb, "Scatter", "Iscatter",
                   "the root sends a different message to every rank", "bytes the root sends to each rank")
MPISCOPE__COLL_OPS(scatterv, scatterv_class, FLAGS, mpiscope__opts_root_move_in_place,
                   mpiscope__opts_root_move_in_place_nb, "Scatterv", "Iscatterv",
                   "with equal counts, the root sends a different message to every rank",
                   "bytes the root sends to each rank")

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int scatter_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Scatter_c(a->send, a->ccount, a->type, a->recv, a->ccount, a->type, a->root, a->comm));
}

static int scatterv_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(
        MPI_Scatterv_c(a->send, a->ccounts, a->cdispls, a->type, a->recv, a->ccount, a->type, a->root, a->comm));
}

static const mpiscope__coll_class_t scatter_c_class = {SCATTER_SHAPE(scatter_c_call, 0), .large = 1};
static const mpiscope__coll_class_t scatterv_c_class = {SCATTER_SHAPE(scatterv_c_call, 1), .large = 1};
MPISCOPE__COLL_LARGE_OP(scatter_c, scatter_c_class, FLAGS, mpiscope__opts_large_root_in_place, "Scatter_c",
                        "the root sends a different message to every rank", "bytes the root sends to each rank")
MPISCOPE__COLL_LARGE_OP(scatterv_c, scatterv_c_class, FLAGS, mpiscope__opts_large_root_in_place, "Scatterv_c",
                        "with equal counts, the root sends a different message to every rank",
                        "bytes the root sends to each rank")
