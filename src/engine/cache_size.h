/* cache_size.h (internal): the last-level cache of a CPU, from the
 * kernel's topology. The one reader: the engine sizes its cold buffer
 * pool by it and writes it in results; the noise detector (which compiles
 * cache_size.c into its own core) sizes its STREAM arrays by it. */
#ifndef MPISCOPE_ENGINE_CACHE_SIZE_H
#define MPISCOPE_ENGINE_CACHE_SIZE_H

#include <stddef.h>

#define MPISCOPE__LLC_SYSFS "/sys/devices/system/cpu"

typedef struct mpiscope__llc {
    long long bytes; /* size of this cache instance */
    int level;       /* highest data/unified level found (e.g. 3) */
    int instance;    /* first CPU of its shared_cpu_list (names the instance); -1 if unreadable */
} mpiscope__llc_t;

/* The last-level cache of `cpu` under `root` (normally MPISCOPE__LLC_SYSFS):
 * the highest-level data or unified cache in <root>/cpu<N>/cache/index<I>/
 * (the larger one when two share that level; the first missing index ends
 * the list). Returns 0 or MPISCOPE_EIO (none can be read). */
int mpiscope__llc_of_cpu(const char *root, int cpu, mpiscope__llc_t *llc);

/* The last-level cache of the CPU this process runs on: the kernel's
 * topology first, then sysconf; 0 if unknown. */
size_t mpiscope__llc_bytes(void);

#endif
