/* startup_internal.h (internal): the pairing of mpiscope_startup_run(). */
#ifndef MPISCOPE_STARTUP_INTERNAL_H
#define MPISCOPE_STARTUP_INTERNAL_H

/* The partner of `rank` in round r (0..m-2) of the circle method over m
 * (even) places: every pair of places meets exactly once in m-1 rounds,
 * each place once per round. */
int mpiscope__circle_partner(int rank, int r, int m);

#endif
