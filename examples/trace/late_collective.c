/* late_collective: MPI_Barrier, MPI_Bcast or MPI_Reduce called by all ranks
 * at the same moment, or with rank 0 --late-ms late (the seed's C and D).
 * The operation's true cost is the finish of the last rank; the early
 * ranks wait for the late one (mpiscope trace summary shows both).
 *
 * Options: --op barrier|bcast|reduce (barrier), --late-ms N (0: all on
 * time), --loops N (11, as in the seed), --size BYTES (1048576). */
#include <mpi.h>
#include "example_args.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *op = example_arg(argc, argv, "--op", "barrier");
    long late_ms = example_long(argc, argv, "--late-ms", 0);
    long loops = example_long(argc, argv, "--loops", 11);
    long size = example_long(argc, argv, "--size", 1048576);
    if (strcmp(op, "barrier") != 0 && strcmp(op, "bcast") != 0 && strcmp(op, "reduce") != 0) {
        if (rank == 0)
            fprintf(stderr, "late_collective: error: --op barrier|bcast|reduce\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = size / (long)sizeof(double);
    double *in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    double *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    double sum = 0;
    if (rank == 0) {
        printf("late_collective: %s, %d ranks, rank 0 late by %ld ms, %ld loops, %ld bytes\n", op, nprocs, late_ms,
               loops, size);
        fflush(stdout);
    }
    for (long loop = 0; loop < loops; loop++) {
        for (long i = 0; i < n; i++)
            in[i] = (double)(rank + 1) * (double)(i % 101 + loop);
        MPI_Barrier(MPI_COMM_WORLD); /* all start together ... */
        if (rank == 0 && late_ms > 0)
            example_sleep_ms(late_ms); /* ... but rank 0 */
        if (op[0] == 'b' && op[1] == 'a') {
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (op[0] == 'b') {
            MPI_Bcast(in, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            sum += n > 0 ? in[n - 1] : 0;
        } else {
            MPI_Reduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0)
                sum += n > 0 ? out[n - 1] : 0;
        }
    }
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("late_collective: checksum %.6e\n", total);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
