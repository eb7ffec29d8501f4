/* trace_isendrecv.c: three messages between 2 ranks, the first two by
 * MPI_Isendrecv, for the tracer's message pairing (issue 15, defect 1:
 * MPICH leaves the status of an MPI_Isendrecv unfilled, and a tracer that
 * trusted it paired the later messages wrongly).
 *   rank 0: Isendrecv(send 1 to rank 1, receive from rank 1), Wait; Send 3
 *   rank 1: Isendrecv(send 2 to rank 0, receive from rank 0), Wait; Recv
 * All on MPI_COMM_WORLD with tag 0. Prints what each rank received. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "trace_isendrecv: error: run on 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int peer = 1 - rank, out = rank + 1, in = 0, last = 3;
    MPI_Request req;
    MPI_Isendrecv(&out, 1, MPI_INT, peer, 0, &in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        MPI_Send(&last, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&last, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d received %d and %d\n", rank, in, last);
    MPI_Finalize();
    return 0;
}
