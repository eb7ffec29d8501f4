/* main.c: mpiscope-noise, the noise detector's MPI program (detect, probe). */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "detect_options.h"
#include "noise_main.h"
#include "noise_mpi.h"
#include "probe_options.h"

static const char usage[] =
    "usage: mpiscope-noise detect|probe [options]   (--help after a subcommand for its options)\n"
    "Normally started by `mpiscope noise`; see docs/noise-programs.md.\n";

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, code;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc >= 2 && strcmp(argv[1], "detect") == 0) {
        code = mpiscope__noise_detect_main(argc, argv);
    } else if (argc >= 2 && strcmp(argv[1], "probe") == 0) {
        code = mpiscope__noise_probe_main(argc, argv);
    } else if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        if (rank == 0)
            fputs(usage, stdout);
        code = 0;
    } else {
        if (rank == 0)
            fprintf(stderr, "mpiscope-noise: error: %s%s%s (use detect or probe)\n",
                    argc < 2 ? "no subcommand" : "unknown subcommand '", argc < 2 ? "" : argv[1], argc < 2 ? "" : "'");
        code = MPISCOPE__NOISE_EXIT_USAGE;
    }
    MPI_Finalize();
    return code;
}
