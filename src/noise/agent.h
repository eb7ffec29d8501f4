/* agent.h (internal): switching the agent's process group off and on
 * (SIGSTOP / SIGCONT) for the alternating design, and making sure it is
 * resumed whenever this process ends: normal exit, error exit, SIGTERM,
 * SIGINT, SIGHUP, SIGQUIT and crashes through handlers, and any death,
 * SIGKILL included, through a watchdog process. No MPI. One agent per process. */
#ifndef MPISCOPE_NOISE_AGENT_H
#define MPISCOPE_NOISE_AGENT_H

#include <stddef.h>
#include <sys/types.h>

/* Check the group (at least 2, not our own group, exists and may be
 * signaled), start the watchdog (a forked process of its own session that
 * sends SIGCONT to the group when this process is gone), install the
 * handlers and an atexit hook. Returns 0 or MPISCOPE_EINVAL with one line
 * in err (also when an agent is already attached). */
int mpiscope__agent_attach(long pgid, char *err, size_t errlen);

/* SIGCONT (on = 1) or SIGSTOP (on = 0) to the whole group. Returns 0 or
 * MPISCOPE_EINVAL when the group is gone or nothing is attached. */
int mpiscope__agent_set(int on);

/* SIGCONT to the group if attached (async-signal-safe; idempotent). */
void mpiscope__agent_release(void);

#endif
