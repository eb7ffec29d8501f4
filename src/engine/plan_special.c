/* plan_special.c: the plans that are not a list of points: the machine
 * check, its document written after each part, and the first-call
 * measurement, followed by its document. */
#include <stdio.h>
#include "mpiscope/check.h"
#include "mpiscope/error.h"
#include "mpiscope/firstcall.h"
#include "mpiscope/result.h"
#include "check_json.h"
#include "check_run.h"
#include "plan_spec.h"
#include "result_internal.h"

/* The document, on a context of its own: its clock sync and timer are the
 * run's ordinary ones. */
typedef struct {
    MPI_Comm comm;
    const mpiscope__plan_t *plan;
    mpiscope_context_t *ctx;
    mpiscope_result_t *res;
} document_t;

static int open_document(document_t *d)
{
    int err = mpiscope_context_create(d->comm, &d->plan->params, &d->ctx);
    if (err)
        return err;
    err = mpiscope_result_open(d->ctx, d->plan->out, d->plan->force ? MPISCOPE_RESULT_FORCE : 0, &d->res);
    for (int i = 0; !err && i < d->plan->n_meta; i++)
        mpiscope_result_set_meta(d->res, d->plan->meta_keys[i], d->plan->meta_values[i]);
    return err;
}

/* Close what open_document() made: status "failed" when err, which it
 * returns (else the close's error). */
static int close_document(document_t *d, int err)
{
    if (d->res) {
        int close_err = mpiscope_result_close(d->res, err != 0);
        err = err ? err : close_err;
    }
    if (d->ctx)
        mpiscope_context_destroy(d->ctx);
    return err;
}

/* After each part of the check: the document with the check so far. It is
 * opened after the first part (a timer), when MPI is warm already. */
static int write_check(const mpiscope_check_t *sofar, void *user)
{
    document_t *d = user;
    int err = d->res ? 0 : open_document(d);
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__check_json(sofar, &j);
    if (!err)
        err = j.failed ? MPISCOPE_ENOMEM : mpiscope__result_update_section(d->res, "check", j.buf);
    mpiscope__json_free(&j);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, d->comm);
    return err ? err : mpiscope__result_write(d->res);
}

int mpiscope__plan_run_check(MPI_Comm comm, const mpiscope__plan_t *p, char *err, size_t err_size)
{
    document_t d = {.comm = comm, .plan = p};
    mpiscope_check_t *check = NULL;
    int rc = mpiscope__check_run_parts(comm, &p->params, p->drift_seconds, write_check, &d, &check);
    rc = close_document(&d, rc);
    mpiscope_check_free(check);
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
    if (!rc) { /* the document after: a context made before would warm the first calls */
        document_t d = {.comm = comm, .plan = p};
        rc = open_document(&d);
        if (!rc)
            rc = mpiscope_result_add_firstcall(d.res, fc);
        rc = close_document(&d, rc);
        mpiscope_firstcall_free(fc);
    }
    if (rc)
        snprintf(err, err_size, "first-call measurement: %s", mpiscope_strerror(rc));
    return rc;
}
