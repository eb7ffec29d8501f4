/* trace_faults.c: a 2-rank program that ends badly on purpose, for the
 * tracer's fault tests (tests/python/test_trace_faults.py).
 *
 *   trace_faults --fault F [--calls N] [--messages M] [--fsize BYTES]
 *
 * Both ranks exchange M messages (rank 0 sends, rank 1 receives), then make
 * N calls of MPI_Comm_rank each. Then rank 1 ends by F:
 *   none       MPI_Finalize, as a correct program
 *   kill       SIGKILL to itself (nothing can be caught)
 *   abort      abort() (SIGABRT)
 *   segv       a write through a null pointer (SIGSEGV)
 *   mpi_abort  MPI_Abort(MPI_COMM_WORLD, 3)
 *   exit       exit(0) without MPI_Finalize
 *   status     MPI_Finalize, then exit status 3 (a test program that failed)
 * and rank 0 prints "rank 0 done N" on stdout (flushed) and calls
 * MPI_Finalize. With --fsize, both ranks limit the size of the files they
 * write (RLIMIT_FSIZE, SIGXFSZ ignored) after MPI_Init: the trace file is
 * cut as on a full disk. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *fault = "none";
    long calls = 1000, messages = 3, fsize = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--fault"))
            fault = argv[i + 1];
        else if (!strcmp(argv[i], "--calls"))
            calls = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--messages"))
            messages = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--fsize"))
            fsize = atol(argv[i + 1]);
        else {
            fprintf(stderr, "trace_faults: error: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    if (fsize > 0) { /* after MPI_Init: the MPI library writes files of its own there */
        struct rlimit lim = {(rlim_t)fsize, (rlim_t)fsize};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) {
            perror("trace_faults: error: setrlimit");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rank = 0, value = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long m = 0; m < messages; m++) {
        if (rank == 0)
            MPI_Send(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int r = 0;
    for (long c = 0; c < calls; c++)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    fflush(stdout);
    if (rank == 1) {
        if (!strcmp(fault, "kill"))
            raise(SIGKILL);
        if (!strcmp(fault, "abort"))
            abort();
        if (!strcmp(fault, "segv")) {
            volatile int *null = NULL;
            *null = 1;
        }
        if (!strcmp(fault, "mpi_abort"))
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (!strcmp(fault, "exit"))
            exit(0);
    } else {
        printf("rank 0 done %ld\n", calls);
        fflush(stdout);
    }
    MPI_Finalize();
    return rank == 1 && !strcmp(fault, "status") ? 3 : 0;
}
