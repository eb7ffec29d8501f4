/* wall_log.c: the host's wall time of a run's parts (wall_log.h). */
#include "wall_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* (clock_gettime) in parentheses: SMPI's smpi_helpers.h, forced into every
 * file of its build, defines clock_gettime(x, y) as the simulated clock; a
 * function-like macro is not expanded before a parenthesis. */
static double clock_s(clockid_t id)
{
    struct timespec ts;
    if ((clock_gettime)(id, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mpiscope__wall_now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

double mpiscope__wall_since_process_start_s(void)
{
#ifdef __linux__
    /* field 22 of /proc/self/stat: the start, in clock ticks since boot */
    FILE *f = fopen("/proc/self/stat", "r");
    char line[1024];
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f)
        fclose(f);
    line[n] = '\0';
    const char *p = strrchr(line, ')'); /* the command name may hold spaces */
    unsigned long long start = 0;
    int field = 2;
    for (; p && *p && field < 22; p++)
        field += *p == ' ';
    long hz = sysconf(_SC_CLK_TCK);
    if (!p || field != 22 || hz <= 0 || sscanf(p, "%llu", &start) != 1)
        return NAN;
    return clock_s(CLOCK_BOOTTIME) - (double)start / (double)hz;
#else
    return NAN;
#endif
}

void mpiscope__wall_log(const char *part, double since_s)
{
    const char *path = getenv("MPISCOPE_WALL_LOG");
    if (!path || !path[0])
        return;
    double seconds = mpiscope__wall_now_s() - since_s;
    FILE *f = fopen(path, "a");
    if (!f)
        return; /* a profile that cannot be written never stops a run */
    fprintf(f, "%s %.6f\n", part, seconds);
    fclose(f);
}
