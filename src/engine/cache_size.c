/* cache_size.c: the last-level cache of a CPU.
 *
 * The kernel's topology comes first: it describes the cache one core
 * actually shares. glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) can report the
 * whole package on AMD: 256 MiB on an EPYC VM whose two cores share one
 * 32 MiB L3 (sysfs and lscpu said 32 MiB). It is only the fallback where
 * /sys cannot be read. */
#include "cache_size.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpiscope/error.h"

enum { MAX_CACHE_INDEX = 32 };

/* The first word of <root>/cpu<cpu>/cache/index<index>/<file>; 0 if unreadable. */
static int read_word(const char *root, int cpu, int index, const char *file, char word[32])
{
    char path[600];
    snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/%s", root, cpu, index, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fscanf(f, "%31s", word) == 1;
    fclose(f);
    return ok;
}

/* "32K", "32768K", "16M", "1G" or plain bytes; 0 if unreadable. */
static long long parse_size(const char *text)
{
    char *end;
    long long n = strtoll(text, &end, 10);
    if (end == text || n <= 0)
        return 0;
    switch (*end) {
    case 'K':
        return n << 10;
    case 'M':
        return n << 20;
    case 'G':
        return n << 30;
    case '\0':
        return n;
    default:
        return 0;
    }
}

int mpiscope__llc_of_cpu(const char *root, int cpu, mpiscope__llc_t *llc)
{
    int found = 0;
    for (int i = 0; i < MAX_CACHE_INDEX; i++) {
        char word[32];
        if (!read_word(root, cpu, i, "type", word))
            break; /* indices are contiguous: the first gap ends the list */
        if (strcmp(word, "Instruction") == 0)
            continue;
        mpiscope__llc_t c = {.instance = -1};
        if (!read_word(root, cpu, i, "level", word))
            continue;
        c.level = atoi(word);
        if (!read_word(root, cpu, i, "size", word) || (c.bytes = parse_size(word)) == 0)
            continue;
        if (read_word(root, cpu, i, "shared_cpu_list", word)) /* ascending: the first CPU leads */
            c.instance = atoi(word);
        if (!found || c.level > llc->level || (c.level == llc->level && c.bytes > llc->bytes)) {
            *llc = c;
            found = 1;
        }
    }
    return found ? 0 : MPISCOPE_EIO;
}

size_t mpiscope__llc_bytes(void)
{
    int cpu = sched_getcpu();
    mpiscope__llc_t llc;
    if (mpiscope__llc_of_cpu(MPISCOPE__LLC_SYSFS, cpu >= 0 ? cpu : 0, &llc) == 0
        || (cpu > 0 && mpiscope__llc_of_cpu(MPISCOPE__LLC_SYSFS, 0, &llc) == 0))
        return (size_t)llc.bytes;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0)
        return (size_t)l3;
#endif
    return 0;
}
