/* bruck.c: radix-2 Bruck (the seed's algorithm for small blocks):
 * ceil(log2 p) steps of about p/2 blocks each, for any p. */
#include <stdint.h>
#include <stdlib.h>
#include "exchange.h"

int mpiscope__a2a_bruck_alloc(int nprocs, size_t block, mpiscope__a2a_bruck_buf_t *buf)
{
    size_t n = (size_t)nprocs, step_blocks = n / 2 + 1; /* at most floor(p/2) indices have bit k */

    *buf = (mpiscope__a2a_bruck_buf_t){NULL, NULL, NULL};
    if (!mpiscope__a2a_fits_int(step_blocks, block) || (block && n > SIZE_MAX / block))
        return MPISCOPE_ERANGE;
    buf->rotated = malloc(n * block + 1);
    buf->pack = malloc(step_blocks * block + 1);
    buf->unpack = malloc(step_blocks * block + 1);
    if (!buf->rotated || !buf->pack || !buf->unpack) {
        mpiscope__a2a_bruck_release(buf);
        return MPISCOPE_ENOMEM;
    }
    return 0;
}

void mpiscope__a2a_bruck_release(mpiscope__a2a_bruck_buf_t *buf)
{
    free(buf->rotated);
    free(buf->pack);
    free(buf->unpack);
    *buf = (mpiscope__a2a_bruck_buf_t){NULL, NULL, NULL};
}

/* Move the blocks whose index has bit k set between `rotated` and a packed message. */
static size_t pack_step(unsigned char *rotated, unsigned char *packed, int nprocs, int k, size_t block, int out)
{
    size_t n = 0;

    for (int j = k; j < nprocs; j++) {
        if (!(j & k))
            continue;
        if (out)
            mpiscope__a2a_copy(packed + n * block, rotated + (size_t)j * block, block);
        else
            mpiscope__a2a_copy(rotated + (size_t)j * block, packed + n * block, block);
        n++;
    }
    return n;
}

int mpiscope__a2a_bruck_exchange(MPI_Comm comm, int rank, int nprocs, size_t block, const void *send, void *recv,
                                 const mpiscope__a2a_bruck_buf_t *buf)
{
    const unsigned char *s = send;
    unsigned char *r = recv;

    /* rotated[j] is the block for rank + j; after the steps, the block from rank - j */
    for (int j = 0; j < nprocs; j++)
        mpiscope__a2a_copy(buf->rotated + (size_t)j * block, s + (size_t)((rank + j) % nprocs) * block, block);
    for (int k = 1; k < nprocs; k <<= 1) {
        size_t n = pack_step(buf->rotated, buf->pack, nprocs, k, block, 1);
        int count = (int)(n * block);
        if (MPI_Sendrecv(buf->pack, count, MPI_BYTE, (rank + k) % nprocs, MPISCOPE__A2A_TAG, buf->unpack, count,
                         MPI_BYTE, (rank - k + nprocs) % nprocs, MPISCOPE__A2A_TAG, comm, MPI_STATUS_IGNORE)
            != MPI_SUCCESS)
            return MPISCOPE_EMPI;
        pack_step(buf->rotated, buf->unpack, nprocs, k, block, 0);
    }
    for (int j = 0; j < nprocs; j++)
        mpiscope__a2a_copy(r + (size_t)((rank - j + nprocs) % nprocs) * block, buf->rotated + (size_t)j * block, block);
    return 0;
}

static int bruck_create(mpiscope_alltoall_t *a)
{
    mpiscope__a2a_bruck_buf_t *buf = malloc(sizeof *buf);
    int rc;

    if (!buf)
        return MPISCOPE_ENOMEM;
    if ((rc = mpiscope__a2a_bruck_alloc(a->nprocs, a->block, buf)) != 0) {
        free(buf);
        return rc;
    }
    a->state = buf;
    return 0;
}

static int bruck_run(mpiscope_alltoall_t *a, const void *send, void *recv)
{
    return mpiscope__a2a_bruck_exchange(a->comm, a->rank, a->nprocs, a->block, send, recv, a->state);
}

static void bruck_destroy(mpiscope_alltoall_t *a)
{
    if (a->state)
        mpiscope__a2a_bruck_release(a->state);
    free(a->state);
    a->state = NULL;
}

const mpiscope__a2a_impl_t mpiscope__a2a_bruck = {
    .info = {.name = "bruck",
             .op_name = "alltoall_bruck",
             .leader_based = 0,
             .description = "radix-2 Bruck: ceil(log2 p) steps of about p/2 blocks (small blocks)"},
    .create = bruck_create,
    .run = bruck_run,
    .destroy = bruck_destroy,
};
