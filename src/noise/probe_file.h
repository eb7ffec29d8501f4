/* probe_file.h (internal): one text file per worker and probe kind:
 * <dir>/<kind>-r<rank>-c<core>.txt, `# key value` header lines, then one
 * record per line: "<start_ns> <value>". No MPI. */
#ifndef MPISCOPE_NOISE_PROBE_FILE_H
#define MPISCOPE_NOISE_PROBE_FILE_H

#include <stddef.h>
#include "cli.h"
#include "probe_loops.h"

typedef struct mpiscope__probe_header {
    const char *kind; /* "fwq", "ftq", "selfish", "triad" */
    int rank;         /* MPI rank, or thread index when alone */
    const char *host;
    long pid;
    int core; /* pinned core, else the CPU seen at start */
    const mpiscope__cpu_list_t *cpus_allowed;
    double seconds;
    double start_ns;                    /* worker's clock at the start of this kind */
    const char *timer;                  /* engine timer name */
    double work_ns_target;              /* fwq */
    unsigned long long work_iterations; /* fwq */
    double quantum_ns;                  /* ftq */
    double threshold_ns;                /* selfish */
    double loop_median_ns;              /* selfish */
    long long elements;                 /* triad: elements of each of the three arrays */
    long long llc_bytes;                /* triad: one LLC instance of the node, the array size's basis */
    const char *llc_source;             /* triad: "sysfs", "default" (sysfs unreadable) or "given" */
} mpiscope__probe_header_t;

/* Write the file; its path goes into path (len bytes). Returns 0 or MPISCOPE_EIO. */
int mpiscope__probe_file_write(const char *dir, const mpiscope__probe_header_t *h, const mpiscope__probe_records_t *r,
                               char *path, size_t len);

#endif
