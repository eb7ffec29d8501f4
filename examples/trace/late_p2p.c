/* late_p2p: blocking MPI_Send / MPI_Recv between ranks 0 and 1 with one
 * side posted late (the seed's experiments A and B):
 *
 *   late_p2p --late recv   receive posted --delay-ms late: the sender waits
 *                          (late receiver) for messages it cannot buffer
 *   late_p2p --late send   send posted --delay-ms late: the receiver waits
 *                          in MPI_Recv (late sender)
 *
 * Options: --delay-ms N (1000), --sizes B,B,... in bytes (8,1048576,4194304),
 * --trials N (3). Ranks beyond 1 only take part in the barriers. */
#include <mpi.h>
#include "example_args.h"

static void one_message(int rank, int late_recv, long delay_ms, long bytes, unsigned char *buf, unsigned long *checksum)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (!late_recv)
            example_sleep_ms(delay_ms);
        for (long i = 0; i < bytes; i++)
            buf[i] = (unsigned char)(i * 7 + bytes);
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 17, MPI_COMM_WORLD);
    } else if (rank == 1) {
        if (late_recv)
            example_sleep_ms(delay_ms);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long i = 0; i < bytes; i++)
            *checksum = *checksum * 31 + buf[i];
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *late = example_arg(argc, argv, "--late", "send");
    long delay_ms = example_long(argc, argv, "--delay-ms", 1000);
    long trials = example_long(argc, argv, "--trials", 3);
    char sizes[256];
    snprintf(sizes, sizeof sizes, "%s", example_arg(argc, argv, "--sizes", "8,1048576,4194304"));
    if (nprocs < 2 || (strcmp(late, "send") != 0 && strcmp(late, "recv") != 0)) {
        if (rank == 0)
            fprintf(stderr, "late_p2p: error: needs 2 ranks and --late send|recv\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        printf("late_p2p: late %s, delay %ld ms, sizes %s bytes, %ld trials\n", late, delay_ms, sizes, trials);
        fflush(stdout);
    }
    unsigned long checksum = 0;
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        long bytes = atol(tok);
        unsigned char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
        for (long t = 0; t < trials; t++)
            one_message(rank, late[0] == 'r', delay_ms, bytes, buf, &checksum);
        free(buf);
    }
    if (rank == 1)
        MPI_Send(&checksum, 1, MPI_UNSIGNED_LONG, 0, 18, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&checksum, 1, MPI_UNSIGNED_LONG, 1, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("late_p2p: checksum %lu\n", checksum);
    }
    MPI_Finalize();
    return 0;
}
