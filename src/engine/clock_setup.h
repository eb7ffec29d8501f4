/* clock_setup.h (internal): the clocks every rank reads before they are
 * synchronized: one counter per node (frequency and origin of the node
 * leader) and an injected transform when the plan or the environment asks. */
#ifndef MPISCOPE_CLOCK_SETUP_H
#define MPISCOPE_CLOCK_SETUP_H

#include <stddef.h>
#include <mpi.h>
#include "mpiscope/sync.h"

/* Collective over comm, after mpiscope_timer_init on every rank. The
 * transform spec is p->clock_transform, else the environment variable
 * MPISCOPE_CLOCK_TRANSFORM. Returns the same code on every rank: 0, or
 * MPISCOPE_EINVAL for a bad spec (why: one line). */
int mpiscope__clock_setup(MPI_Comm comm, const mpiscope_sync_params_t *p, char *why, size_t why_len);

/* The spec in effect (p's or the environment's, "" for none). */
const char *mpiscope__clock_transform_spec(const mpiscope_sync_params_t *p);

#endif
