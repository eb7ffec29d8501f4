/* inject_schedule.c: absolute deadlines, skipped periods and stopped time. */
#include <math.h>
#include "inject_schedule.h"

static double uniform01(mpiscope__inject_schedule_t *s)
{
    unsigned long long x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

static void draw_deadline(mpiscope__inject_schedule_t *s)
{
    double offset = s->jitter > 0 ? uniform01(s) * s->jitter * s->period_ns : 0;
    s->deadline_ns = (double)s->k * s->period_ns + offset;
}

void mpiscope__inject_schedule_init(mpiscope__inject_schedule_t *s, double hz, double jitter, unsigned long long seed)
{
    *s =
        (mpiscope__inject_schedule_t){.period_ns = 1e9 / hz, .jitter = jitter, .rng = seed * 0x9E3779B97F4A7C15ULL + 1};
    draw_deadline(s);
}

void mpiscope__inject_woke(mpiscope__inject_schedule_t *s, double woke_ns)
{
    double late = woke_ns - s->deadline_ns;
    if (late > s->period_ns)
        s->stopped_ns += late;
}

void mpiscope__inject_burst_done(mpiscope__inject_schedule_t *s, double wall_ns, double cpu_ns)
{
    if (wall_ns - cpu_ns > s->period_ns)
        s->stopped_ns += wall_ns - cpu_ns;
}

void mpiscope__inject_next(mpiscope__inject_schedule_t *s, double now_ns)
{
    double current = floor(now_ns / s->period_ns);
    unsigned long long next = s->k + 1;
    if (current > (double)next)
        next = (unsigned long long)current;
    s->skipped += next - s->k - 1;
    s->k = next;
    draw_deadline(s);
}
