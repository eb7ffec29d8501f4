/* sync_truth.c: every clock sync algorithm against a known truth on real
 * ranks. Each rank's timer gets an injected offset and drift (and rank 1 a
 * jitter); every algorithm must recover every rank's offset and drift
 * within the bound it reports. Without a transform, the ranks of this one
 * node share a clock: verified, offset 0, only the leader syncs.
 * Rank 0 prints one line per case; the exit status is 1 on any failure.
 * Run: mpiexec -n 2 ./sync_truth   (any number of ranks on one node) */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/sync.h"
#include "mpiscope/timer.h"
#include "clock_setup.h"

static int failures;

static void expect(int rank, int ok, const char *what, const char *name)
{
    if (rank == 0) {
        printf("%-6s %-60s %s\n", name, what, ok ? "ok" : "FAILED");
        failures += !ok;
    }
}

static void one_algorithm(MPI_Comm comm, mpiscope_sync_params_t *p, int rank, int n)
{
    const char *name = mpiscope_sync_algorithm_name(p->algorithm);
    mpiscope_clock_sync_t *s = NULL;
    int err = mpiscope_clock_sync_run(comm, p, &s);
    expect(rank, err == 0, "runs", name);
    if (err)
        return;
    expect(rank, s->transformed && !s->node_shared, "the transform separates the node's clocks", name);
    expect(rank, mpiscope_clock_sync_recovered(s) == 1, "offsets and drift within their reported bounds", name);
    int hops_ok = 1;
    for (int i = 1; rank == 0 && i < n; i++) {
        int want = p->algorithm == MPISCOPE_SYNC_LINEAR ? 1
                   : p->algorithm == MPISCOPE_SYNC_RING ? i
                                                        : __builtin_popcount(i);
        hops_ok &= s->hops[i] == want && s->drift_errors_ppm[i] >= 0;
        if (fabs(s->offsets_ns[i] - s->true_offsets_ns[i]) > s->errors_ns[i])
            printf("  rank %d: offset %.1f, true %.1f, bound %.1f ns\n", i, s->offsets_ns[i], s->true_offsets_ns[i],
                   s->errors_ns[i]);
        if (fabs(s->drifts_ppm[i] - s->true_drifts_ppm[i]) > s->drift_errors_ppm[i])
            printf("  rank %d: drift %.3f, true %.3f, bound %.3f ppm\n", i, s->drifts_ppm[i], s->true_drifts_ppm[i],
                   s->drift_errors_ppm[i]);
    }
    expect(rank, hops_ok, "hops: linear 1, ring i, tree popcount(i); drift fitted", name);
    double g = mpiscope_clock_sync_global_ns(s, 12345.0);
    expect(rank, fabs(mpiscope_clock_sync_local_ns(s, g) - 12345.0) < 1e-6, "global and back", name);
    mpiscope_clock_sync_free(s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    mpiscope_sync_params_t p;
    mpiscope_sync_params_default(&p);
    p.patience = 30;
    p.fitpoints = 3;
    p.fit_gap_ns = 2e7;
    char why[200] = "";
    /* one node, untouched: the leader's clock is everybody's */
    int err = mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0);
    err = err ? err : mpiscope__clock_setup(MPI_COMM_WORLD, &p, why, sizeof why);
    mpiscope_clock_sync_t *s = NULL;
    err = err ? err : mpiscope_clock_sync_run(MPI_COMM_WORLD, &p, &s);
    expect(rank, err == 0, "runs", "node");
    if (!err) {
        int zero = 1;
        for (int i = 0; rank == 0 && i < n; i++)
            zero &= s->offsets_ns[i] == 0 && s->drifts_ppm[i] == 0 && s->hops[i] == 0;
        expect(rank, s->node_shared && s->nodes == 1 && zero, "one node, one clock: offset 0, verified once", "node");
        mpiscope_clock_sync_free(s);
    }
    snprintf(p.clock_transform, sizeof p.clock_transform,
             "random:seed=5,offset=2e6,drift=80;0:offset=1e5,drift=-15;1:jitter=30");
    err = mpiscope__clock_setup(MPI_COMM_WORLD, &p, why, sizeof why);
    expect(rank, err == 0, why[0] ? why : "transform set", "setup");
    for (int a = 0; !err && a < MPISCOPE_SYNC_COUNT; a++) {
        p.algorithm = (mpiscope_sync_algorithm_t)a;
        one_algorithm(MPI_COMM_WORLD, &p, rank, n);
    }
    snprintf(p.clock_transform, sizeof p.clock_transform, "all:bogus=1");
    expect(rank, mpiscope__clock_setup(MPI_COMM_WORLD, &p, why, sizeof why) == MPISCOPE_EINVAL,
           "a bad spec is refused on every rank", "setup");
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
