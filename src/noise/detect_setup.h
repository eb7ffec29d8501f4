/* detect_setup.h (internal): what `detect` decides before its packets:
 * the binding, the STREAM array size from the LLC, the noise-setup line. */
#ifndef MPISCOPE_NOISE_DETECT_SETUP_H
#define MPISCOPE_NOISE_DETECT_SETUP_H

#include <mpi.h>
#include "detect_options.h"
#include "detectors.h"

typedef struct mpiscope__stream_size {
    long long elements;  /* per rank, each of a, b, c (max over nodes) */
    long long llc_bytes; /* one LLC instance of rank 0's node (the largest) */
    int llc_instances;   /* distinct LLC instances its ranks may use */
    int from_sysfs;      /* 0 when any node fell back to 32 MiB */
} mpiscope__stream_size_t;

/* Collective: the LLC instances reachable by each node's ranks (their
 * allowed CPUs, read after pinning), summed per node; elements so that one
 * array over the node's ranks is >= 4x that sum (or forced_elements, when
 * not 0: --stream-elements, --triad-elements). */
void mpiscope__stream_size(long long forced_elements, MPI_Comm world, MPI_Comm node, mpiscope__stream_size_t *s);

/* Rank 0: print the `@mpiscope noise-setup` line. cal is NULL when
 * --iterations skipped the calibration; s is used for stream-ring only;
 * group_read_ns: the measured cost of one group boundary (a timer read). */
void mpiscope__print_setup(const mpiscope__detect_options_t *o, int nprocs, long long iterations_per_packet,
                           const mpiscope__calibration_t *cal, const mpiscope__stream_size_t *s, const char *timer,
                           double group_read_ns);

#endif
