/* test_methods.c: what each timing method takes as the time of a launch,
 * judged on synthetic stages (no MPI): the IMB/OSU loop's per-rank means,
 * MPIBlib's root and global, the per-launch max, round-time lateness, and
 * de Supinski's acknowledgment correction. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "method.h"
#include "param_table.h"
#include "mpiscope/error.h"

enum { RANKS = 2, K = 4 };

/* Launch l: rank 0 runs [10l, 10l+3], rank 1 runs [10l+1, 10l+6] (ns),
 * offset by 1000 so no time is 0. */
static void stage_times(double *start, double *end)
{
    for (int l = 0; l < K; l++) {
        start[0 * K + l] = 1000 + 10 * l;
        end[0 * K + l] = 1000 + 10 * l + 3;
        start[1 * K + l] = 1000 + 10 * l + 1;
        end[1 * K + l] = 1000 + 10 * l + 6;
    }
}

/* Judge stage 0 (discarded) and stage 1 with the same times; the result. */
static mpiscope_point_result_t judge_twice(const char *name, const double *slot, const double *arrival, double *ack)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.k_init = K;
    p.k = K;
    p.late_tolerance_ns = 0.5;
    mpiscope__method_state_t st = {.params = &p, .root = 1, .arrival_ns = arrival, .data = ack};
    CHECK_INT_EQ(mpiscope__samples_create(&p, RANKS, 1, &st.samples), 0);
    const mpiscope__method_t *m = mpiscope__method_find(name);
    CHECK(m != NULL);
    double start[RANKS * K], end[RANKS * K];
    stage_times(start, end);
    mpiscope__stage_msg_t msg = {0};
    m->plan(&st, &msg);
    CHECK_INT_EQ((int)msg.k, name && strcmp(name, "bcast-supinski") == 0 ? K : K);
    m->judge(&st, &msg, start, end, end, slot, 0);
    m->plan(&st, &msg);
    m->judge(&st, &msg, start, end, end, slot, 0);
    mpiscope_point_result_t r;
    CHECK_INT_EQ(mpiscope__samples_result(st.samples, &r), 0);
    CHECK_INT_EQ(r.launches_total, K); /* stage 0 is never recorded */
    mpiscope__samples_destroy(st.samples);
    return r;
}

static void test_per_launch_max(void)
{
    /* each launch: rank 0 took 3, rank 1 took 5 */
    mpiscope_point_result_t r = judge_twice("barrier-each", NULL, NULL, NULL);
    CHECK_NEAR(r.stats.median, 5, 1e-12);
    CHECK_INT_EQ(r.stats.n_valid, K);
    CHECK_NEAR(r.skew_median_ns, 1, 1e-12);
    CHECK_NEAR(r.span_median_ns, 6, 1e-12);
    r = judge_twice("none", NULL, NULL, NULL);
    CHECK_NEAR(r.stats.median, 5, 1e-12);
    CHECK_NEAR(r.gap_median_ns, 5, 1e-12); /* next start 10 later, previous end 6 later: min over ranks 5 */
}

static void test_mpiblib_root_and_global(void)
{
    mpiscope_point_result_t r = judge_twice("root", NULL, NULL, NULL); /* root = rank 1 */
    CHECK_NEAR(r.stats.median, 5, 1e-12);
    r = judge_twice("global", NULL, NULL, NULL);
    CHECK_NEAR(r.stats.median, 6, 1e-12); /* last end - first start */
}

