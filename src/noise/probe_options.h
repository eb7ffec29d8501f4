/* probe_options.h (internal): the options of `mpiscope-noise probe`. No MPI. */
#ifndef MPISCOPE_NOISE_PROBE_OPTIONS_H
#define MPISCOPE_NOISE_PROBE_OPTIONS_H

#include <stddef.h>
#include "cli.h"

typedef enum mpiscope__probe_kind {
    MPISCOPE__PROBE_FWQ,
    MPISCOPE__PROBE_FTQ,
    MPISCOPE__PROBE_SELFISH,
    MPISCOPE__PROBE_TRIAD, /* STREAM triad passes: the core's memory bandwidth */
    MPISCOPE__PROBE_KINDS
} mpiscope__probe_kind_t;

typedef struct mpiscope__probe_options {
    double seconds; /* per kind */
    const char *out_dir;
    int kinds[MPISCOPE__PROBE_KINDS]; /* in the order given */
    int nkinds;
    mpiscope__cpu_list_t pin_cores; /* MPI: local rank r pins to pin_cores[r] */
    mpiscope__cpu_list_t threads;   /* alone: one pinned thread per listed core */
    double fwq_work_ns;
    double ftq_quantum_ns;
    double selfish_threshold_ns; /* 0: max(1000, 10 x the loop's median step) */
    long long triad_elements;    /* per worker and array; 0: 4x the node's LLC over its workers */
} mpiscope__probe_options_t;

/* "fwq", "ftq", "selfish", "triad". */
const char *mpiscope__probe_kind_name(int kind);

/* Whether kind k is selected. */
int mpiscope__probe_has_kind(const mpiscope__probe_options_t *o, int kind);

/* Parse argv[first..argc). Returns 0, 1 for --help, or MPISCOPE_EINVAL
 * with one line in err. */
int mpiscope__probe_options_parse(int argc, char **argv, int first, mpiscope__probe_options_t *o, char *err,
                                  size_t errlen);

/* Records to allocate for one worker: enough for the largest selected kind
 * (FWQ units may run at half their target length; selfish keeps up to
 * 100000 detours a second, triad as many passes), at most 2^24. */
size_t mpiscope__probe_capacity(const mpiscope__probe_options_t *o);

extern const char mpiscope__probe_usage[];

#endif
