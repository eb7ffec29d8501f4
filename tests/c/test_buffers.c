/* test_buffers.c: the cold buffer pool is sized by the launches of a stage
 * (flush mode), never by a region twice the LLC; each window of `slots`
 * consecutive launches visits every slot once, in a shuffled order; the
 * region mode (no flush) keeps its size rule; the error rule waits for
 * min_point_seconds and for the median's precision. No MPI. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "mpiscope/error.h"
#include "cache_size.h"
#include "opctx.h"
#include "samples.h"

static mpiscope__buffer_pool_info_t reserve(mpiscope__buffer_pool_t *pool, size_t send, size_t recv)
{
    mpiscope__op_engine_t engine = {.pool = pool};
    mpiscope_op_ctx_t ctx = {.engine = &engine};
    mpiscope__buffer_pool_info_t info;
    CHECK_INT_EQ(mpiscope_op_ctx_buffers(&ctx, send, recv), 0);
    mpiscope__buffer_pool_info(pool, &info);
    return info;
}

static size_t flushed(const mpiscope__buffer_pool_t *pool)
{
    mpiscope__buffer_pool_info_t info;
    mpiscope__buffer_pool_info(pool, &info);
    return info.flushed_slots;
}

/* A cold pool in flush mode (or region mode: flush 0). */
static mpiscope__buffer_pool_t *cold_pool(size_t limit_bytes, int flush, size_t stage_launches)
{
    mpiscope__buffer_pool_t *pool = NULL;
    CHECK_INT_EQ(mpiscope__buffer_pool_create(1, 64, limit_bytes, &pool), 0);
    if (!pool)
        exit(1);
    mpiscope__buffer_pool_set_flush(pool, flush);
    mpiscope__buffer_pool_set_stage_launches(pool, stage_launches);
    return pool;
}

static void test_flush_mode_has_a_slot_per_launch(void)
{
    mpiscope__buffer_pool_t *pool = cold_pool(0, 1, 8);
    mpiscope__buffer_pool_info_t info = reserve(pool, 0, 65536);
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    CHECK_INT_EQ(info.flush, 1);
    CHECK_INT_EQ(info.slots, 8);
    CHECK_INT_EQ(info.slot_bytes, 64 + 65536); /* an empty send buffer still gets one line */
    CHECK_INT_EQ(info.region_bytes, 8 * (64 + 65536));
    CHECK_INT_EQ(mpiscope__buffer_pool_flush(pool), 1);
    CHECK_INT_EQ(flushed(pool), 8); /* a new layout: every slot */
    /* then only the slots launches used: a stage of 2, then none */
    mpiscope__op_engine_t engine = {.pool = pool};
    mpiscope_op_ctx_t ctx = {.engine = &engine};
    mpiscope__op_ctx_select_buffers(&ctx, 8);
    mpiscope__op_ctx_select_buffers(&ctx, 9);
    CHECK_INT_EQ(mpiscope__buffer_pool_flush(pool), 1);
    CHECK_INT_EQ(flushed(pool), 2);
    CHECK_INT_EQ(mpiscope__buffer_pool_flush(pool), 1); /* every rank still waits at the barrier */
    CHECK_INT_EQ(flushed(pool), 0);
    /* a stage of 1 launch still gets two slots (firstcall needs two addresses) */
    mpiscope__buffer_pool_set_stage_launches(pool, 1);
    CHECK_INT_EQ(reserve(pool, 1, 1).slots, 2);
#endif
    /* warm: one pair, nothing to flush */
    mpiscope__buffer_pool_set_cold(pool, 0);
    CHECK_INT_EQ(reserve(pool, 0, 65536).slots, 1);
    CHECK_INT_EQ(mpiscope__buffer_pool_flush(pool), 0);
    mpiscope__buffer_pool_destroy(pool);
}

static void test_the_limit_still_caps_flush_slots(void)
{
    mpiscope__buffer_pool_t *pool = cold_pool((size_t)3 << 20, 1, 8);
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    CHECK_INT_EQ(reserve(pool, 0, (size_t)1 << 20).slots, 2); /* 3 MiB holds two 1 MiB + 64 B slots */
#endif
    mpiscope__buffer_pool_destroy(pool);
}

static void test_region_mode_keeps_its_size_rule(void)
{
    mpiscope__buffer_pool_t *pool = cold_pool((size_t)1 << 20, 0, 8);
    mpiscope__buffer_pool_info_t info = reserve(pool, 0, 4096 - 64);
    CHECK_INT_EQ(info.flush, 0);
    size_t llc = mpiscope__llc_bytes();
    size_t want = 2 * llc > ((size_t)1 << 20) || llc == 0 ? ((size_t)1 << 20) / 4096 : 2 * llc / 4096;
    if (llc == 0)
        want = 2; /* no LLC known: the region is two slots */
    CHECK_INT_EQ(info.slots, want);
    CHECK_INT_EQ(mpiscope__buffer_pool_flush(pool), 0); /* region mode never flushes */
    mpiscope__buffer_pool_destroy(pool);
}

/* Any `slots` consecutive launches use every slot once; launch l and
 * l + slots share one; the order is not the identity (the prefetcher). */
