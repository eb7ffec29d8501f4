/* check_json.c: the machine check as the "check" section of a result
 * document (docs/result-schema.md, `check`). */
#include "mpiscope/check.h"
#include "mpiscope/error.h"
#include "check_json.h"
#include "result_internal.h"

static void write_waitpattern(mpiscope__json_t *j, const mpiscope_check_waitpattern_t *w)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "op", w->op);
    mpiscope__json_number(j, "expected_ns", w->expected_ns);
    mpiscope__json_number(j, "median_ns", w->median_ns);
    mpiscope__json_number(j, "ci_low_ns", w->ci_low_ns);
    mpiscope__json_number(j, "ci_high_ns", w->ci_high_ns);
    mpiscope__json_number(j, "span_median_ns", w->span_median_ns);
    mpiscope__json_number(j, "skew_median_ns", w->skew_median_ns);
    mpiscope__json_end(j);
}

static void write_timer(mpiscope__json_t *j, const mpiscope_check_timer_t *t)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "name", mpiscope_timer_kind_name(t->kind));
    mpiscope__json_bool(j, "available", t->available);
    if (!t->available) {
        mpiscope__json_string(j, "why_unavailable", mpiscope_strerror(t->unavailable_error));
        mpiscope__json_end(j);
        return;
    }
    mpiscope__json_string(j, "source", t->info.source);
    mpiscope__json_bool(j, "invariant", t->info.invariant);
    mpiscope__json_number(j, "frequency_hz", t->info.frequency_hz);
    mpiscope__json_bool(j, "wtime_is_global", t->info.wtime_is_global);
    mpiscope__json_integer(j, "reads", (long long)t->reads);
    mpiscope__json_integer(j, "monotonic_violations", (long long)t->monotonic_violations);
    mpiscope__json_number(j, "resolution_ns", t->resolution_ns);
    mpiscope__json_number(j, "read_overhead_ns", t->read_overhead_ns);
    if (t->kind == MPISCOPE_TIMER_TSC)
        mpiscope__json_number(j, "frequency_error_ppm", t->frequency_error_ppm);
    mpiscope__json_array(j, "waitpatterns");
    for (size_t i = 0; i < t->n_waitpatterns; i++)
        write_waitpattern(j, &t->waitpatterns[i]);
    mpiscope__json_end(j);
    mpiscope__json_end(j);
}

static void write_sync(mpiscope__json_t *j, const mpiscope_check_sync_t *s)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "algorithm", mpiscope_sync_algorithm_name(s->algorithm));
    mpiscope__json_number(j, "duration_ns", s->duration_ns);
    mpiscope__json_number(j, "max_abs_residual_ns", s->max_abs_residual_ns);
    mpiscope__json_number(j, "after_seconds", s->after_seconds);
    mpiscope__json_number(j, "max_abs_residual_after_ns", s->max_abs_residual_after_ns);
    mpiscope__json_number(j, "drift_ppm", s->drift_ppm);
    mpiscope__json_integer(j, "exchanges", (long long)s->exchanges);
    mpiscope__json_integer(j, "fitpoints", s->fitpoints);
    mpiscope__json_integer(j, "max_hops", s->max_hops);
    mpiscope__json_integer(j, "nodes", s->nodes);
    mpiscope__json_bool(j, "node_shared", s->node_shared);
    mpiscope__json_number(j, "max_error_ns", s->max_error_ns);
    if (s->max_drift_error_ppm >= 0)
        mpiscope__json_number(j, "max_drift_error_ppm", s->max_drift_error_ppm);
    mpiscope__json_number(j, "max_abs_drift_fitted_ppm", s->max_abs_drift_fitted_ppm);
    if (s->recovered >= 0) {
        mpiscope__json_bool(j, "recovered", s->recovered);
        mpiscope__json_number(j, "max_offset_miss_ns", s->max_offset_miss_ns);
        if (s->max_drift_error_ppm >= 0)
            mpiscope__json_number(j, "max_drift_miss_ppm", s->max_drift_miss_ppm);
    }
    mpiscope__json_end(j);
}

static void write_states(mpiscope__json_t *j, const mpiscope_check_t *c)
{
    mpiscope__json_object(j, "states");
    mpiscope__json_string(j, "op", c->states_op);
    mpiscope__json_string(j, "method", c->states_method);
    mpiscope__json_integer(j, "size_bytes", (long long)c->states_size_bytes);
    mpiscope__json_number(j, "gap_seconds", c->states_gap_seconds);
    mpiscope__json_array(j, "runs");
    for (size_t i = 0; i < c->n_state_runs && i < MPISCOPE_CHECK_STATE_RUNS; i++) {
        const mpiscope_check_state_run_t *r = &c->state_runs[i];
        mpiscope__json_object(j, NULL);
        mpiscope__json_number(j, "at_ns", r->at_ns);
        mpiscope__json_number(j, "median_ns", r->median_ns);
        mpiscope__json_number(j, "q25_ns", r->q25_ns);
        mpiscope__json_number(j, "q75_ns", r->q75_ns);
        mpiscope__json_integer(j, "launches_valid", r->launches_valid);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    mpiscope__json_end(j);
}

void mpiscope__check_json(const mpiscope_check_t *check, mpiscope__json_t *j)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_array(j, "timers");
    for (size_t i = 0; i < check->n_timers && i < MPISCOPE_CHECK_MAX_TIMERS; i++)
        write_timer(j, &check->timers[i]);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "sync");
    for (size_t i = 0; i < check->n_syncs && i < MPISCOPE_CHECK_MAX_SYNCS; i++)
        write_sync(j, &check->syncs[i]);
    mpiscope__json_end(j);
    if (check->states_op)
        write_states(j, check);
    mpiscope__json_end(j);
}

int mpiscope_result_add_check(mpiscope_result_t *res, const mpiscope_check_t *check)
{
    if (!res || !check)
        return MPISCOPE_EINVAL;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__check_json(check, &j);
    int err = j.failed ? MPISCOPE_ENOMEM : mpiscope__result_set_section(res, "check", j.buf);
    mpiscope__json_free(&j);
    return err;
}
