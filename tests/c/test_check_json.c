/* test_check_json.c: the machine check and first-call points as the
 * result document writes them, from synthetic measurements (no MPI run):
 * field names, order, units and the null of a value not measured. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "check_json.h"
#include "firstcall_json.h"
#include "mpiscope/error.h"

static void check_text(const mpiscope__json_t *j, const char *want)
{
    CHECK(!j->failed);
    if (strcmp(j->buf, want) != 0) {
        fprintf(stderr, "got:  %s\nwant: %s\n", j->buf, want);
        check_failures++;
    }
}

/* tsc measured, wtime refused, one synchronization without a wait. */
static void test_check(void)
{
    mpiscope_check_t c = {.n_timers = 2, .n_syncs = 1};
    c.timers[0] = (mpiscope_check_timer_t){
        .kind = MPISCOPE_TIMER_TSC,
        .available = 1,
        .info = {.source = "rdtscp", .invariant = 1, .frequency_hz = 2.5e9, .wtime_is_global = 0},
        .reads = 2000000,
        .monotonic_violations = 3,
        .resolution_ns = 0.5,
        .read_overhead_ns = 12.25,
        .frequency_error_ppm = -1.5,
        .n_waitpatterns = 1};
    c.timers[0].waitpatterns[0] = (mpiscope_check_waitpattern_t){.op = "waitpattern_up",
                                                                 .expected_ns = 2000,
                                                                 .median_ns = 2010,
                                                                 .ci_low_ns = 2005,
                                                                 .ci_high_ns = 2020,
                                                                 .span_median_ns = 2100,
                                                                 .skew_median_ns = 40};
    c.timers[1] =
        (mpiscope_check_timer_t){.kind = MPISCOPE_TIMER_WTIME, .available = 0, .unavailable_error = MPISCOPE_ENOTIMER};
    c.syncs[0] = (mpiscope_check_sync_t){.algorithm = MPISCOPE_SYNC_RING,
                                         .duration_ns = 350000,
                                         .max_abs_residual_ns = 10,
                                         .after_seconds = 0,
                                         .max_abs_residual_after_ns = 12,
                                         .drift_ppm = NAN,
                                         .exchanges = 240,
                                         .fitpoints = 1,
                                         .max_hops = 1,
                                         .nodes = 1,
                                         .node_shared = 1,
                                         .max_error_ns = 500,
                                         .max_drift_error_ppm = -1,
                                         .max_abs_drift_fitted_ppm = 0,
                                         .recovered = -1};
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__check_json(&c, &j);
    check_text(&j, "{\"timers\":[{\"name\":\"tsc\",\"available\":true,\"source\":\"rdtscp\",\"invariant\":true,"
                   "\"frequency_hz\":2500000000,\"wtime_is_global\":false,\"reads\":2000000,"
                   "\"monotonic_violations\":3,\"resolution_ns\":0.5,\"read_overhead_ns\":12.25,"
                   "\"frequency_error_ppm\":-1.5,\"waitpatterns\":[{\"op\":\"waitpattern_up\","
                   "\"expected_ns\":2000,\"median_ns\":2010,\"ci_low_ns\":2005,\"ci_high_ns\":2020,"
                   "\"span_median_ns\":2100,\"skew_median_ns\":40}]},"
                   "{\"name\":\"wtime\",\"available\":false,"
                   "\"why_unavailable\":\"timer not available or not trustworthy on this machine\"}],"
                   "\"sync\":[{\"algorithm\":\"ring\",\"duration_ns\":350000,\"max_abs_residual_ns\":10,"
                   "\"after_seconds\":0,\"max_abs_residual_after_ns\":12,\"drift_ppm\":null,"
                   "\"exchanges\":240,\"fitpoints\":1,\"max_hops\":1,\"nodes\":1,\"node_shared\":true,"
                   "\"max_error_ns\":500,\"max_abs_drift_fitted_ppm\":0}]}");
    mpiscope__json_free(&j);
}

/* Only tsc has a frequency error; an empty check is two empty lists. */
static void test_check_edges(void)
{
    mpiscope_check_t c = {.n_timers = 1};
    c.timers[0] = (mpiscope_check_timer_t){.kind = MPISCOPE_TIMER_MONOTONIC,
                                           .available = 1,
                                           .info = {.source = "CLOCK_MONOTONIC_RAW"},
                                           .frequency_error_ppm = 7};
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__check_json(&c, &j);
    CHECK(strstr(j.buf, "frequency_error_ppm") == NULL);
    CHECK(strstr(j.buf, "\"waitpatterns\":[]") != NULL);
    mpiscope__json_free(&j);
    mpiscope_check_t empty = {0};
    mpiscope__json_init(&j);
    mpiscope__check_json(&empty, &j);
    check_text(&j, "{\"timers\":[],\"sync\":[]}");
    mpiscope__json_free(&j);
}

/* Two ops on three ranks: each point takes its own row of the arrays. */
static void test_firstcall(void)
{
    static const mpiscope_op_t a = {.name = "alpha"}, b = {.name = "beta"};
    const mpiscope_op_t *ops[] = {&a, &b};
    double first[] = {100, 300, 200, 50, 40, 60}, second[] = {10, 20, 30, 5, 8, 6};
    mpiscope_firstcall_t fc = {
        .n_ops = 2, .nprocs = 3, .size_bytes = 1024, .ops = ops, .first_ns = first, .second_ns = second};
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__firstcall_point_json(&fc, 1, &j);
    check_text(&j, "{\"kind\":\"firstcall\",\"op\":\"beta\",\"size_bytes\":1024,\"nprocs\":3,"
                   "\"first_ns\":[50,40,60],\"second_ns\":[5,8,6],\"ratio_rank0\":10,\"ratio_max\":7.5}");
    mpiscope__json_free(&j);
    mpiscope__json_init(&j);
    mpiscope__firstcall_point_json(&fc, 0, &j);
    CHECK(strstr(j.buf, "\"ratio_rank0\":10,\"ratio_max\":10}") != NULL); /* 300 / 30 */
    mpiscope__json_free(&j);
}

int main(void)
{
    test_check();
    test_check_edges();
    test_firstcall();
    CHECK_DONE();
}
