/* scan.c: MPI_Scan (inclusive prefix reduction) and MPI_Exscan (exclusive;
 * nothing is defined on rank 0) in their three forms. */
#include "coll.h"

static int scan_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING: return MPI_Scan(a->send, a->recv, a->count, a->type, a->op, a->comm);
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
    case MPISCOPE__COLL_BLOCKING: return MPI_Exscan(a->send, a->recv, a->count, a->type, a->op, a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Iexscan(a->send, a->recv, a->count, a->type, a->op, a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(
            MPI_Exscan_init(a->send, a->recv, a->count, a->type, a->op, a->comm, MPI_INFO_NULL, request));
    }
}

#define SCAN_CLASS(call_fn, which)                                                                     \
    {.call = call_fn, .kind = MPISCOPE__COLL_REDUCE, .send = MPISCOPE__SHAPE_ONE,                     \
     .recv = MPISCOPE__SHAPE_ONE, .source = which, .in_place = MPISCOPE__IN_PLACE_SEND}
static const mpiscope__coll_class_t scan_class = SCAN_CLASS(scan_call, MPISCOPE__REDUCE_INCLUSIVE);
static const mpiscope__coll_class_t exscan_class = SCAN_CLASS(exscan_call, MPISCOPE__REDUCE_EXCLUSIVE);

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_REDUCTION | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OPS(scan, scan_class, FLAGS, mpiscope__opts_reduce, mpiscope__opts_reduce_nb, "Scan", "Iscan",
                   "rank i receives the reduction of the vectors of ranks 0..i", "bytes of the reduced vector")
MPISCOPE__COLL_OPS(exscan, exscan_class, FLAGS, mpiscope__opts_reduce, mpiscope__opts_reduce_nb, "Exscan",
                   "Iexscan", "rank i > 0 receives the reduction of the vectors of ranks 0..i-1",
                   "bytes of the reduced vector")
