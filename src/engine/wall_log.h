/* wall_log.h (internal): where the host's wall time of a run goes, for
 * MPISCOPE_WALL_LOG=FILE (docs/simulation.md, "Where the wall time goes").
 * Under SimGrid SMPI every clock the engine reads is the simulated one;
 * these read the host's, so that a simulated run can say what it cost. */
#ifndef MPISCOPE_WALL_LOG_H
#define MPISCOPE_WALL_LOG_H

/* The host's monotonic clock, seconds (under SMPI too). */
double mpiscope__wall_now_s(void);

/* Seconds since this process started (the host's clock; NAN if unknown). */
double mpiscope__wall_since_process_start_s(void);

/* Append "PART SECONDS\n" to $MPISCOPE_WALL_LOG, the wall time since
 * since_s (mpiscope__wall_now_s()); nothing when the variable is unset
 * or empty. Call on one rank (rank 0): every call appends a line. */
void mpiscope__wall_log(const char *part, double since_s);

#endif
