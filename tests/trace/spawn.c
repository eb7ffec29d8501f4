/* spawn.c: a job that starts another with MPI_Comm_spawn (itself, with the
 * argument "child", on 2 processes); both make MPI calls before and after,
 * so each world's rank files are written while the other's are open
 * (tests/python/test_trace_spawn.py). Run on 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* Messages around a ring of the communicator, then a barrier. */
static void ring(MPI_Comm comm, int rounds)
{
    int rank, size, out, in;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < rounds; k++) {
        out = rank * 100 + k;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, k, &in, 1, MPI_INT, (rank + size - 1) % size, k, comm,
                     MPI_STATUS_IGNORE);
    }
    MPI_Barrier(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    int rank, token = 0;
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent == MPI_COMM_NULL) {
        ring(MPI_COMM_WORLD, 5);
        char *args[] = {"child", NULL};
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        if (rank == 0) /* to the children's rank 0 */
            MPI_Send(&token, 1, MPI_INT, 0, 1, inter);
        ring(MPI_COMM_WORLD, 5);
        MPI_Comm_disconnect(&inter);
        ring(MPI_COMM_WORLD, 5);
        if (rank == 0)
            printf("spawn: parent done\n");
    } else {
        if (rank == 0)
            MPI_Recv(&token, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
        ring(MPI_COMM_WORLD, 3);
        MPI_Comm_disconnect(&parent);
        if (rank == 0)
            printf("spawn: child done\n");
    }
    MPI_Finalize();
    return argc > 1 && strcmp(argv[1], "child") != 0;
}
