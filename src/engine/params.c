/* params.c: defaults, checks and names of the measurement parameters. */
#include <math.h>
#include "mpiscope/error.h"
#include "mpiscope/measure.h"
#include "param_table.h"

void mpiscope_params_default(mpiscope_params_t *p)
{
    *p = (mpiscope_params_t){
        .timer = MPISCOPE_TIMER_AUTO,
        .k_init = 4,
        .k = 8,
        .invalid_threshold = 0.25,
        .gamma = 1.1,
        .window_min_ns = 1000,
        .window_quantile = 0.9,
        .late_tolerance_ns = 0,
        .late_tolerance_fraction = 0.01,
        .t_bcast_ns = 0,
        .stop_rule = MPISCOPE_STOP_ERROR,
        .target_rse = 0.05,
        .min_valid = 10,
        .max_valid = 30,
        .max_launches = 1000,
        .max_point_seconds = 30,
        .min_point_seconds = 0.0005,
        .trim_fraction = 0.25,
        .confidence = 0.95,
        .cache_cold = 1,
        .alignment_bytes = 64,
        .pool_limit_bytes = 0,
        .flags = 0,
    };
    mpiscope_sync_params_default(&p->sync);
}

/* The plan's knobs by their table (param_table.c), the rest here. */
int mpiscope_params_check(const mpiscope_params_t *p)
{
    if (!p || p->flags != 0)
        return MPISCOPE_EINVAL;
    int bad = 0;
    for (size_t i = 0; i < mpiscope__param_count(); i++)
        bad |= !mpiscope__param_valid(mpiscope__param_at(i), p);
    bad |= !(p->window_quantile > 0 && p->window_quantile <= 1) || !(p->late_tolerance_ns >= 0) || !(p->t_bcast_ns >= 0)
           || !(p->late_tolerance_fraction >= 0 && p->late_tolerance_fraction < 1) || p->sync.max_exchanges == 0
           || !(p->floor_ns >= 0 && isfinite(p->floor_ns)) || !(p->floor_se_ns >= 0 && isfinite(p->floor_se_ns));
    return bad ? MPISCOPE_ERANGE : 0;
}

const char *mpiscope_stop_reason_name(mpiscope_stop_reason_t reason)
{
    switch (reason) {
    case MPISCOPE_STOPPED_TARGET_ERROR:
        return "target_error";
    case MPISCOPE_STOPPED_MAX_VALID:
        return "max_valid";
    case MPISCOPE_STOPPED_MAX_LAUNCHES:
        return "max_launches";
    case MPISCOPE_STOPPED_TIME_LIMIT:
        return "time_limit";
    case MPISCOPE_STOPPED_RESOLUTION:
        return "clock_resolution";
    case MPISCOPE_STOPPED_DETERMINISTIC:
        return "deterministic";
    default:
        return "not_stopped";
    }
}

const char *mpiscope__stop_rule_description(mpiscope_stop_rule_t rule)
{
    switch (rule) {
    case MPISCOPE_STOP_COUNT:
        return "a fixed number: max_launches launches, or max_valid valid ones";
    case MPISCOPE_STOP_DETERMINISTIC:
        return "a simulated clock (no noise): stop once two valid launches read the same time, which is "
               "then exact; launches that differ go on under the error rule (the default under "
               "--launcher smpi)";
    default:
        return "until the relative standard errors of the trimmed mean and of the median both reach "
               "target_rse, with at least min_valid valid launches and min_point_seconds measured "
               "(caps: max_launches, max_point_seconds)";
    }
}

const char *mpiscope_stop_rule_name(mpiscope_stop_rule_t rule)
{
    return rule == MPISCOPE_STOP_COUNT ? "count" : rule == MPISCOPE_STOP_DETERMINISTIC ? "deterministic" : "error";
}

const char *mpiscope_unstable_reason_name(unsigned bit)
{
    if (bit & MPISCOPE_UNSTABLE_INVALID_FRACTION)
        return "invalid_fraction";
    if (bit & MPISCOPE_UNSTABLE_SPREAD)
        return "spread";
    if (bit & MPISCOPE_UNSTABLE_TARGET_MISSED)
        return "target_missed";
    if (bit & MPISCOPE_UNSTABLE_TOO_FEW_VALID)
        return "too_few_valid";
    return "unknown";
}
