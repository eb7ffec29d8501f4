/* detect_options.h (internal): the options of `mpiscope-noise detect`. No MPI. */
#ifndef MPISCOPE_NOISE_DETECT_OPTIONS_H
#define MPISCOPE_NOISE_DETECT_OPTIONS_H

#include <stddef.h>
#include "cli.h"

typedef enum mpiscope__detector_kind {
    MPISCOPE__DETECT_ALLTOALL,
    MPISCOPE__DETECT_BARRIER,
    MPISCOPE__DETECT_STREAM_RING
} mpiscope__detector_kind_t;

typedef struct mpiscope__detect_options {
    int detector;
    double packet_seconds;
    long long packets;
    double calibrate_seconds;          /* default min(1, packet_seconds / 4) */
    long long iterations;              /* 0: calibrate */
    long long alltoall_bytes;          /* per peer */
    long long messages, message_bytes; /* stream-ring: the ring exchange */
    long long triads;                  /* stream-ring: triads per packet iteration */
    long long stream_elements;         /* 0: from the LLC (>= 4x rule) */
    mpiscope__cpu_list_t pin_cores;    /* local rank r pins to pin_cores[r] */
    long long block;                   /* 0: no alternating design */
    long long agent_pgid;              /* 0: no agent */
    long long groups;                  /* 0: off; else iteration groups timed per packet */
    const char *stop_file;             /* NULL: off; else stop before a block of 4k once it exists */
} mpiscope__detect_options_t;

/* The most iteration groups a packet times (the per-packet buffer's bound). */
#define MPISCOPE__NOISE_MAX_GROUPS 4096

/* "alltoall", "barrier", "stream-ring". */
const char *mpiscope__detector_name(int detector);

/* Parse argv[first..argc). Returns 0, 1 for --help, or MPISCOPE_EINVAL with
 * one line in err. Options of other detectors are accepted and ignored. */
int mpiscope__detect_options_parse(int argc, char **argv, int first, mpiscope__detect_options_t *o, char *err,
                                   size_t errlen);

extern const char mpiscope__detect_usage[];

#endif
