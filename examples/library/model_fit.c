/* model_fit.c: a communication model inside an application (the MPIBlib
 * form, mpiscope/model.h). The program measures its own ping-pong between
 * ranks 0 and 1 with plain MPI, fits a piecewise Hockney model to the
 * one-way times, sets the reduction cost gamma from MPI_Reduce_local, and
 * prints T(s), predictions of collectives at a larger scale, and MPI_Bcast
 * measured by libmpiscope on this communicator next to its prediction.
 *
 *   mpiexec -n 2 ./model_fit [NPROCS]     (NPROCS: the scale predicted, default 64)
 *
 * Only the measurements are collective; fitting and predicting need no MPI. */
#include <mpiscope/mpiscope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_SIZES = 23, REPS = 100, TAG = 7 };

/* Rank 0's minimum round trip over REPS, halved: the one-way time in ns. */
static double one_way_ns(char *buf, int bytes, int rank)
{
    double best = 1e300;

    for (int r = 0; r < REPS; r++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best / 2 * 1e9;
}

/* MPI_Bcast from rank 0 measured by libmpiscope (synchronized windows; the
 * time of a launch is the slowest rank's): the median, in ns. Collective. */
static int bcast_ns(mpiscope_context_t *ctx, size_t bytes, double *median_ns)
{
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    mpiscope_point_result_t r;
    int err;

    spec.size_bytes = bytes;
    if ((err = mpiscope_context_measure(ctx, mpiscope_op_find("bcast"), &spec, &r)) == 0)
        *median_ns = r.stats.median; /* NAN if no launch was valid (a loaded machine) */
    return err;
}

/* gamma: the minimum time of MPI_Reduce_local (double, sum) per byte. */
static double gamma_ns_per_byte(double *a, double *b, int count)
{
    double best = 1e300;

    for (int r = 0; r < REPS; r++) {
        double t0 = MPI_Wtime();
        MPI_Reduce_local(a, b, count, MPI_DOUBLE, MPI_SUM);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best * 1e9 / ((double)count * sizeof(double));
}

static void print_model(const mpiscope_model_t *m)
{
    mpiscope_hockney_segment_t seg;

    printf("Hockney fit, %zu segment(s) (automatic count, every point within 5%% if possible):\n",
           mpiscope_model_segment_count(m));
    for (size_t i = 0; mpiscope_model_segment(m, i, &seg) == 0; i++) {
        printf("  %8zu B .. ", seg.from_bytes);
        if (seg.to_bytes == MPISCOPE_MODEL_NO_LIMIT)
            printf("%-9s", "");
        else
            printf("%7zu B", seg.to_bytes);
        printf("  alpha %8.3f us  beta %.4f ns/B  %2zu points  max error %4.1f%%\n", seg.alpha_ns / 1e3,
               seg.beta_ns_per_byte, seg.points, 100 * seg.max_rel_error);
    }
    printf("gamma (MPI_Reduce_local, double sum) %.4f ns/B\n", mpiscope_model_gamma(m));
}

enum { EVERY = 4 }; /* MPI_Bcast is measured at every 4th size */

/* Rank 0's report; returns an mpiscope error code. */
static int report(const mpiscope_model_t *m, const size_t *sizes, const double *one_way, int nprocs, int world,
                  const double *bcast)
{
    static const size_t query[] = {8, 1024, 65536, 1048576};
    static const char *const names[] = {"bcast:binomial", "bcast:linear", "allreduce:rabenseifner",
                                        "allreduce:recursive_doubling", "alltoall:pairwise"};
    double t;
    int err;

    print_model(m);
    printf("T(s): ");
    for (size_t i = 0; i < sizeof query / sizeof *query; i++) {
        if ((err = mpiscope_model_time(m, (double)query[i], &t)) != 0)
            return err;
        printf("%s%zu B %.3f us", i ? ", " : "", query[i], t / 1e3);
    }
    printf("\npredicted at %d processes (us):\n  %-28s", nprocs, "size");
    for (size_t i = 0; i < sizeof query / sizeof *query; i++)
        printf(" %10zu B", query[i]);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        printf("\n  %-28s", names[k]);
        for (size_t i = 0; i < sizeof query / sizeof *query; i++) {
            if ((err = mpiscope_model_predict(m, names[k], nprocs, (double)query[i], &t)) != 0)
                return err;
            printf(" %12.2f", t / 1e3);
        }
    }
    printf("\nMPI_Bcast on these %d ranks, measured by libmpiscope (median) vs bcast:binomial:\n", world);
    for (size_t i = 0; i < N_SIZES; i += EVERY) {
        if ((err = mpiscope_model_predict(m, "bcast:binomial", world, (double)sizes[i], &t)) != 0)
            return err;
        printf("  %8zu B  measured %9.3f us  predicted %9.3f us  (own ping-pong, one way %9.3f us)\n", sizes[i],
               bcast[i / EVERY] / 1e3, t / 1e3, one_way[i] / 1e3);
    }
    return 0;
}

/* MPI_Bcast at every EVERY-th size with libmpiscope. Collective. */
static int measure_bcasts(const size_t *sizes, double *bcast)
{
    mpiscope_params_t params;
    mpiscope_context_t *ctx;
    int err;

    mpiscope_params_default(&params);
    params.target_rse = 0.05;       /* stop at 5% relative standard error ... */
    params.min_valid = 10;          /* ... with at least 10 valid launches ... */
    params.max_launches = 100;      /* ... and at most 100 launches, */
    params.max_point_seconds = 3.0; /* 3 s a size (a loaded machine) */
    if ((err = mpiscope_context_create(MPI_COMM_WORLD, &params, &ctx)) != 0)
        return err;
    for (size_t i = 0; !err && i < N_SIZES; i += EVERY)
        err = bcast_ns(ctx, sizes[i], &bcast[i / EVERY]);
    mpiscope_context_destroy(ctx);
    return err;
}

int main(int argc, char **argv)
{
    size_t sizes[N_SIZES];
    double one_way[N_SIZES], bcast[N_SIZES / EVERY + 1], gamma;
    int rank, world, nprocs = argc > 1 ? atoi(argv[1]) : 64, err, count = 1 << 17;
    char *buf = malloc((size_t)1 << 22);
    double *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    mpiscope_model_t *model = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (world < 2 || nprocs < 1 || !buf || !a || !b) {
        if (rank == 0)
            fprintf(stderr, "model_fit: error: %s\n",
                    world < 2    ? "needs 2 ranks at least"
                    : nprocs < 1 ? "bad NPROCS"
                                 : "out of memory");
        MPI_Finalize();
        return 1;
    }
    memset(buf, 1, (size_t)1 << 22);
    for (int i = 0; i < count; i++)
        a[i] = b[i] = 1.0;
    for (int i = 0; i < N_SIZES; i++) { /* 0 B, then 1 B .. 2 MiB, doubling */
        sizes[i] = i ? (size_t)1 << (i - 1) : 0;
        one_way[i] = one_way_ns(buf, (int)sizes[i], rank);
    }
    err = measure_bcasts(sizes, bcast);
    if (rank == 0 && !err) {
        gamma = gamma_ns_per_byte(a, b, count);
        /* fit and query: no MPI, not collective */
        if ((err = mpiscope_model_fit_hockney(sizes, one_way, N_SIZES, NULL, &model)) == 0
            && (err = mpiscope_model_set_gamma(model, gamma)) == 0) {
            printf("model_fit: ping-pong between ranks 0 and 1, %d sizes, one-way time = min of %d round "
                   "trips / 2\n",
                   N_SIZES, REPS);
            err = report(model, sizes, one_way, nprocs, world, bcast);
        }
        mpiscope_model_destroy(model);
    }
    if (rank == 0 && err)
        fprintf(stderr, "model_fit: error: %s\n", mpiscope_strerror(err));
    free(buf);
    free(a);
    free(b);
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return err ? 1 : 0;
}
