/* llc.h (internal): a node's last-level caches, for sizing the STREAM
 * arrays of the stream-ring detector. Each CPU's comes from the engine's
 * reader (src/engine/cache_size.c). No MPI: the tests read a synthetic
 * tree. */
#ifndef MPISCOPE_NOISE_LLC_H
#define MPISCOPE_NOISE_LLC_H

#include "../engine/cache_size.h" /* mpiscope__llc_of_cpu: compiled into the noise core */
#include "cli.h"

#define MPISCOPE__LLC_DEFAULT_BYTES (32LL << 20) /* when sysfs cannot be read */

/* For every CPU in `cpus`, mark its LLC: sizes[instance] = bytes, where
 * sizes has MPISCOPE__NOISE_MAX_CPUS entries set to 0 by the caller (so a
 * node's ranks can merge theirs with a MAX reduction). Returns 0 or
 * MPISCOPE_EIO when any CPU's cache cannot be read. */
int mpiscope__llc_mark(const char *root, const mpiscope__cpu_list_t *cpus, long long *sizes);

/* Sum, count and largest of the marked instances. */
void mpiscope__llc_total(const long long *sizes, long long *total_bytes, int *instances, long long *largest_bytes);

/* Elements of each of the three arrays on one rank, so that one array over
 * the node's ranks holds at least 4x the node's LLC bytes: ceil(4 * total /
 * (8 * ranks)), at least 1. */
long long mpiscope__stream_elements(long long node_llc_bytes, int ranks_on_node);

#endif
