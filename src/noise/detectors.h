/* detectors.h (internal): the three synchronizing loops of `detect` and
 * the calibration of iterations per packet. */
#ifndef MPISCOPE_NOISE_DETECTORS_H
#define MPISCOPE_NOISE_DETECTORS_H

#include <mpi.h>
#include "detect_options.h"

typedef struct mpiscope__detector {
    int kind;
    MPI_Comm comm;
    int rank, size;
    char *send, *recv; /* alltoall: bytes per peer x size */
    long long bytes;
    double *a, *b, *c; /* stream-ring: the triad's arrays */
    long long elements, triads;
    char *msend, *mrecv; /* stream-ring: the ring's messages */
    long long messages, message_bytes;
    MPI_Request *requests;
} mpiscope__detector_t;

typedef struct mpiscope__calibration {
    long long iterations; /* timed (after one warm-up iteration) */
    double seconds;       /* their time, max over ranks */
    double per_iteration_ns;
} mpiscope__calibration_t;

/* Allocate and fill the buffers (stream arrays: `elements` each, first
 * touched here, by the pinned rank). Returns 0 or MPISCOPE_ENOMEM. */
int mpiscope__detector_init(mpiscope__detector_t *d, const mpiscope__detect_options_t *o, MPI_Comm comm,
                            long long elements);

/* Run `iterations` iterations (collective). */
void mpiscope__detector_iterate(mpiscope__detector_t *d, long long iterations);

/* Collective: one warm-up iteration, then batches of 1, 2, 4... until
 * `seconds` have passed (max over ranks); iterations per packet =
 * max(1, round(packet_seconds / per-iteration time)), the same on all ranks. */
long long mpiscope__detector_calibrate(mpiscope__detector_t *d, double seconds, double packet_seconds,
                                       mpiscope__calibration_t *cal);

void mpiscope__detector_free(mpiscope__detector_t *d);

#endif
