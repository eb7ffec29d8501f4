/* check_run.h (internal): the machine check with a call after each part (a
 * timer, a synchronization, a state run), so that its document is written
 * as it goes and a check stopped half-way keeps what it measured. */
#ifndef MPISCOPE_CHECK_RUN_H
#define MPISCOPE_CHECK_RUN_H

#include "mpiscope/check.h"

/* Called on every rank after each part with the check so far; a non-zero
 * return (the same on every rank) stops the check with that error. */
typedef int (*mpiscope__check_part_fn)(const mpiscope_check_t *sofar, void *user);

/* mpiscope_check_run() calling part(sofar, user) after each part (part may
 * be NULL). On an error *out is not set: what was measured is what the
 * last call saw. */
int mpiscope__check_run_parts(MPI_Comm comm, const mpiscope_params_t *params, double drift_seconds,
                              mpiscope__check_part_fn part, void *user, mpiscope_check_t **out);

#endif
