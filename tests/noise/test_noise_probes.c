/* test_noise_probes.c: the probe loops driven by a fake clock that advances
 * a fixed step per read and jumps 5 ms every 100 ms: selfish must find
 * exactly those detours, FTQ must lose the work of exactly those 5 ms,
 * FWQ must show exactly those long units; the triad records one pass per
 * read pair, each pass computing a = b + 3c. */
#include <math.h>
#include <time.h>
#include "check.h"
#include "probe_loops.h"

#define MS 1000000.0

typedef struct fake_clock {
    double t, step, every, jump, next_jump;
    long long reads;
} fake_clock_t;

/* t advances `step` per read; reaching the next multiple of `every` adds `jump`. */
static double fake_now(void *ctx)
{
    fake_clock_t *f = ctx;
    f->reads++;
    f->t += f->step;
    if (f->every > 0 && f->t >= f->next_jump) {
        f->t += f->jump;
        f->next_jump += f->every;
    }
    return f->t;
}

static mpiscope__noise_clock_t fake(fake_clock_t *f, double step)
{
    *f = (fake_clock_t){.step = step, .every = 100 * MS, .jump = 5 * MS, .next_jump = 100 * MS};
    return (mpiscope__noise_clock_t){.now_ns = fake_now, .ctx = f};
}

static void test_selfish_finds_the_jumps(void)
{
    fake_clock_t f;
    mpiscope__noise_clock_t c = fake(&f, 100);
    mpiscope__probe_records_t r;
    double start;
    CHECK_INT_EQ(mpiscope__probe_records_init(&r, 64), 0);
    mpiscope__selfish_run(&c, 1000, 1e9, &r, &start);
    CHECK_NEAR(start, 100, 0);
    /* the k-th jump happens on the read reaching k x 100 ms: the gap starts
     * one step before it, relative to the first read (one step) */
    CHECK_INT_EQ(r.count, 10);
    CHECK_INT_EQ(r.dropped, 0);
    for (size_t k = 0; k < r.count; k++) {
        double jump_at = (double)(k + 1) * 100 * MS;
        CHECK_INT_EQ(r.start_ns[k], (long long)(jump_at - 100 - start));
        CHECK_INT_EQ(r.value[k], (long long)(5 * MS + 100));
    }
    mpiscope__probe_records_free(&r);
}

static void test_selfish_counts_dropped(void)
{
    fake_clock_t f;
    mpiscope__noise_clock_t c = fake(&f, 100);
    mpiscope__probe_records_t r;
    double start;
    CHECK_INT_EQ(mpiscope__probe_records_init(&r, 4), 0);
    mpiscope__selfish_run(&c, 1000, 1e9, &r, &start);
    CHECK_INT_EQ(r.count, 4);
    CHECK_INT_EQ(r.dropped, 6);
    mpiscope__probe_records_free(&r);
}

static void test_selfish_threshold(void)
{
    fake_clock_t f;
    mpiscope__noise_clock_t c = fake(&f, 100);
    f.every = 0; /* no jumps */
    double median = mpiscope__selfish_median_step(&c, 1000);
    CHECK_NEAR(median, 100, 1e-12);
    CHECK_NEAR(mpiscope__selfish_default_threshold(median), 1000, 1e-12);
    CHECK_NEAR(mpiscope__selfish_default_threshold(250), 2500, 1e-12);
}

/* One step per read of 1000 ns, quanta of 1 ms: 1000 steps per quantum,
 * except around each jump, where the quanta lose exactly 5 ms of steps. */
