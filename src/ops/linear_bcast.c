/* linear_bcast.c: the linear broadcast of the seed's section on the
 * classic loop's bias (measurement.md 1.6): the root sends the message
 * with a blocking MPI_Send to root+1, root+2, ..., root+n-1 (mod n) in
 * turn; every other rank makes one MPI_Recv. Under Hockney's model rank
 * root+i is done after i sends: t_i = i (alpha + m beta). Back to back
 * (the IMB/OSU loop, method `barrier`) a rank's mean over k launches is
 * T_i = ((n-1)(k-1) + i)(alpha + m beta) / k instead: rank i waits in
 * every launch after the first for the root's sends of the launch before
 * to the ranks after it. Blocking form only. */
#include "coll.h"

enum { TAG_LINEAR_BCAST = 53 };

static int linear_bcast_call(const mpiscope__coll_args_t *a, mpiscope__coll_form_t form, MPI_Request *request)
{
    int rc = MPI_SUCCESS;

    (void)form;
    (void)request;
    if (a->rank != a->root)
        return MPI_Recv(a->recv, a->count, a->type, a->root, TAG_LINEAR_BCAST, a->comm, MPI_STATUS_IGNORE);
    for (int i = 1; rc == MPI_SUCCESS && i < a->nprocs; i++)
        rc = MPI_Send(a->recv, a->count, a->type, (a->root + i) % a->nprocs, TAG_LINEAR_BCAST, a->comm);
    return rc;
}

/* Its one buffer is the receive buffer on every rank, as MPI_Bcast's:
 * the root sends from it. */
static const mpiscope__coll_class_t linear_bcast_class = {
    .call = linear_bcast_call,
    .kind = MPISCOPE__COLL_MOVE,
    .send = MPISCOPE__SHAPE_ROOT_ONE,
    .recv = MPISCOPE__SHAPE_ONE,
    .source = MPISCOPE__FROM_ROOT_BLOCK_0,
    .in_place = MPISCOPE__IN_PLACE_BCAST,
};

#define FLAGS (MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_USES_ROOT | MPISCOPE_OP_BROADCAST | MPISCOPE_OP_BANDWIDTH)
MPISCOPE__COLL_OP(linear_bcast, linear_bcast_class, MPISCOPE__COLL_BLOCKING, mpiscope__coll_execute, FLAGS,
                  mpiscope__opts_root_move,
                  "linear broadcast: the root MPI_Sends the message to root+1, "
                  "..., root+n-1 in turn, the others MPI_Recv; rank root+i is done after i sends, and the "
                  "IMB/OSU loop (method barrier, k launches) reads it ((n-1)(k-1)+i)/(ik) times too long",
                  "bytes broadcast by the root")
