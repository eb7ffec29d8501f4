/* inject_options.h (internal): the options of mpiscope-inject. No MPI. */
#ifndef MPISCOPE_NOISE_INJECT_OPTIONS_H
#define MPISCOPE_NOISE_INJECT_OPTIONS_H

#include <stddef.h>

typedef struct mpiscope__inject_options {
    double hz;       /* bursts per second */
    double burst_ns; /* CPU time per burst, shorter than the period */
    long long core;  /* -1: not pinned */
    double jitter;   /* [0, 1) */
    double seconds;  /* 0: until SIGTERM / SIGINT */
    long long seed;
} mpiscope__inject_options_t;

/* Parse argv[1..argc). Returns 0, 1 for --help, or MPISCOPE_EINVAL with one
 * line in err. */
int mpiscope__inject_options_parse(int argc, char **argv, mpiscope__inject_options_t *o, char *err, size_t errlen);

extern const char mpiscope__inject_usage[];

#endif
