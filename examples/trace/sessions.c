/* sessions: an MPI program of the Sessions model (MPI 4): it never calls
 * MPI_Init, yet mpiscope trace records it (the tracer starts in the first
 * MPI_Session_init and ends in the last MPI_Session_finalize). Rank 0
 * sends a token to rank 1; all ranks sum it. */
#include <mpi.h>
#include <stdio.h>
int main(void)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "example.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    int rank, size, token = 0;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    if (rank == 0) {
        token = 42;
        MPI_Send(&token, 1, MPI_INT, 1, 3, c);
    } else if (rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 3, c, MPI_STATUS_IGNORE);
    }
    int sum = 0;
    MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, c);
    if (rank == 0)
        printf("sessions: %d ranks, sum %d\n", size, sum);
    MPI_Group_free(&g);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    return 0;
}
