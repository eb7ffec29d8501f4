/* reduce.c: MPI_Reduce and MPI_Allreduce of ctx->count elements of
 * ctx->dtype with ctx->reduce_op, in their three forms. */
#include "coll.h"

static int reduce_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Reduce(a->send, a->recv, a->count, a->type, a->op, a->root, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ireduce(a->send, a->recv, a->count, a->type, a->op, a->root, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Reduce_init(a->send, a->recv, a->count, a->type, a->op, a->root, a->comm, MPI_INFO_NULL, request));
    }
}

static int allreduce_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Allreduce(a->send, a->recv, a->count, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iallreduce(a->send, a->recv, a->count, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Allreduce_init(a->send, a->recv, a->count, a->type, a->op, a->comm, MPI_INFO_NULL, request));
    }
}

static const mpiscope__coll_class_t reduce_class = {
    .call = reduce_call,
    .kind = MPISCOPE__COLL_REDUCE,
    .send = MPISCOPE__SHAPE_ONE,
    .recv = MPISCOPE__SHAPE_ROOT_ONE,
    .source = MPISCOPE__REDUCE_ALL,
    .in_place = MPISCOPE__IN_PLACE_SEND_AT_ROOT,
};
static const mpiscope__coll_class_t allreduce_class = {
    .call = allreduce_call,
    .kind = MPISCOPE__COLL_REDUCE,
    .send = MPISCOPE__SHAPE_ONE,
    .recv = MPISCOPE__SHAPE_ONE,
    .source = MPISCOPE__REDUCE_ALL,
    .in_place = MPISCOPE__IN_PLACE_SEND,
};

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(reduce, reduce_class, FLAGS | MPISCOPE_OP_USES_ROOT, mpiscope__opts_root_reduce,
                   mpiscope__opts_root_reduce_nb, "Reduce", "Ireduce",
                   "the root receives the element-wise reduction of every rank's vector", "bytes of the reduced vector")
MPISCOPE__COLL_OPS(allreduce, allreduce_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING, mpiscope__opts_reduce,
                   mpiscope__opts_reduce_nb, "Allreduce", "Iallreduce",
                   "every rank receives the element-wise reduction of every rank's vector",
                   "bytes of the reduced vector")

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int reduce_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Reduce_c(a->send, a->recv, a->ccount, a->type, a->op, a->root, a->comm));
}

static int allreduce_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Allreduce_c(a->send, a->recv, a->ccount, a->type, a->op, a->comm));
}

static const mpiscope__coll_class_t reduce_c_class = {
    .call = reduce_c_call,
    .kind = MPISCOPE__COLL_REDUCE,
    .send = MPISCOPE__SHAPE_ONE,
    .recv = MPISCOPE__SHAPE_ROOT_ONE,
    .source = MPISCOPE__REDUCE_ALL,
    .in_place = MPISCOPE__IN_PLACE_SEND_AT_ROOT,
    .large = 1,
};
static const mpiscope__coll_class_t allreduce_c_class = {
    .call = allreduce_c_call,
    .kind = MPISCOPE__COLL_REDUCE,
    .send = MPISCOPE__SHAPE_ONE,
    .recv = MPISCOPE__SHAPE_ONE,
    .source = MPISCOPE__REDUCE_ALL,
    .in_place = MPISCOPE__IN_PLACE_SEND,
    .large = 1,
};
MPISCOPE__COLL_LARGE_OP(reduce_c, reduce_c_class, FLAGS | MPISCOPE_OP_USES_ROOT, mpiscope__opts_root_reduce, "Reduce_c",
                        "the root receives the element-wise reduction of every rank's vector",
                        "bytes of the reduced vector")
MPISCOPE__COLL_LARGE_OP(allreduce_c, allreduce_c_class, FLAGS | MPISCOPE_OP_SYNCHRONIZING, mpiscope__opts_reduce,
                        "Allreduce_c", "every rank receives the element-wise reduction of every rank's vector",
                        "bytes of the reduced vector")
