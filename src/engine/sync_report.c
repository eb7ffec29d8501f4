/* sync_report.c: a synchronization's accuracy, summarized (check) and
 * written per rank (result documents). */
#include <math.h>
#include "clock_setup.h"
#include "sync_report.h"

void mpiscope__check_sync_accuracy(const mpiscope_clock_sync_t *s, mpiscope_check_sync_t *out)
{
    out->exchanges = s->exchanges;
    out->fitpoints = s->fitpoints;
    out->nodes = s->nodes;
    out->node_shared = s->node_shared;
    out->max_hops = 0;
    out->max_error_ns = 0;
    out->max_drift_error_ppm = s->fitpoints >= 2 ? 0 : -1;
    out->max_abs_drift_fitted_ppm = 0;
    out->recovered = mpiscope_clock_sync_recovered(s);
    out->max_offset_miss_ns = out->recovered >= 0 ? 0 : NAN;
    out->max_drift_miss_ppm = out->recovered >= 0 && s->fitpoints >= 2 ? 0 : NAN;
    for (int i = 0; s->hops && i < s->nprocs; i++) { /* the per-rank arrays: rank 0 only */
        out->max_hops = s->hops[i] > out->max_hops ? s->hops[i] : out->max_hops;
        out->max_error_ns = fmax(out->max_error_ns, s->errors_ns[i]);
        if (out->max_drift_error_ppm >= 0)
            out->max_drift_error_ppm = fmax(out->max_drift_error_ppm, s->drift_errors_ppm[i]);
        out->max_abs_drift_fitted_ppm = fmax(out->max_abs_drift_fitted_ppm, fabs(s->drifts_ppm[i]));
        if (out->recovered >= 0) {
            out->max_offset_miss_ns = fmax(out->max_offset_miss_ns, fabs(s->offsets_ns[i] - s->true_offsets_ns[i]));
            if (s->fitpoints >= 2)
                out->max_drift_miss_ppm = fmax(out->max_drift_miss_ppm, fabs(s->drifts_ppm[i] - s->true_drifts_ppm[i]));
        }
    }
}

void mpiscope__sync_json_fields(mpiscope__json_t *j, const mpiscope_clock_sync_t *s,
                                const mpiscope_sync_params_t *params)
{
    if (!s->hops) /* not rank 0: no per-rank arrays */
        return;
    mpiscope_check_sync_t acc;
    mpiscope__check_sync_accuracy(s, &acc);
    mpiscope__json_integer(j, "fitpoints", s->fitpoints);
    mpiscope__json_number(j, "fit_gap_ns", params->fit_gap_ns);
    mpiscope__json_number(j, "resync_seconds", params->resync_seconds);
    mpiscope__json_integer(j, "nodes", s->nodes);
    mpiscope__json_bool(j, "node_shared", s->node_shared);
    mpiscope__json_number_array(j, "drift_ppm", s->drifts_ppm, (size_t)s->nprocs);
    mpiscope__json_number_array(j, "t_ref_ns", s->t_refs_ns, (size_t)s->nprocs);
    mpiscope__json_number_array(j, "error_ns", s->errors_ns, (size_t)s->nprocs);
    mpiscope__json_array(j, "drift_error_ppm"); /* -1 (not estimated): null */
    for (int i = 0; i < s->nprocs; i++)
        mpiscope__json_number(j, NULL, s->drift_errors_ppm[i] < 0 ? NAN : s->drift_errors_ppm[i]);
    mpiscope__json_end(j);
    mpiscope__json_array(j, "hops");
    for (int i = 0; i < s->nprocs; i++)
        mpiscope__json_integer(j, NULL, s->hops[i]);
    mpiscope__json_end(j);
    mpiscope__json_number_array(j, "node_residual_ns", s->node_residual_ns, (size_t)s->nprocs);
    mpiscope__json_number(j, "max_error_ns", acc.max_error_ns);
    mpiscope__json_integer(j, "max_hops", acc.max_hops);
    if (!s->transformed)
        return;
    mpiscope__json_object(j, "clock_transform");
    mpiscope__json_string(j, "spec", mpiscope__clock_transform_spec(params));
    mpiscope__json_number_array(j, "true_offset_ns", s->true_offsets_ns, (size_t)s->nprocs);
    mpiscope__json_number_array(j, "true_drift_ppm", s->true_drifts_ppm, (size_t)s->nprocs);
    mpiscope__json_bool(j, "recovered", acc.recovered == 1);
    mpiscope__json_number(j, "max_offset_miss_ns", acc.max_offset_miss_ns);
    mpiscope__json_number(j, "max_drift_miss_ppm", acc.max_drift_miss_ppm);
    mpiscope__json_end(j);
}
