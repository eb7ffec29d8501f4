/* barrier.c: MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init. No data: the
 * validate hook checks that no message is left pending. */
#include "coll.h"

static int barrier_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    switch (form) {
    case MPISCOPE__COLL_BLOCKING:
        return MPI_Barrier(a->comm);
    case MPISCOPE__COLL_NONBLOCKING:
        return MPI_Ibarrier(a->comm, request);
    default:
        return MPISCOPE__PERSISTENT(MPI_Barrier_init(a->comm, MPI_INFO_NULL, request));
    }
}

static const mpiscope__coll_class_t barrier_class = {
    .call = barrier_call,
    .kind = MPISCOPE__COLL_SYNC,
    .source = MPISCOPE__FROM_NOBODY,
};

MPISCOPE__COLL_OPS(barrier, barrier_class, MPISCOPE_OP_SYNCHRONIZING, mpiscope__opts_sync, mpiscope__opts_sync_nb,
                   "Barrier", "Ibarrier", "no rank leaves before all have entered", "not used")
