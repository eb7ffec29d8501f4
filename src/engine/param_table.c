/* param_table.c: the plan's measurement parameters, described once. The
 * ranges here are the ones mpiscope_params_check() enforces. */
#include "param_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"

static const char *timer_choice(unsigned i)
{
    return i <= MPISCOPE_TIMER_WTIME ? mpiscope_timer_kind_name((mpiscope_timer_kind_t)i) : NULL;
}

static const char *sync_choice(unsigned i)
{
    return i < MPISCOPE_SYNC_COUNT ? mpiscope_sync_algorithm_name((mpiscope_sync_algorithm_t)i) : NULL;
}

static const char *stop_choice(unsigned i)
{
    return i <= MPISCOPE_STOP_DETERMINISTIC ? mpiscope_stop_rule_name((mpiscope_stop_rule_t)i) : NULL;
}

static const char *timer_help(unsigned i)
{
    return mpiscope__timer_kind_description((mpiscope_timer_kind_t)i);
}
static const char *sync_help(unsigned i)
{
    return mpiscope__sync_algorithm_description((mpiscope_sync_algorithm_t)i);
}
static const char *stop_help(unsigned i)
{
    return mpiscope__stop_rule_description((mpiscope_stop_rule_t)i);
}

#define AT(field) offsetof(mpiscope_params_t, field)
#define INT(field, store, lo, hi)                                                                                      \
    .type = MPISCOPE__PARAM_INTEGER, .storage = store, .offset = AT(field), .min = lo, .max = hi
#define NUM(field, lo, hi)                                                                                             \
    .type = MPISCOPE__PARAM_NUMBER, .storage = MPISCOPE__STORE_DOUBLE, .offset = AT(field), .min = lo, .max = hi
#define CHOICE(field, names, helps)                                                                                    \
    .type = MPISCOPE__PARAM_CHOICE, .storage = MPISCOPE__STORE_ENUM, .offset = AT(field), .choice_name = names,        \
    .choice_help = helps
enum { BIG = 1000000000 }; /* the largest count a plan may give */
/* The longest time a plan may give: every time has an upper bound, so that a
 * typo (1e18 ns) is refused, not wrapped into a tick count or slept on. */
#define LONG_S 1e6   /* 11.6 days */
#define LONG_NS 1e12 /* 1000 s */

