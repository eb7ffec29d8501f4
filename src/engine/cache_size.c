/* cache_size.c: the last-level cache of the CPU a rank runs on.
 *
 * The kernel's topology comes first: it describes the cache one core
 * actually shares. glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) can report the
 * whole package on AMD: 256 MiB on an EPYC VM whose two cores share one
 * 32 MiB L3 (sysfs, lscpu and mpiscope-noise all said 32 MiB). It is
 * only the fallback where /sys cannot be read. */
#include "cache_size.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_SYSFS "/sys/devices/system/cpu"
enum { MAX_CACHE_INDEX = 32 };

/* The first word of a file (at most len - 1 bytes); 0 if unreadable. */
static int read_word(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char format[16];
    snprintf(format, sizeof format, "%%%zus", len - 1);
    int ok = fscanf(f, format, buf) == 1;
    fclose(f);
    return ok;
}

/* "32K", "32768K", "16M", "1G" or plain bytes; 0 if unreadable. */
static size_t parse_size(const char *text)
{
    char *end;
    unsigned long long n = strtoull(text, &end, 10);
    if (end == text)
        return 0;
    switch (*end) {
    case 'K':
        return (size_t)n << 10;
    case 'M':
        return (size_t)n << 20;
    case 'G':
        return (size_t)n << 30;
    case '\0':
        return (size_t)n;
    default:
        return 0;
    }
}

size_t mpiscope__llc_bytes_in(const char *root, int cpu)
{
    int best_level = 0;
    size_t best_bytes = 0;
    for (int i = 0; i < MAX_CACHE_INDEX; i++) {
        char path[512], word[32];
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/type", root, cpu, i);
        if (!read_word(path, word, sizeof word))
            break; /* indices are contiguous: the first gap ends the list */
        if (strcmp(word, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/level", root, cpu, i);
        if (!read_word(path, word, sizeof word))
            continue;
        int level = atoi(word);
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/size", root, cpu, i);
        size_t bytes = read_word(path, word, sizeof word) ? parse_size(word) : 0;
        if (bytes && (level > best_level || (level == best_level && bytes > best_bytes))) {
            best_level = level;
            best_bytes = bytes;
        }
    }
    return best_bytes;
}

size_t mpiscope__llc_bytes(void)
{
    int cpu = sched_getcpu();
    size_t bytes = mpiscope__llc_bytes_in(CACHE_SYSFS, cpu >= 0 ? cpu : 0);
    if (bytes == 0 && cpu > 0)
        bytes = mpiscope__llc_bytes_in(CACHE_SYSFS, 0);
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (bytes == 0) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        bytes = l3 > 0 ? (size_t)l3 : 0;
    }
#endif
    return bytes;
}
