/* linear.c: MPIBlib's linear scatter and gather, written with
 * point-to-point calls: the root posts one nonblocking send (receive) per
 * rank, itself included, and waits for all; every other rank makes one
 * blocking call. Blocking form only. */
#include "coll.h"

enum { TAG_LINEAR = 51 };

static unsigned char *block(const void *buf, const mpiscope__coll_args_t *a, int i)
{
    return (unsigned char *)buf + (size_t)i * a->span_bytes;
}

static int linear_scatter_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    int rc, n = 0;

    (void)form;
    (void)request;
    if (a->rank != a->root)
        return MPI_Recv(a->recv, a->count, a->type, a->root, TAG_LINEAR, a->comm, MPI_STATUS_IGNORE);
    rc = MPI_Irecv(a->recv, a->count, a->type, a->rank, TAG_LINEAR, a->comm, &a->requests[n++]);
    for (int i = 0; rc == MPI_SUCCESS && i < a->nprocs; i++)
        rc = MPI_Isend(block(a->send, a, i), a->count, a->type, i, TAG_LINEAR, a->comm, &a->requests[n++]);
    return rc == MPI_SUCCESS ? MPI_Waitall(n, a->requests, MPI_STATUSES_IGNORE) : rc;
}

static int linear_gather_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    int rc = MPI_SUCCESS, n = 0;

    (void)form;
    (void)request;
    if (a->rank != a->root)
        return MPI_Send(a->send, a->count, a->type, a->root, TAG_LINEAR, a->comm);
    for (int i = 0; rc == MPI_SUCCESS && i < a->nprocs; i++)
        rc = MPI_Irecv(block(a->recv, a, i), a->count, a->type, i, TAG_LINEAR, a->comm, &a->requests[n++]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(a->send, a->count, a->type, a->root, TAG_LINEAR, a->comm, &a->requests[n++]);
    return rc == MPI_SUCCESS ? MPI_Waitall(n, a->requests, MPI_STATUSES_IGNORE) : rc;
}

static const mpiscope__coll_class_t linear_scatter_class = {
    .call = linear_scatter_call,
    .kind = MPISCOPE__COLL_MOVE,
    .send = MPISCOPE__SHAPE_ROOT_ALL,
    .recv = MPISCOPE__SHAPE_ONE,
    .source = MPISCOPE__FROM_ROOT_BLOCK_RANK,
    .linear = 1,
};
static const mpiscope__coll_class_t linear_gather_class = {
    .call = linear_gather_call,
    .kind = MPISCOPE__COLL_MOVE,
    .send = MPISCOPE__SHAPE_ONE,
    .recv = MPISCOPE__SHAPE_ROOT_ALL,
    .source = MPISCOPE__FROM_J_BLOCK_0,
    .linear = 1,
};

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT)
MPISCOPE__COLL_OP(linear_scatter, linear_scatter_class, MPISCOPE__COLL_BLOCKING, mpiscope__coll_execute, FLAGS,
                  mpiscope__opts_root_move,
                  "MPIBlib linear scatter: the root sends each rank its block with "
                  "MPI_Isend, the others MPI_Recv",
                  "bytes the root sends to each rank")
MPISCOPE__COLL_OP(linear_gather, linear_gather_class, MPISCOPE__COLL_BLOCKING, mpiscope__coll_execute, FLAGS,
                  mpiscope__opts_root_move,
                  "MPIBlib linear gather: the root receives each rank's block with "
                  "MPI_Irecv, the others MPI_Send",
                  "bytes each rank sends to the root")
