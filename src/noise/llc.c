/* llc.c: last-level cache size and instances from sysfs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "llc.h"

#define MAX_INDEX 32

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return MPISCOPE_EIO;
    char *ok = fgets(buf, (int)len, f);
    fclose(f);
    if (!ok)
        return MPISCOPE_EIO;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* "491520K", "32M", "1G" or plain bytes. */
static long long parse_size(const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || v <= 0)
        return -1;
    switch (*end) {
    case 'K':
        return v << 10;
    case 'M':
        return v << 20;
    case 'G':
        return v << 30;
    case '\0':
        return v;
    default:
        return -1;
    }
}

/* One cache entry of one CPU: level, size and first sharing CPU; 1 if it is
 * an instruction cache (to be skipped), 0 if read, MPISCOPE_EIO if absent. */
static int read_index(const char *root, int cpu, int index, mpiscope__llc_t *c)
{
    char dir[512], path[600], line[4096];
    snprintf(dir, sizeof dir, "%s/cpu%d/cache/index%d", root, cpu, index);
    snprintf(path, sizeof path, "%s/type", dir);
    if (read_line(path, line, sizeof line) != 0)
        return MPISCOPE_EIO;
    if (strcmp(line, "Instruction") == 0)
        return 1;
    snprintf(path, sizeof path, "%s/level", dir);
    if (read_line(path, line, sizeof line) != 0)
        return MPISCOPE_EIO;
    c->level = atoi(line);
    snprintf(path, sizeof path, "%s/size", dir);
    if (read_line(path, line, sizeof line) != 0 || (c->bytes = parse_size(line)) <= 0)
        return MPISCOPE_EIO;
    mpiscope__cpu_list_t shared;
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    if (read_line(path, line, sizeof line) != 0 || mpiscope__cpu_list_parse(line, &shared) != 0)
        return MPISCOPE_EIO;
    c->instance = shared.cpu[0];
    return 0;
}

int mpiscope__llc_of_cpu(const char *root, int cpu, mpiscope__llc_t *llc)
{
    int found = 0;
    for (int i = 0; i < MAX_INDEX; i++) {
        mpiscope__llc_t c;
        int rc = read_index(root, cpu, i, &c);
        if (rc == MPISCOPE_EIO && i > 0 && found)
            break; /* indices are contiguous: the first gap ends the list */
        if (rc != 0)
            continue;
        if (!found || c.level > llc->level) {
            *llc = c;
            found = 1;
        }
    }
    return found ? 0 : MPISCOPE_EIO;
}

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