static const mpiscope__param_t params[] = {
    {.name = "timer",
     CHOICE(timer, timer_choice, timer_help),
     .unit = "",
     .help = "clock read around each launch (auto: tsc when invariant, else monotonic)"},
    {.name = "sync",
     CHOICE(sync.algorithm, sync_choice, sync_help),
     .unit = "",
     .help = "clock synchronization algorithm"},
    {.name = "sync_patience",
     INT(sync.patience, MPISCOPE__STORE_UNSIGNED, 1, BIG),
     .unit = "exchanges",
     .help = "clock sync stops after this many exchanges without a better round trip"},
    {.name = "sync_fitpoints",
     INT(sync.fitpoints, MPISCOPE__STORE_UNSIGNED, 1, 64),
     .unit = "points",
     .help = "clock sync: minimum-RTT steps per pair spread in time; 2 or more fit a drift by regression"},
    {.name = "sync_fit_gap_ns",
     NUM(sync.fit_gap_ns, 0, LONG_NS),
     .unit = "ns",
     .help = "clock sync: wait between two fit points (the drift's lever arm)"},
    {.name = "sync_node_leaders",
     INT(sync.node_leaders, MPISCOPE__STORE_UNSIGNED, 0, 1),
     .unit = "",
     .help = "clock sync: 1 verifies that the ranks of a node share one clock and syncs node leaders only"},
    {.name = "resync_seconds",
     NUM(sync.resync_seconds, 0, LONG_S),
     .unit = "s",
     .help = "synchronize the clocks again before a point when the last sync is this old (0: never)"},
    {.name = "stop",
     CHOICE(stop_rule, stop_choice, stop_help),
     .unit = "",
     .help = "error: until the median and the trimmed mean reach target_rse; count: a fixed number; "
             "deterministic: a simulated clock's exact value"},
    {.name = "target_rse",
     NUM(target_rse, 0, 1),
     .min_open = 1,
     .unit = "1",
     .help = "relative standard error of the trimmed mean and of the median to reach (error rule)"},
    {.name = "min_valid",
     INT(min_valid, MPISCOPE__STORE_UNSIGNED, 1, BIG),
     .unit = "launches",
     .help = "valid launches needed before the error rule may stop"},
    {.name = "max_valid",
     INT(max_valid, MPISCOPE__STORE_UNSIGNED, 1, BIG),
     .unit = "launches",
     .help = "valid launches that end a point (count rule)"},
    {.name = "max_launches",
     INT(max_launches, MPISCOPE__STORE_UNSIGNED, 1, 1000000),
     .unit = "launches",
     .help = "launches a point never exceeds (count rule default: 100)"},
    {.name = "max_point_seconds",
     NUM(max_point_seconds, 0, LONG_S),
     .min_open = 1,
     .unit = "s",
     .help = "wall time a point never exceeds"},
    {.name = "min_point_seconds",
     NUM(min_point_seconds, 0, LONG_S),
     .unit = "s",
     .help = "measuring time the error rule always spends on a point (many launches of small messages)"},
    {.name = "confidence",
     NUM(confidence, 0, 1),
     .min_open = 1,
     .max_open = 1,
     .unit = "1",
     .help = "confidence level of the interval around the median"},
    {.name = "trim",
     NUM(trim_fraction, 0, 0.5),
     .max_open = 1,
     .unit = "1",
     .help = "fraction of samples trimmed from each end for the trimmed mean"},
    {.name = "align",
     INT(alignment_bytes, MPISCOPE__STORE_SIZE, 1, 1 << 30),
     .power_of_two = 1,
     .unit = "bytes",
     .help = "alignment of every message buffer"},
    {.name = "window_min_ns",
     NUM(window_min_ns, 0, LONG_NS),
     .unit = "ns",
     .help = "window: the window never shrinks below this"},
    {.name = "k", INT(k, MPISCOPE__STORE_UNSIGNED, 1, 64), .unit = "launches", .help = "launches per stage"},
    {.name = "k_init",
     INT(k_init, MPISCOPE__STORE_UNSIGNED, 0, 64),
     .unit = "launches",
     .help = "launches of stage 0, discarded (warm-up)"},
    {.name = "gamma",
     NUM(gamma, 1, 2),
     .min_open = 1,
     .max_open = 1,
     .unit = "1",
     .help = "window: scale factor over the needed window"},
    {.name = "invalid_threshold",
     NUM(invalid_threshold, 0, 1),
     .max_open = 1,
     .unit = "1",
     .help = "window: widen when more launches of a stage than this fraction overran"},
    {.name = "gap_ns",
     NUM(gap_ns, 0, LONG_NS),
     .unit = "ns",
     .help = "idle time before each launch (roundtime: after the previous end; barrier-each, max, "
             "root, global: after the barrier)"},
    {.name = "window_ns",
     NUM(window_ns, 0, LONG_NS),
     .unit = "ns",
     .help = "window: a fixed window, never sized from needs (0: sized from needs)"},
};
#undef AT
#undef INT
#undef NUM
#undef CHOICE

enum { PARAM_COUNT = sizeof params / sizeof *params };

size_t mpiscope__param_count(void)
{
    return PARAM_COUNT;
}

const mpiscope__param_t *mpiscope__param_at(size_t index)
{
    return index < PARAM_COUNT ? &params[index] : NULL;
}

static int same_name(const char *given, const char *name)
{
    for (; *given && *name; given++, name++)
        if (*given != *name && !(*given == '-' && *name == '_'))
            return 0;
    return *given == *name;
}

