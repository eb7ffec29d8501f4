/* plan_special.c: the plans that are not a list of points: the machine
 * check and the first-call measurement, each followed by its document. */
#include <stdio.h>
#include "mpiscope/check.h"
#include "mpiscope/error.h"
#include "mpiscope/firstcall.h"
#include "mpiscope/result.h"
#include "plan_spec.h"

/* The document on a context made after the measurement: its clock sync
 * and timer are the run's ordinary ones and warm nothing up. */
static int write_document(MPI_Comm comm, const mpiscope__plan_t *p, const mpiscope_check_t *check,
                          const mpiscope_firstcall_t *fc)
{
    mpiscope_context_t *ctx;
    int err = mpiscope_context_create(comm, &p->params, &ctx);
    if (err)
        return err;
    mpiscope_result_t *res;
    err = mpiscope_result_open(ctx, p->out, p->force ? MPISCOPE_RESULT_FORCE : 0, &res);
    if (!err) {
        for (int i = 0; i < p->n_meta; i++)
            mpiscope_result_set_meta(res, p->meta_keys[i], p->meta_values[i]);
        err = check ? mpiscope_result_add_check(res, check) : mpiscope_result_add_firstcall(res, fc);
        int close_err = mpiscope_result_close(res, err != 0);
        err = err ? err : close_err;
    }
    mpiscope_context_destroy(ctx);
    return err;
}

int mpiscope__plan_run_check(MPI_Comm comm, const mpiscope__plan_t *p, char *err, size_t err_size)
{
    mpiscope_check_t *check;
    int rc = mpiscope_check_run(comm, &p->params, p->drift_seconds, 0, &check);
    if (!rc) {
        rc = write_document(comm, p, check, NULL);
        mpiscope_check_free(check);
    }
    if (rc)
        snprintf(err, err_size, "machine check: %s", mpiscope_strerror(rc));
    return rc;
}

int mpiscope__plan_run_firstcall(MPI_Comm comm, const mpiscope__plan_t *p, char *err, size_t err_size)
{
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    spec.size_bytes = p->sizes[0];
    spec.root = p->root;
    spec.dtype = p->dtype;
    spec.reduce_op = p->reduce_op;
    spec.option_names = p->opt_names;
    spec.option_values = p->opt_values;
    spec.n_options = (size_t)p->n_opts;
    mpiscope_firstcall_t *fc;
    int rc = mpiscope_firstcall_run(comm, &p->params, p->op_handles, (size_t)p->n_ops, &spec, &fc);
    if (!rc) {
        rc = write_document(comm, p, NULL, fc);
        mpiscope_firstcall_free(fc);
    }
    if (rc)
        snprintf(err, err_size, "first-call measurement: %s", mpiscope_strerror(rc));
    return rc;
}
