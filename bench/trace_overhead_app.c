/* trace_overhead_app: the MPI loops bench/trace_overhead.py times with and
 * without the tracer. Rank 0 prints ns per iteration of the best repeat.
 *   --mode calls     MPI_Comm_rank --n times (one call per iteration)
 *   --mode pingpong  8-byte MPI_Send/MPI_Recv round trips between ranks 0
 *                    and 1 (four calls on the critical path per iteration) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double calls(long n)
{
    int rank = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return (now_ns() - t0) / (double)n;
}

static double pingpong(long n, int rank)
{
    double msg = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (now_ns() - t0) / (double)n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = "calls";
    long n = 1000000, repeats = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mode") == 0)
            mode = argv[i + 1];
        else if (strcmp(argv[i], "--n") == 0)
            n = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--repeats") == 0)
            repeats = atol(argv[i + 1]);
    }
    double best = 1e300;
    for (long r = 0; r < repeats; r++) {
        double t = strcmp(mode, "pingpong") == 0 ? pingpong(n, rank) : calls(n);
        if (t < best)
            best = t;
    }
    if (rank == 0)
        printf("%.3f\n", best);
    MPI_Finalize();
    return 0;
}
