/* common.h (internal to src/ops): what every built-in op family shares.
 * The families: coll.h (collectives, nonblocking, persistent,
 * neighborhood, MPIBlib's linear ones), p2p.h (point-to-point), rma.h
 * (one-sided), waitpattern.c (ground truth); their parts: layout.h (the
 * datatype option), pattern.h and values.h (validation data), options.h,
 * pairs.h, topology.h. */
#ifndef MPISCOPE_OPS_COMMON_H
#define MPISCOPE_OPS_COMMON_H

#include <stddef.h>
#include "mpiscope/error.h"
#include "mpiscope/op.h"

/* An MPI return code as 0 or MPISCOPE_EMPI. */
static inline int mpiscope__ops_mpi(int mpi_rc)
{
    return mpi_rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

#endif
