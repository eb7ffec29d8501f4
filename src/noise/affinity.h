/* affinity.h (internal): pinning the calling thread to one CPU and reading
 * back what the kernel really granted. No MPI. */
#ifndef MPISCOPE_NOISE_AFFINITY_H
#define MPISCOPE_NOISE_AFFINITY_H

#include "cli.h"

/* Pin the calling thread (sched_setaffinity(0, ...)) to `cpu`.
 * Returns 0 or MPISCOPE_EINVAL (CPU offline, outside the cpuset, too large). */
int mpiscope__pin_self(int cpu);

/* The calling thread's allowed CPUs (sched_getaffinity). Returns 0 or MPISCOPE_EIO. */
int mpiscope__cpus_allowed(mpiscope__cpu_list_t *list);

/* The CPU the calling thread runs on now (sched_getcpu), -1 if unknown. */
int mpiscope__current_cpu(void);

#endif
