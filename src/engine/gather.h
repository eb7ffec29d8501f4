/* gather.h (internal): gathering on rank 0 what the engine keeps of every
 * rank (a stage's times, a sync's per-rank model), outside timed regions. */
#ifndef MPISCOPE_GATHER_H
#define MPISCOPE_GATHER_H

#include <mpi.h>

/* MPI_Gather of `count` elements of `type` from every rank of comm into
 * rank 0's recv (rank order; recv unused elsewhere). Collective; returns
 * an MPI error code. Under SimGrid SMPI it is mpiscope__gather_linear():
 * SMPI's own MPI_Gather waits on its p requests one waitany at a time,
 * O(p^2) simulator work (3.5 s of wall time a gather at 1,024 ranks). */
int mpiscope__gather(const void *send, int count, MPI_Datatype type, void *recv, MPI_Comm comm);

/* The same by point-to-point messages: every rank sends its block to rank
 * 0, which receives them in rank order (0.09 s at 1,024 ranks under SMPI,
 * and 5 ms of simulated time: one latency per rank, outside any timed
 * region). Any MPI; contiguous types. */
int mpiscope__gather_linear(const void *send, int count, MPI_Datatype type, void *recv, MPI_Comm comm);

/* MPI_Allgather of `count` elements of `type` from every rank of comm into
 * every rank's recv (rank order). Collective; returns an MPI error code.
 * Under SimGrid SMPI it is mpiscope__gather_linear() then an MPI_Bcast of
 * the whole: SMPI's own MPI_Allgather posts p-1 sends and p-1 receives on
 * each rank and waits on them one waitany at a time, and the simulator's
 * work grows far faster than p^2 (one Allgather of an int over 160 ranks
 * of cluster-30x8 took minutes of wall time, at 64 ranks about a second).
 * Contiguous types. */
int mpiscope__allgather(const void *send, int count, MPI_Datatype type, void *recv, MPI_Comm comm);

#endif