static void test_ftq_loses_the_jumps(void)
{
    fake_clock_t f;
    mpiscope__noise_clock_t c = fake(&f, 1000);
    mpiscope__probe_records_t r;
    double start;
    CHECK_INT_EQ(mpiscope__probe_records_init(&r, 2000), 0);
    mpiscope__ftq_run(&c, 1 * MS, 1e9, &r, &start);
    CHECK_INT_EQ(r.count, 1000);
    CHECK_INT_EQ(r.dropped, 0);
    long long total = 0, dips = 0, zeros = 0;
    for (size_t q = 0; q < r.count; q++) {
        CHECK_INT_EQ(r.start_ns[q], (long long)q * 1000000);
        total += r.value[q];
        dips += r.value[q] < 1000;
        zeros += r.value[q] == 0;
        /* quanta start at 1000 ns + q ms: jump k (read reaching k x 100 ms)
         * begins in quantum 100 k - 1 and ends in quantum 100 k + 4 */
        long long k = ((long long)q + 1) / 100, in_jump = (long long)q - (100 * k - 1);
        if (k >= 1 && in_jump >= 0 && in_jump <= 5)
            CHECK(r.value[q] < 1000);
        else
            CHECK_INT_EQ(r.value[q], 1000);
    }
    /* jumps 1..9: 999 steps in the quantum each starts in, 4 empty quanta,
     * 1 step in the quantum it ends in; jump 10 starts in the last quantum */
    CHECK_INT_EQ(r.value[99], 999);
    CHECK_INT_EQ(r.value[100], 0);
    CHECK_INT_EQ(r.value[103], 0);
    CHECK_INT_EQ(r.value[104], 1);
    CHECK_INT_EQ(r.value[105], 1000);
    CHECK_INT_EQ(zeros, 9 * 4);
    CHECK_INT_EQ(dips, 9 * 6 + 1);
    CHECK_INT_EQ(total, 1000 * 1000 - 9 * 5000 - 1);
    mpiscope__probe_records_free(&r);
}

static void test_fwq_shows_long_units(void)
{
    fake_clock_t f;
    mpiscope__noise_clock_t c = fake(&f, 1000);
    mpiscope__probe_records_t r;
    double start;
    CHECK_INT_EQ(mpiscope__probe_records_init(&r, 1 << 20), 0);
    mpiscope__fwq_run(&c, 10, 1e9, &r, &start);
    long long long_units = 0;
    for (size_t i = 0; i < r.count; i++) {
        if (r.value[i] == 1000)
            continue;
        CHECK_INT_EQ(r.value[i], (long long)(5 * MS + 1000));
        double jump_at = (double)(long_units + 1) * 100 * MS;
        CHECK_INT_EQ(r.start_ns[i], (long long)(jump_at - 1000 - start));
        long_units++;
    }
    CHECK_INT_EQ(long_units, 10);
    /* one unit per read, 1000 ns each, until 1 s after the first read; the
     * 9 jumps before the last one skip 5000 reads' worth each */
    CHECK_INT_EQ(r.count, 999999 - 9 * 5000);
    CHECK_INT_EQ(r.dropped, 0);
    mpiscope__probe_records_free(&r);
}

/* The real clock: calibration gives a usable count (logic only, no timing). */
static double real_now(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void test_fwq_calibrate_real_clock(void)
{
    mpiscope__noise_clock_t c = {.now_ns = real_now};
    unsigned long long n = mpiscope__fwq_calibrate(&c, 100000);
    CHECK(n >= 1);
    CHECK(n < (1ULL << 40));
}

/* Step 1 ms per read, a 5 ms jump every 100 ms: 1 s of passes is the
 * passes' count, each one step long but the ones that hold a jump; every
 * pass leaves a = b + 3c. */
static void test_triad_passes(void)
{
    fake_clock_t f;
    mpiscope__noise_clock_t c = fake(&f, 1 * MS);
    mpiscope__probe_records_t r;
    double start, a[5] = {0}, b[5] = {1, 2, 3, 4, 5}, cc[5] = {1, 1, 1, 1, 2};
    CHECK_INT_EQ(mpiscope__probe_records_init(&r, 4096), 0);
    mpiscope__triad_run(&c, a, b, cc, 5, 1e9, &r, &start);
    CHECK_NEAR(start, 1 * MS, 0);
    long long longer = 0, total = 0;
    for (size_t k = 0; k < r.count; k++) {
        CHECK(r.value[k] == (long long)(1 * MS) || r.value[k] == (long long)(6 * MS));
        longer += r.value[k] > (long long)(1 * MS);
        total += r.value[k];
    }
    CHECK_INT_EQ(longer, 10); /* the passes that held a jump */
    CHECK(total >= (long long)1e9); /* it ran until the time was up... */
    CHECK(total < (long long)(1e9 + 6 * MS)); /* ...and stopped there */
    CHECK_NEAR(a[4], 11.0, 0);
    CHECK_NEAR(a[0], 4.0, 0);
    mpiscope__probe_records_free(&r);
}

int main(void)
{
    test_triad_passes();
    test_selfish_finds_the_jumps();
    test_selfish_counts_dropped();
    test_selfish_threshold();
    test_ftq_loses_the_jumps();
    test_fwq_shows_long_units();
    test_fwq_calibrate_real_clock();
    CHECK_DONE();
}