static void test_suite_loop_views(void)
{
    /* per-rank mean over the stage: rank 0 (33-0)/4 = 8.25, rank 1 (36-1)/4 = 8.75 */
    mpiscope_point_result_t r = judge_twice("barrier", NULL, NULL, NULL);
    CHECK_INT_EQ(r.stats.n_valid, 1); /* one sample per stage */
    CHECK_NEAR(r.stats.median, 8.75, 1e-12);
    CHECK_INT_EQ(r.n_views, 4);
    CHECK(strcmp(r.view_names[0], "rank0_ns") == 0);
    CHECK_NEAR(r.view_median_ns[0], 8.25, 1e-12);
    CHECK_NEAR(r.view_median_ns[1], 8.5, 1e-12);
    CHECK_NEAR(r.view_median_ns[2], 8.75, 1e-12);
    CHECK_NEAR(r.view_median_ns[3], 5, 1e-12); /* the per-launch max the loop's mean hides */
}

static void test_roundtime_lateness_and_arrival(void)
{
    double slot[K] = {1000, 1010, 1020, 1030}; /* rank 1 starts 1 ns after its slot: late */
    mpiscope_point_result_t r = judge_twice("roundtime", slot, NULL, NULL);
    CHECK_INT_EQ(r.invalid_late, K);
    CHECK_INT_EQ(r.stats.n_valid, 0);
    double arrival[RANKS] = {0, 1}; /* ... unless it was planned */
    r = judge_twice("roundtime", slot, arrival, NULL);
    CHECK_INT_EQ(r.invalid_late, 0);
    CHECK_NEAR(r.stats.median, 5, 1e-12);
}

static void test_supinski_subtracts_the_ack(void)
{
    double ack[RANKS + 2] = {2, 0, 0, 0}; /* root is rank 1, rank 0 acknowledges in 2 ns; the cycle state */
    mpiscope_point_result_t r = judge_twice("bcast-supinski", NULL, NULL, ack);
    CHECK_NEAR(r.stats.median, 5 - 2, 1e-12);
}

/* Every stage a method plans has 1..stage_most launches: a cold point
 * has a buffer slot for each (bcast-supinski rounds k up to whole cycles;
 * k_init 0 means k, as for the loops). */
static void test_stages_fit_their_slots(void)
{
    const mpiscope__method_t *m = mpiscope__method_find("bcast-supinski");
    const unsigned k_inits[] = {0, 4, 64}, ks[] = {1, 8, 64};
    const int sizes[] = {2, 4, 6, 16, 66, 200};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t c = 0; c < sizeof sizes / sizeof *sizes; c++) {
                mpiscope_params_t p;
                mpiscope_params_default(&p);
                p.k_init = k_inits[a];
                p.k = ks[b];
                int n = sizes[c];
                mpiscope__method_state_t st = {.params = &p, .root = 0};
                CHECK_INT_EQ(mpiscope__samples_create(&p, n, 0, &st.samples), 0);
                CHECK_INT_EQ(m->state_create(&st, n), 0);
                size_t most = m->stage_most(&p, n);
                CHECK(most >= 1 && most <= MPISCOPE__STAGE_KMAX);
                for (unsigned stage = 0; stage < 6; stage++) {
                    mpiscope__stage_msg_t msg = {0};
                    m->plan(&st, &msg);
                    CHECK(msg.k >= 1 && msg.k <= (double)most);
                    st.stage = stage + 1;
                    double *next = (double *)st.data + n; /* judge's cycle bookkeeping, without times */
                    *next = stage == 0 ? 0 : fmod(*next + msg.k, n - 1);
                }
                m->state_free(&st);
                mpiscope__samples_destroy(st.samples);
            }
}

/* With validation, a synchronizing op (Barrier...) must not let a rank
 * leave before another entered: the global clock shows it. */
