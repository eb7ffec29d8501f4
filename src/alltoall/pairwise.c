/* pairwise.c: the virtual ring (the seed's algorithm for large blocks):
 * p - 1 Sendrecv steps of one block each. */
#include "exchange.h"

int mpiscope__a2a_pairwise_exchange(MPI_Comm comm, int rank, int nprocs, size_t block, const void *send, void *recv)
{
    const unsigned char *s = send;
    unsigned char *r = recv;

    mpiscope__a2a_copy(r + (size_t)rank * block, s + (size_t)rank * block, block);
    for (int k = 1; k < nprocs; k++) {
        int to = (rank + k) % nprocs, from = (rank - k + nprocs) % nprocs;
        if (MPI_Sendrecv(s + (size_t)to * block, (int)block, MPI_BYTE, to, MPISCOPE__A2A_TAG, r + (size_t)from * block,
                         (int)block, MPI_BYTE, from, MPISCOPE__A2A_TAG, comm, MPI_STATUS_IGNORE)
            != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    return 0;
}

static int pairwise_create(mpiscope_alltoall_t *a)
{
    return mpiscope__a2a_fits_int(1, a->block) ? 0 : MPISCOPE_ERANGE;
}

static int pairwise_run(mpiscope_alltoall_t *a, const void *send, void *recv)
{
    return mpiscope__a2a_pairwise_exchange(a->comm, a->rank, a->nprocs, a->block, send, recv);
}

static void pairwise_destroy(mpiscope_alltoall_t *a)
{
    (void)a;
}

const mpiscope__a2a_impl_t mpiscope__a2a_pairwise = {
    .info = {.name = "pairwise",
             .op_name = "alltoall_pairwise",
             .leader_based = 0,
             .description = "virtual ring: p - 1 Sendrecv steps, step k to rank + k (large blocks)"},
    .create = pairwise_create,
    .run = pairwise_run,
    .destroy = pairwise_destroy,
};
