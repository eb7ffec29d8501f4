/* linear.c: the scattered exchange: every Irecv and Isend posted at once,
 * peers in a staggered order (rank + k) so that not everyone hits rank 0
 * first, then one Waitall. */
#include <stdlib.h>
#include "exchange.h"

static int linear_create(mpiscope_alltoall_t *a)
{
    if (!mpiscope__a2a_fits_int(1, a->block))
        return MPISCOPE_ERANGE;
    a->state = malloc(2 * (size_t)a->nprocs * sizeof(MPI_Request));
    return a->state ? 0 : MPISCOPE_ENOMEM;
}

static int linear_run(mpiscope_alltoall_t *a, const void *send, void *recv)
{
    MPI_Request *requests = a->state;
    const unsigned char *s = send;
    unsigned char *r = recv;
    int p = a->nprocs, n = 0, rc = 0;
    size_t b = a->block;

    for (int k = 1; k < p; k++) {
        int from = (a->rank - k + p) % p;
        rc |= MPI_Irecv(r + (size_t)from * b, (int)b, MPI_BYTE, from, MPISCOPE__A2A_TAG, a->comm, &requests[n++]);
    }
    for (int k = 1; k < p; k++) {
        int to = (a->rank + k) % p;
        rc |= MPI_Isend(s + (size_t)to * b, (int)b, MPI_BYTE, to, MPISCOPE__A2A_TAG, a->comm, &requests[n++]);
    }
    mpiscope__a2a_copy(r + (size_t)a->rank * b, s + (size_t)a->rank * b, b);
    rc |= MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

static void linear_destroy(mpiscope_alltoall_t *a)
{
    free(a->state);
    a->state = NULL;
}

const mpiscope__a2a_impl_t mpiscope__a2a_linear = {
    .info = {.name = "linear",
             .op_name = "alltoall_linear",
             .leader_based = 0,
             .description = "scattered: all Irecv and Isend posted in staggered peer order, one Waitall"},
    .create = linear_create,
    .run = linear_run,
    .destroy = linear_destroy,
};
