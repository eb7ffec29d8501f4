/* inject_schedule.h (internal): when mpiscope-inject bursts. Period k is
 * due at k * period (+ a jitter offset drawn per period); a period whose
 * whole window passed before we could serve it (stopped, starved) is
 * skipped, never caught up. No clock here: the caller passes times (ns
 * since the injector's start), so the tests replay any history. */
#ifndef MPISCOPE_NOISE_INJECT_SCHEDULE_H
#define MPISCOPE_NOISE_INJECT_SCHEDULE_H

typedef struct mpiscope__inject_schedule {
    double period_ns;
    double jitter;              /* in [0, 1): offsets uniform in [0, jitter x period) */
    unsigned long long rng;     /* xorshift64* state */
    unsigned long long k;       /* the period to serve next */
    double deadline_ns;         /* its wake-up time */
    unsigned long long skipped; /* periods never served */
    double stopped_ns;          /* time not run: late wake-ups, stalled bursts */
} mpiscope__inject_schedule_t;

/* Start at period 0 (due at once, plus its jitter). */
void mpiscope__inject_schedule_init(mpiscope__inject_schedule_t *s, double hz, double jitter, unsigned long long seed);

/* We woke at woke_ns for the current period: a wake-up later than one
 * period past its deadline counts its lateness as stopped time. */
void mpiscope__inject_woke(mpiscope__inject_schedule_t *s, double woke_ns);

/* The burst took wall_ns of wall time for cpu_ns of CPU time: a stall of
 * more than one period in it counts as stopped time. */
void mpiscope__inject_burst_done(mpiscope__inject_schedule_t *s, double wall_ns, double cpu_ns);

/* After the burst (now_ns): move to the next period still open, i.e. the
 * later of k + 1 and the period now_ns falls in, counting those skipped,
 * and draw its deadline. */
void mpiscope__inject_next(mpiscope__inject_schedule_t *s, double now_ns);

#endif
