/* gather.c: gathering on rank 0 (gather.h). */
#include "gather.h"

#include <string.h>

enum { GATHER_TAG = 7141 }; /* on the engine's own communicators */

int mpiscope__gather(const void *send, int count, MPI_Datatype type, void *recv, MPI_Comm comm)
{
#ifdef MPISCOPE_SMPI
    return mpiscope__gather_linear(send, count, type, recv, comm);
#else
    return MPI_Gather(send, count, type, recv, count, type, 0, comm);
#endif
}

int mpiscope__gather_linear(const void *send, int count, MPI_Datatype type, void *recv, MPI_Comm comm)
{
    int rank, n, err = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    if (rank != 0)
        return MPI_Send(send, count, type, 0, GATHER_TAG, comm);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    size_t block = (size_t)count * (size_t)extent;
    memcpy(recv, send, block);
    for (int r = 1; r < n; r++) {
        int rc = MPI_Recv((char *)recv + (size_t)r * block, count, type, r, GATHER_TAG, comm, MPI_STATUS_IGNORE);
        err = err ? err : rc;
    }
    return err;
}

int mpiscope__allgather(const void *send, int count, MPI_Datatype type, void *recv, MPI_Comm comm)
{
#ifdef MPISCOPE_SMPI
    int n, rc = mpiscope__gather_linear(send, count, type, recv, comm);
    MPI_Comm_size(comm, &n);
    int bc = MPI_Bcast(recv, count * n, type, 0, comm);
    return rc ? rc : bc;
#else
    return MPI_Allgather(send, count, type, recv, count, type, comm);
#endif
}