static void test_synchronization_check(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    mpiscope__samples_t *s;
    CHECK_INT_EQ(mpiscope__samples_create(&p, RANKS, 0, &s), 0);
    s->check_sync = 1;
    s->sync_tolerance_ns = 0.5;
    double ok_start[RANKS] = {1000, 1001}, ok_end[RANKS] = {1003, 1006};   /* overlap: fine */
    double bad_start[RANKS] = {2000, 2010}, bad_end[RANKS] = {2005, 2012}; /* 0 leaves first */
    mpiscope__launch_t ok = {.start_ns = ok_start, .end_ns = ok_end, .stride = 1, .slot_ns = NAN};
    mpiscope__launch_t bad = {.start_ns = bad_start, .end_ns = bad_end, .stride = 1, .slot_ns = NAN};
    mpiscope__samples_add_launch(s, &ok);
    mpiscope__samples_add_launch(s, &bad);
    mpiscope__samples_add_launch(s, &bad);
    mpiscope_point_result_t r;
    CHECK_INT_EQ(mpiscope__samples_result(s, &r), 0);
    CHECK_INT_EQ(r.validation_failures, 2);
    CHECK_INT_EQ(r.first_mismatch_rank, 0);
    CHECK_INT_EQ(r.first_mismatch_launch, 1);
    CHECK(strstr(r.first_mismatch, "rank 0 left 5 ns before rank 1 entered") != NULL);
    mpiscope__samples_destroy(s);
}

static void test_registry(void)
{
    CHECK(mpiscope__method_find(NULL) == mpiscope__method_find("window"));
    CHECK(mpiscope__method_find("nope") == NULL);
    CHECK_INT_EQ(mpiscope_method_count(), 9);
    CHECK(mpiscope_method_name(9) == NULL);
    CHECK(mpiscope_method_applies("bcast-supinski", mpiscope_op_find("bcast")));
    CHECK(!mpiscope_method_applies("bcast-supinski", mpiscope_op_find("reduce")));
    CHECK(mpiscope_method_applies("roundtime", mpiscope_op_find("reduce")));
    const mpiscope_method_t *supinski = mpiscope_method_find("bcast-supinski");
    CHECK(mpiscope_method_at(mpiscope_method_count() - 1) == supinski);
    CHECK(strcmp(mpiscope_method_get_name(supinski), "bcast-supinski") == 0);
    CHECK(mpiscope_method_applies_to(supinski, mpiscope_op_find("bcast")));
    CHECK(!mpiscope_method_applies_to(supinski, mpiscope_op_find("ibcast"))); /* times compute_us too */
    CHECK(!mpiscope__method_fits(supinski, mpiscope_op_find("bcast"), 1));    /* needs an acknowledger */
    CHECK(mpiscope__method_fits(supinski, mpiscope_op_find("bcast"), 2));
    CHECK(!mpiscope_method_applies_to(NULL, mpiscope_op_find("bcast")));
}

/* Every method: its parameters are plan parameters; its own state comes
 * and goes through its hooks (rank 0's side, no MPI). */
static void test_descriptors(void)
{
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    for (size_t i = 0; i < mpiscope_method_count(); i++) {
        const mpiscope__method_t *m = mpiscope_method_at(i);
        CHECK(m->name && m->description && m->run_stage && m->plan && m->judge);
        CHECK(m->parameters != NULL);
        for (const char *const *name = m->parameters; name && *name; name++)
            if (!mpiscope__param_find(*name)) {
                fprintf(stderr, "method %s: unknown parameter %s\n", m->name, *name);
                CHECK(0);
            }
        CHECK(!m->state_free == !m->state_create);
        mpiscope__method_state_t st = {.params = &p, .root = 0};
        CHECK_INT_EQ(mpiscope__samples_create(&p, RANKS, 0, &st.samples), 0);
        if (m->state_create) {
            CHECK_INT_EQ(m->state_create(&st, RANKS), 0);
            CHECK(st.data != NULL);
            m->state_free(&st);
        }
        mpiscope__samples_destroy(st.samples);
    }
}

int main(void)
{
    test_per_launch_max();
    test_mpiblib_root_and_global();
    test_suite_loop_views();
    test_roundtime_lateness_and_arrival();
    test_supinski_subtracts_the_ack();
    test_stages_fit_their_slots();
    test_synchronization_check();
    test_registry();
    test_descriptors();
    CHECK_DONE();
}
