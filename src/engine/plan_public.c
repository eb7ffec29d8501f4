/* plan_public.c: the plan's public lifecycle (mpiscope/plan.h): read from
 * JSON text, a file or field texts, one boolean read back, freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "environment.h"
#include "mpiscope/timer.h"
#include "plan_spec.h"

/* The plan, or NULL with err set; err may be NULL. */
static mpiscope_plan_t *new_plan(unsigned flags, mpiscope_plan_t **out, char *err, size_t err_size)
{
    if (err && err_size)
        err[0] = '\0';
    if (!out)
        return NULL;
    *out = NULL;
    if (flags) {
        if (err)
            snprintf(err, err_size, "plan: flags must be 0");
        return NULL;
    }
    mpiscope_plan_t *p = malloc(sizeof *p);
    if (p)
        mpiscope__plan_default(p);
    else if (err)
        snprintf(err, err_size, "out of memory");
    return p;
}

/* Keep p in *out on success, else free it. */
static int finish(mpiscope_plan_t *p, int rc, mpiscope_plan_t **out)
{
    if (rc) {
        mpiscope_plan_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* A local buffer for callers that pass no err. */
#define ERR_BUFFER(err, err_size, local)                                                                               \
    char local[320];                                                                                                   \
    if (!(err) || !(err_size)) {                                                                                       \
        (err) = local;                                                                                                 \
        (err_size) = sizeof local;                                                                                     \
    }

int mpiscope_plan_from_json_text(const char *text, size_t len, unsigned flags, mpiscope_plan_t **out, char *err,
                                 size_t err_size)
{
    ERR_BUFFER(err, err_size, local)
    mpiscope_plan_t *p = text ? new_plan(flags, out, err, err_size) : NULL;
    if (!p)
        return text && out && !flags ? MPISCOPE_ENOMEM : MPISCOPE_EINVAL;
    mpiscope__jv_t *doc;
    int rc = mpiscope__json_parse(text, len, &doc, err, err_size);
    if (!rc)
        rc = mpiscope__plan_from_json(p, doc, err, err_size);
    return finish(p, rc, out);
}

int mpiscope_plan_read_file(const char *path, unsigned flags, mpiscope_plan_t **out, char *err, size_t err_size)
{
    ERR_BUFFER(err, err_size, local)
    mpiscope_plan_t *p = path ? new_plan(flags, out, err, err_size) : NULL;
    if (!p)
        return path && out && !flags ? MPISCOPE_ENOMEM : MPISCOPE_EINVAL;
    return finish(p, mpiscope__plan_read_file(p, path, err, err_size), out);
}

int mpiscope_plan_from_fields(const char *const *names, const char *const *values, size_t n_fields, unsigned flags,
                              mpiscope_plan_t **out, char *err, size_t err_size)
{
    ERR_BUFFER(err, err_size, local)
    if (n_fields && (!names || !values)) {
        if (out)
            *out = NULL;
        return MPISCOPE_EINVAL;
    }
    char *json;
    size_t len;
    int rc = mpiscope__plan_json_from_fields(names, values, n_fields, &json, &len, err, err_size);
    if (rc) {
        if (out)
            *out = NULL;
        return rc;
    }
    rc = mpiscope_plan_from_json_text(json, len, flags, out, err, err_size);
    free(json);
    return rc;
}

int mpiscope_plan_get_bool(const mpiscope_plan_t *p, const char *field, int *value)
{
    const int *flag = p && value ? mpiscope__plan_bool((mpiscope_plan_t *)p, field) : NULL;
    if (!flag)
        return MPISCOPE_EINVAL;
    *value = *flag;
    return 0;
}

int mpiscope_plan_start(const mpiscope_plan_t *p, mpiscope_plan_start_t *out)
{
    if (!p || !out)
        return MPISCOPE_EINVAL;
    int threads = 0;
    for (int i = 0; i < p->n_ops; i++)
        threads |= (p->op_handles[i]->flags & MPISCOPE_OP_THREADS) != 0;
    int given = p->thread_level && p->thread_level[0] ? mpiscope__thread_level_parse(p->thread_level) : -1;
    *out = (mpiscope_plan_start_t){
        .startup = p->startup && p->startup[0],
        .init_thread = given >= 0 || threads,
        .level = given >= 0 ? given
                 : threads  ? MPI_THREAD_MULTIPLE
                            : MPI_THREAD_SINGLE,
    };
    if (out->startup)
        out->init_thread = strcmp(p->startup, "init_thread") == 0;
    return 0;
}

int mpiscope_plan_check(const mpiscope_plan_t *p, int nprocs, char *err, size_t err_size)
{
    char why[256] = "";
    int rc = !p || nprocs < 1 ? MPISCOPE_EINVAL
                              : mpiscope_clock_transform_check(p->params.sync.clock_transform, nprocs, why, sizeof why);
    if (rc && err && err_size)
        snprintf(err, err_size, "plan field 'clock_transform': %s", why[0] ? why : "bad arguments");
    return rc;
}

void mpiscope_plan_free(mpiscope_plan_t *p)
{
    if (!p)
        return;
    mpiscope__plan_free(p);
    free(p);
}