const mpiscope__param_t *mpiscope__param_find(const char *name)
{
    for (size_t i = 0; name && i < PARAM_COUNT; i++)
        if (same_name(name, params[i].name))
            return &params[i];
    return NULL;
}

double mpiscope__param_get(const mpiscope__param_t *d, const mpiscope_params_t *p)
{
    const char *at = (const char *)p + d->offset;
    switch (d->storage) {
    case MPISCOPE__STORE_UNSIGNED:
        return *(const unsigned *)(const void *)at;
    case MPISCOPE__STORE_SIZE:
        return (double)*(const size_t *)(const void *)at;
    case MPISCOPE__STORE_ENUM:
        return *(const int *)(const void *)at;
    default:
        return *(const double *)(const void *)at;
    }
}

static int in_range(const mpiscope__param_t *d, double v)
{
    if (!isfinite(v) || (d->min_open ? v <= d->min : v < d->min) || (d->max_open ? v >= d->max : v > d->max))
        return 0;
    if (d->type != MPISCOPE__PARAM_INTEGER)
        return 1;
    if (v != floor(v))
        return 0;
    unsigned long long u = (unsigned long long)v;
    return !d->power_of_two || (u & (u - 1)) == 0;
}

int mpiscope__param_valid(const mpiscope__param_t *d, const mpiscope_params_t *p)
{
    double v = mpiscope__param_get(d, p);
    if (d->type == MPISCOPE__PARAM_CHOICE)
        return v >= 0 && d->choice_name((unsigned)v) != NULL;
    return in_range(d, v);
}

void mpiscope__param_range_text(const mpiscope__param_t *d, char *out, size_t size)
{
    const char *kind =
        d->type == MPISCOPE__PARAM_INTEGER ? (d->power_of_two ? "a power of two" : "an integer") : "a number";
    if (isinf(d->max))
        snprintf(out, size, "%s %s %g", kind, d->min_open ? ">" : ">=", d->min);
    else
        snprintf(out, size, "%s in %c%g, %g%c", kind, d->min_open ? '(' : '[', d->min, d->max, d->max_open ? ')' : ']');
}

int mpiscope__param_set(const mpiscope__param_t *d, mpiscope_params_t *p, double v, char *why, size_t why_size)
{
    if (d->type == MPISCOPE__PARAM_CHOICE || !in_range(d, v)) {
        char range[64] = "one of its names";
        if (d->type != MPISCOPE__PARAM_CHOICE)
            mpiscope__param_range_text(d, range, sizeof range);
        snprintf(why, why_size, "must be %s", range);
        return MPISCOPE_ERANGE;
    }
    char *at = (char *)p + d->offset;
    switch (d->storage) {
    case MPISCOPE__STORE_UNSIGNED:
        *(unsigned *)(void *)at = (unsigned)v;
        break;
    case MPISCOPE__STORE_SIZE:
        *(size_t *)(void *)at = (size_t)v;
        break;
    case MPISCOPE__STORE_ENUM:
        *(int *)(void *)at = (int)v;
        break;
    default:
        *(double *)(void *)at = v;
    }
    return 0;
}

int mpiscope__param_set_choice(const mpiscope__param_t *d, mpiscope_params_t *p, const char *name, char *why,
                               size_t why_size)
{
    size_t used = (size_t)snprintf(why, why_size, "must be one of");
    for (unsigned i = 0; d->choice_name && d->choice_name(i); i++) {
        if (name && strcmp(name, d->choice_name(i)) == 0) {
            *(int *)(void *)((char *)p + d->offset) = (int)i;
            why[0] = '\0';
            return 0;
        }
        if (used < why_size)
            used += (size_t)snprintf(why + used, why_size - used, "%s %s", i ? "," : "", d->choice_name(i));
    }
    return MPISCOPE_EINVAL;
}
