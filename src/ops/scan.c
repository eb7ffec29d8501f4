/* scan.c: MPI_Scan (inclusive prefix reduction) and MPI_Exscan (exclusive;
 * nothing is defined on rank 0) in their three forms. */
#include "coll.h"

static int scan_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Scan(a->send, a->recv, a->count, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iscan(a->send, a->recv, a->count, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Scan_init(a->send, a->recv, a->count, a->type, a->op, a->comm, MPI_INFO_NULL, request));
    }
}

static int exscan_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Exscan(a->send, a->recv, a->count, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iexscan(a->send, a->recv, a->count, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Exscan_init(a->send, a->recv, a->count, a->type, a->op, a->comm, MPI_INFO_NULL, request));
    }
}

#define SCAN_SHAPE(call_fn, which)                                                                                     \
    .call = call_fn, .kind = MPISCOPE__COLL_REDUCE, .send = MPISCOPE__SHAPE_ONE, .recv = MPISCOPE__SHAPE_ONE,          \
    .source = which, .in_place = MPISCOPE__IN_PLACE_SEND
#define SCAN_CLASS(call_fn, which) {SCAN_SHAPE(call_fn, which)}
static const mpiscope__coll_class_t scan_class = SCAN_CLASS(scan_call, MPISCOPE__REDUCE_INCLUSIVE);
static const mpiscope__coll_class_t exscan_class = SCAN_CLASS(exscan_call, MPISCOPE__REDUCE_EXCLUSIVE);

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(scan, scan_class, FLAGS, mpiscope__opts_reduce, mpiscope__opts_reduce_nb, "Scan", "Iscan",
                   "rank i receives the reduction of the vectors of ranks 0..i", "bytes of the reduced vector")
MPISCOPE__COLL_OPS(exscan, exscan_class, FLAGS, mpiscope__opts_reduce, mpiscope__opts_reduce_nb, "Exscan", "Iexscan",
                   "rank i > 0 receives the reduction of the vectors of ranks 0..i-1", "bytes of the reduced vector")

/* The large-count forms (MPI-4 _c): blocking only, MPI_Count counts and
 * MPI_Aint displacements. */
static int scan_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Scan_c(a->send, a->recv, a->ccount, a->type, a->op, a->comm));
}

static int exscan_c_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    (void)form, (void)request;
    return MPISCOPE__LARGE(MPI_Exscan_c(a->send, a->recv, a->ccount, a->type, a->op, a->comm));
}

static const mpiscope__coll_class_t scan_c_class = {SCAN_SHAPE(scan_c_call, MPISCOPE__REDUCE_INCLUSIVE), .large = 1};
static const mpiscope__coll_class_t exscan_c_class = {SCAN_SHAPE(exscan_c_call, MPISCOPE__REDUCE_EXCLUSIVE),
                                                      .large = 1};
MPISCOPE__COLL_LARGE_OP(scan_c, scan_c_class, FLAGS, mpiscope__opts_reduce, "Scan_c",
                        "rank i receives the reduction of the vectors of ranks 0..i", "bytes of the reduced vector")
MPISCOPE__COLL_LARGE_OP(exscan_c, exscan_c_class, FLAGS, mpiscope__opts_reduce, "Exscan_c",
                        "rank i > 0 receives the reduction of the vectors of ranks 0..i-1",
                        "bytes of the reduced vector")
