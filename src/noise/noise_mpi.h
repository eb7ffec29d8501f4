/* noise_mpi.h (internal): the few MPI pieces shared by `detect` and
 * `probe`: agreeing on errors, the node's ranks, the binding lines. */
#ifndef MPISCOPE_NOISE_MPI_H
#define MPISCOPE_NOISE_MPI_H

#include <mpi.h>

/* Exit codes of mpiscope-noise. */
#define MPISCOPE__NOISE_EXIT_FAILED 1 /* the run could not be done */
#define MPISCOPE__NOISE_EXIT_USAGE 2  /* a bad option value */

/* Collective: every rank passes its exit code (0 = fine) and a message.
 * Returns the largest code of all ranks; the lowest rank with that code
 * prints its message as one `mpiscope-noise: error: ...` line. */
int mpiscope__noise_agree(MPI_Comm comm, int code, const char *message);

/* After every rank parsed the same argv: rc 1 (--help) has rank 0 print
 * the usage (exit 0), an error has rank 0 print it (exit 2). */
int mpiscope__noise_parse_result(int rank, int rc, const char *message, const char *usage);

/* The ranks sharing this node (MPI_COMM_TYPE_SHARED); free with MPI_Comm_free. */
MPI_Comm mpiscope__noise_node_comm(MPI_Comm comm);

/* Rank 0 prints `@mpiscope noise-binding {...}` for every rank, in rank
 * order (collective). Returns 0 or an exit code (already reported). */
int mpiscope__noise_print_bindings(MPI_Comm comm, const char *host);

/* Print `@mpiscope <kind> <json>` and flush (stdout is a pipe). */
void mpiscope__noise_emit(const char *kind, const char *json);

#endif
