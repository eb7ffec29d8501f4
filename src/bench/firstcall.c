/* firstcall.c: `mpiscope-bench --firstcall`: the engine's first-call
 * measurement (mpiscope/firstcall.h) of the plan's ops at its first size,
 * then the document. */
#include "mpiscope/mpiscope.h"
#include "firstcall.h"

/* The document: a context for the environment (its clock sync comes
 * after every measurement, so it cannot warm anything up). */
static int write_result(const bench_options_t *o, const mpiscope_firstcall_t *fc)
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
        err = mpiscope_result_add_firstcall(res, fc);
        int close_err = mpiscope_result_close(res, err != 0);
        err = err ? err : close_err;
    }
    mpiscope_context_destroy(ctx);
    return err;
}

int bench_firstcall(const bench_options_t *o, const mpiscope_op_t *const *ops)
{
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    spec.size_bytes = o->sizes[0];
    spec.root = o->root;
    spec.dtype = o->dtype;
    spec.reduce_op = o->reduce_op;
    spec.option_names = o->opt_names;
    spec.option_values = o->opt_values;
    spec.n_options = (size_t)o->n_opts;
    mpiscope_firstcall_t *fc;
    int err = mpiscope_firstcall_run(MPI_COMM_WORLD, &o->params, ops, (size_t)o->n_ops, &spec, &fc);
    if (err)
        return err;
    err = write_result(o, fc);
    mpiscope_firstcall_free(fc);
    return err;
}
