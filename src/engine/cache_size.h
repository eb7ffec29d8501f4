/* cache_size.h (internal): the last-level cache a rank's CPU shares, for
 * the cold buffer pool and the result's environment. */
#ifndef MPISCOPE_ENGINE_CACHE_SIZE_H
#define MPISCOPE_ENGINE_CACHE_SIZE_H

#include <stddef.h>

/* Bytes of the highest-level data or unified cache of `cpu` under `root`
 * (a sysfs CPU tree: <root>/cpu<N>/cache/index<I>/{type,level,size}); the
 * larger one when two share the highest level. 0 if none can be read. */
size_t mpiscope__llc_bytes_in(const char *root, int cpu);

/* The last-level cache of the CPU this process runs on: the kernel's
 * topology first (/sys/devices/system/cpu), then sysconf; 0 if unknown. */
size_t mpiscope__llc_bytes(void);

#endif