static void test_slot_reuse_order(void)
{
    mpiscope__buffer_pool_t *pool = cold_pool(0, 1, 16);
    size_t n = reserve(pool, 128, 128).slots, identity = 1;
    for (size_t first = 0; first < 3 * n; first += 5) {
        int seen[4096] = {0};
        for (size_t l = first; l < first + n; l++) {
            size_t slot = mpiscope__buffer_pool_slot_of(pool, l);
            CHECK(slot < n);
            CHECK_INT_EQ(seen[slot]++, 0);
            CHECK_INT_EQ(mpiscope__buffer_pool_slot_of(pool, l + n), slot);
        }
    }
    for (size_t l = 0; l < n; l++)
        identity &= mpiscope__buffer_pool_slot_of(pool, l) == l;
    CHECK(n < 3 || !identity);
    mpiscope__buffer_pool_destroy(pool);
}

static mpiscope__samples_t *samples_of(const mpiscope_params_t *p, const double *v, size_t n)
{
    mpiscope__samples_t *s = NULL;
    CHECK_INT_EQ(mpiscope__samples_create(p, 2, 0, &s), 0);
    for (size_t i = 0; s && i < n; i++) {
        double start[2] = {0, 0}, end[2] = {v[i], v[i]};
        mpiscope__launch_t launch = {.start_ns = start, .end_ns = end, .stride = 1, .slot_ns = NAN};
        mpiscope__samples_add_launch(s, &launch);
        mpiscope__samples_add_sample(s, v[i]);
    }
    return s;
}

static void test_error_rule_waits_for_the_minimum_time(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    double v[64];
    for (int i = 0; i < 64; i++)
        v[i] = 300 + (i % 3); /* 300..302 ns: precise at once */
    mpiscope__samples_t *s = samples_of(&p, v, 64);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0.5 * p.min_point_seconds * 1e9), MPISCOPE_STOPPED_NOT);
    CHECK_INT_EQ(mpiscope__samples_stage_k(s, 8), 8); /* not short of min_valid: full stages */
    CHECK_INT_EQ(mpiscope__samples_stop(s, p.min_point_seconds * 1e9), MPISCOPE_STOPPED_TARGET_ERROR);
    mpiscope__samples_destroy(s);
    /* the launch cap ends the minimum time: precise at the cap is at the target */
    p.max_launches = 64;
    s = samples_of(&p, v, 64);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_TARGET_ERROR);
    mpiscope__samples_destroy(s);
    p.max_launches = 1000;
    /* min_valid still holds after the time; the next stage runs only
     * the launches still short of it, and full stages before the time */
    s = samples_of(&p, v, p.min_valid - 1);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0.5 * p.min_point_seconds * 1e9), MPISCOPE_STOPPED_NOT);
    CHECK_INT_EQ(mpiscope__samples_stage_k(s, 8), 8);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 10 * p.min_point_seconds * 1e9), MPISCOPE_STOPPED_NOT);
    CHECK_INT_EQ(mpiscope__samples_stage_k(s, 8), 1);
    mpiscope__samples_destroy(s);
    s = samples_of(&p, v, 1);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 10 * p.min_point_seconds * 1e9), MPISCOPE_STOPPED_NOT);
    CHECK_INT_EQ(mpiscope__samples_stage_k(s, 8), 8); /* short of 9: a full stage */
    mpiscope__samples_destroy(s);
    /* the count rule has no minimum time */
    p.stop_rule = MPISCOPE_STOP_COUNT;
    s = samples_of(&p, v, p.max_valid);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 0), MPISCOPE_STOPPED_MAX_VALID);
    mpiscope__samples_destroy(s);
}

/* 10 samples, one far out: the trimmed mean is exact (its RSE is 0, which
 * the old rule took), but the median's interval reaches the outlier. With
 * 30 samples it no longer does, and the rule stops. */
static void test_error_rule_needs_the_median_precise(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    double v[30];
    for (int i = 0; i < 30; i++)
        v[i] = 1000;
    v[0] = 1e6;
    mpiscope__samples_t *s = samples_of(&p, v, 10);
    mpiscope_stats_t st;
    CHECK_INT_EQ(mpiscope_stats_compute(s->sample_ns, s->n_samples, p.trim_fraction, p.confidence, &st), 0);
    CHECK_NEAR(st.rse, 0, 0);
    CHECK(st.median_rse > p.target_rse);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 1e9), MPISCOPE_STOPPED_NOT);
    mpiscope__samples_destroy(s);
    s = samples_of(&p, v, 30);
    CHECK_INT_EQ(mpiscope__samples_stop(s, 1e9), MPISCOPE_STOPPED_TARGET_ERROR);
    mpiscope__samples_destroy(s);
}

/* The order-statistic SE: n = 16 gives l = 4, u = 12 (0-based). */
static void test_median_rse_value(void)
{
    double v[16];
    for (int i = 0; i < 16; i++)
        v[i] = 100 + i;
    mpiscope_stats_t st;
    CHECK_INT_EQ(mpiscope_stats_compute(v, 16, 0.25, 0.95, &st), 0);
    CHECK_NEAR(st.median_rse, (112.0 - 104.0) / (2 * 1.959963984540054) / 107.5, 1e-12);
    CHECK_INT_EQ(mpiscope_stats_compute(v, 1, 0.25, 0.95, &st), 0);
    CHECK(isnan(st.median_rse));
}

int main(void)
{
    test_flush_mode_has_a_slot_per_launch();
    test_the_limit_still_caps_flush_slots();
    test_region_mode_keeps_its_size_rule();
    test_slot_reuse_order();
    test_error_rule_waits_for_the_minimum_time();
    test_error_rule_needs_the_median_precise();
    test_median_rse_value();
    CHECK_DONE();
}
