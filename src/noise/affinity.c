/* affinity.c: pin and read back (sched_setaffinity / sched_getaffinity / sched_getcpu). */
#include <sched.h>
#include "mpiscope/error.h"
#include "affinity.h"

int mpiscope__pin_self(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return MPISCOPE_EINVAL;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return MPISCOPE_EINVAL;
    sched_yield(); /* let the scheduler move us now, before anything is timed */
    return 0;
}

int mpiscope__cpus_allowed(mpiscope__cpu_list_t *list)
{
    cpu_set_t set;
    list->n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return MPISCOPE_EIO;
    for (int c = 0; c < CPU_SETSIZE && c < MPISCOPE__NOISE_MAX_CPUS; c++)
        if (CPU_ISSET(c, &set))
            list->cpu[list->n++] = c;
    return 0;
}

int mpiscope__current_cpu(void)
{
    return sched_getcpu();
}
