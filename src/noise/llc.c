/* llc.c: a node's last-level caches (each CPU's from the engine's one
 * reader, cache_size.c) and the STREAM array size they give. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "llc.h"

int mpiscope__llc_mark(const char *root, const mpiscope__cpu_list_t *cpus, long long *sizes)
{
    for (int i = 0; i < cpus->n; i++) {
        mpiscope__llc_t llc;
        if (mpiscope__llc_of_cpu(root, cpus->cpu[i], &llc) != 0 || llc.instance < 0
            || llc.instance >= MPISCOPE__NOISE_MAX_CPUS)
            return MPISCOPE_EIO;
        sizes[llc.instance] = llc.bytes;
    }
    return 0;
}

void mpiscope__llc_total(const long long *sizes, long long *total_bytes, int *instances, long long *largest_bytes)
{
    *total_bytes = 0;
    *instances = 0;
    *largest_bytes = 0;
    for (int i = 0; i < MPISCOPE__NOISE_MAX_CPUS; i++)
        if (sizes[i] > 0) {
            *total_bytes += sizes[i];
            (*instances)++;
            if (sizes[i] > *largest_bytes)
                *largest_bytes = sizes[i];
        }
}

long long mpiscope__stream_elements(long long node_llc_bytes, int ranks_on_node)
{
    if (ranks_on_node < 1)
        ranks_on_node = 1;
    long long per_rank_bytes = node_llc_bytes * 4, div = 8LL * ranks_on_node;
    long long e = (per_rank_bytes + div - 1) / div;
    return e > 0 ? e : 1;
}
