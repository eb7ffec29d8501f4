/* exchange.h (internal to src/alltoall): the base exchanges that the
 * algorithms and the leaders' inter-node phase share. Equal blocks of
 * `block` bytes over `comm` (block j of send to rank j, block i of recv
 * from rank i); buffers are given, nothing is allocated per call. */
#ifndef MPISCOPE_A2A_EXCHANGE_H
#define MPISCOPE_A2A_EXCHANGE_H

#include <limits.h>
#include <string.h>
#include "a2a.h"

enum { MPISCOPE__A2A_TAG = 2013 }; /* on our own communicators only */

/* Bruck's scratch: the rotated blocks and one step's packed message each way. */
typedef struct mpiscope__a2a_bruck_buf {
    unsigned char *rotated, *pack, *unpack;
} mpiscope__a2a_bruck_buf_t;

/* Allocate the scratch for nprocs ranks (MPISCOPE_ENOMEM, MPISCOPE_ERANGE
 * when a step's message exceeds MPI's int count). Not collective. */
int mpiscope__a2a_bruck_alloc(int nprocs, size_t block, mpiscope__a2a_bruck_buf_t *buf);
void mpiscope__a2a_bruck_release(mpiscope__a2a_bruck_buf_t *buf);

/* Radix-2 Bruck for any nprocs: rotate, ceil(log2 nprocs) Sendrecv steps
 * (step k moves the blocks whose index has bit k set to rank + 2^k),
 * inverse rotation. Collective over comm. 0 or MPISCOPE_EMPI. */
int mpiscope__a2a_bruck_exchange(MPI_Comm comm, int rank, int nprocs, size_t block, const void *send, void *recv,
                                 const mpiscope__a2a_bruck_buf_t *buf);

/* The virtual ring: step k sends to rank + k and receives from rank - k.
 * Collective over comm. 0 or MPISCOPE_EMPI. */
int mpiscope__a2a_pairwise_exchange(MPI_Comm comm, int rank, int nprocs, size_t block, const void *send, void *recv);

/* memcpy that accepts n == 0 with NULL pointers (0-byte blocks). */
static inline void mpiscope__a2a_copy(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

/* 1 if count * block bytes fit MPI's int count. */
static inline int mpiscope__a2a_fits_int(size_t count, size_t block)
{
    return block == 0 || count <= (size_t)INT_MAX / block;
}

static inline int mpiscope__a2a_mpi(int mpi_rc)
{
    return mpi_rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

#endif
