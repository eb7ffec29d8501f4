/* example.h: the part both library examples share: measure a list of
 * operations, user-defined or built-in, at a few sizes with libmpiscope and
 * write the result document that `mpiscope report` opens.
 *
 *   mpiexec -n 2 ./EXAMPLE [--validate] [RESULT.json]
 */
#ifndef MPISCOPE_EXAMPLE_H
#define MPISCOPE_EXAMPLE_H

#include <mpiscope/mpiscope.h>

#include <stdio.h>
#include <string.h>

/* Measure op at size_bytes (collective), write the point, print a line on rank 0. */
static int example_measure(mpiscope_context_t *ctx, mpiscope_result_t *res, const mpiscope_op_t *op, size_t size_bytes,
                           int validate, int rank)
{
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    mpiscope_point_result_t r;
    int err;

    spec.size_bytes = size_bytes;
    spec.validate = validate; /* run op->validate around every launch */
    if ((err = mpiscope_context_measure(ctx, op, &spec, &r)) != 0
        || (err = mpiscope_result_add_point(res, op, &spec, &r)) != 0)
        return err;
    if (rank == 0) /* the statistics are complete on every rank */
        printf("%-18s %8zu B  mean %9.3f us  95%% CI [%.3f, %.3f] us  %zu launches, %zu valid%s\n", op->name,
               size_bytes, r.stats.mean / 1e3, r.stats.ci_low / 1e3, r.stats.ci_high / 1e3, r.launches_total,
               r.stats.n_valid, r.validation_failures ? "  VALIDATION FAILED" : "");
    return r.validation_failures ? MPISCOPE_EVALIDATE : 0;
}

/* The whole program around n_ops operations, over `sizes`. */
static int example_main(int argc, char **argv, const char *name, const mpiscope_op_t *const *ops, size_t n_ops)
{
    static const size_t sizes[] = {0, 1024, 65536};
    char out[256];
    mpiscope_params_t params;
    mpiscope_context_t *ctx;
    mpiscope_result_t *res;
    int rank, validate = 0, err;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(out, sizeof out, "%s.json", name);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--validate") == 0)
            validate = 1;
        else
            snprintf(out, sizeof out, "%s", argv[i]);
    }
    mpiscope_params_default(&params);
    params.confidence = 0.95;  /* the interval's level */
    params.target_rse = 0.05;  /* stop at 5% relative standard error ... */
    params.min_valid = 10;     /* ... with at least 10 valid launches ... */
    params.max_launches = 200; /* ... and at most 200 launches */
    if ((err = mpiscope_context_create(MPI_COMM_WORLD, &params, &ctx)) != 0) { /* collective */
        if (rank == 0)
            fprintf(stderr, "%s: %s\n", name, mpiscope_strerror(err));
        MPI_Finalize();
        return 1;
    }
    if ((err = mpiscope_result_open(ctx, out, MPISCOPE_RESULT_FORCE, &res)) == 0) {
        mpiscope_result_set_meta(res, "command_line", name);
        for (size_t i = 0; !err && i < sizeof sizes / sizeof *sizes; i++)
            for (size_t k = 0; !err && k < n_ops; k++)
                err = example_measure(ctx, res, ops[k], sizes[i], validate, rank);
        int close_err = mpiscope_result_close(res, err != 0); /* collective; frees res */
        err = err ? err : close_err;
    }
    mpiscope_context_destroy(ctx);
    if (rank == 0)
        printf(err ? "%s: %s\n" : "%s: result %s\n", name, err ? mpiscope_strerror(err) : out);
    MPI_Finalize();
    return err ? 1 : 0;
}

#endif
