/* check.c: `mpiscope-bench --check`: the engine's machine check
 * (mpiscope/check.h), then a document with its "check" section. */
#include "mpiscope/mpiscope.h"
#include "check.h"

/* The document on a context made after the check: its clock sync and
 * timer are then the run's ordinary ones. */
static int write_result(const bench_options_t *o, const mpiscope_check_t *check)
{
    mpiscope_context_t *ctx;
    int err = mpiscope_context_create(MPI_COMM_WORLD, &o->params, &ctx);
    if (err)
        return err;
    mpiscope_result_t *res;
    err = mpiscope_result_open(ctx, o->out, o->force ? MPISCOPE_RESULT_FORCE : 0, &res);
    if (!err) {
        for (int i = 0; i < o->n_meta; i++)
            mpiscope_result_set_meta(res, o->meta_keys[i], o->meta_values[i]);
        err = mpiscope_result_add_check(res, check);
        int close_err = mpiscope_result_close(res, err != 0);
        err = err ? err : close_err;
    }
    mpiscope_context_destroy(ctx);
    return err;
}

int bench_check(const bench_options_t *o)
{
    mpiscope_check_t *check;
    int err = mpiscope_check_run(MPI_COMM_WORLD, &o->params, o->drift_seconds, 0, &check);
    if (err)
        return err;
    err = write_result(o, check);
    mpiscope_check_free(check);
    return err;
}
