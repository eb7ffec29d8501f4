/* test_check_firstcall.c: the machine check and the first-call measurement
 * as library calls, on one rank (MPI singleton): their records, their
 * documents read back, and every argument they refuse. No timing
 * thresholds: only what must hold on any machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "json_read.h"
#include "mpiscope/mpiscope.h"

/* The document at path, parsed (NULL on failure). */
static mpiscope__jv_t *read_document(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, 1 << 20);
    size_t n = f && text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    mpiscope__jv_t *doc = NULL;
    char err[160];
    if (n == 0 || mpiscope__json_parse(text, n, &doc, err, sizeof err) != 0)
        fprintf(stderr, "%s: %s\n", path, n ? err : "empty");
    free(text);
    return doc;
}

/* A document on a fresh context with one result call in it, read back. */
typedef int (*add_fn)(mpiscope_result_t *res, const void *what);

static mpiscope__jv_t *document(const char *path, add_fn add, const void *what, int twice_refused)
{
    mpiscope_context_t *ctx;
    mpiscope_result_t *res;
    CHECK_INT_EQ(mpiscope_context_create(MPI_COMM_WORLD, NULL, &ctx), 0);
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, MPISCOPE_RESULT_FORCE, &res), 0);
    CHECK_INT_EQ(add(res, what), 0);
    if (twice_refused)
        CHECK_INT_EQ(add(res, what), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_result_close(res, 0), 0);
    mpiscope_context_destroy(ctx);
    mpiscope__jv_t *doc = read_document(path);
    unlink(path);
    return doc;
}

static int add_check(mpiscope_result_t *res, const void *check)
{
    return mpiscope_result_add_check(res, check);
}

static int add_firstcall(mpiscope_result_t *res, const void *fc)
{
    return mpiscope_result_add_firstcall(res, fc);
}

/* A second check section would name the member twice: refused. */
static void test_check(void)
{
    mpiscope_check_t *c;
    CHECK_INT_EQ(mpiscope_check_run(MPI_COMM_WORLD, NULL, 0, 0, &c), 0);
    CHECK_INT_EQ(c->n_timers, MPISCOPE_CHECK_MAX_TIMERS);
    CHECK_INT_EQ(c->n_syncs, MPISCOPE_CHECK_MAX_SYNCS);
    CHECK_INT_EQ(c->timers[1].kind, MPISCOPE_TIMER_MONOTONIC);
    CHECK_INT_EQ(c->timers[1].available, 1); /* there is always a monotonic clock */
    CHECK_INT_EQ(c->timers[1].reads, 2000000);
    CHECK_INT_EQ(c->timers[1].monotonic_violations, 0);
    CHECK_INT_EQ(c->timers[1].n_waitpatterns, MPISCOPE_CHECK_MAX_WAITPATTERNS);
    CHECK(strcmp(c->timers[1].waitpatterns[2].op, "waitpattern_down") == 0);
    CHECK_NEAR(c->timers[1].waitpatterns[1].expected_ns, 1000, 0); /* one rank: 1 us */
    CHECK(c->timers[1].resolution_ns > 0 && isnan(c->timers[1].frequency_error_ppm));
    CHECK_INT_EQ(c->timers[3].available, 1); /* MPI_Wtime: MPI is initialized */
    for (size_t i = 0; i < c->n_timers; i++)
        CHECK(c->timers[i].available || c->timers[i].unavailable_error < 0);
    CHECK_INT_EQ(c->syncs[1].algorithm, MPISCOPE_SYNC_RING);
    CHECK(isnan(c->syncs[0].drift_ppm)); /* no wait: no drift */
    mpiscope__jv_t *doc = document("test_check_firstcall.check.json", add_check, c, 1);
    const mpiscope__jv_t *check = doc ? mpiscope__jv_get(doc, "check") : NULL;
    CHECK(check != NULL);
    if (check) {
        CHECK_INT_EQ(mpiscope__jv_get(check, "timers")->count, c->n_timers);
        CHECK_INT_EQ(mpiscope__jv_get(check, "sync")->count, c->n_syncs);
        CHECK_INT_EQ(mpiscope__jv_get(doc, "points")->count, 0);
    }
    mpiscope__jv_free(doc);
    mpiscope_check_free(c);
}

static void test_check_refuses(void)
{
    mpiscope_check_t *c = NULL;
    mpiscope_params_t p;
    mpiscope_params_default(&p);
    p.gamma = 5; /* 1 < gamma < 2 */
    CHECK_INT_EQ(mpiscope_check_run(MPI_COMM_WORLD, NULL, -1, 0, &c), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_check_run(MPI_COMM_WORLD, NULL, NAN, 0, &c), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_check_run(MPI_COMM_WORLD, NULL, 0, 1, &c), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_check_run(MPI_COMM_WORLD, NULL, 0, 0, NULL), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_check_run(MPI_COMM_WORLD, &p, 0, 0, &c), MPISCOPE_ERANGE);
    CHECK(c == NULL);
    CHECK_INT_EQ(mpiscope_result_add_check(NULL, NULL), MPISCOPE_EINVAL);
    mpiscope_check_free(NULL);
}

/* Two ops, one of them a reduction with its element type: a point each. */
static void test_firstcall(void)
{
    const mpiscope_op_t *ops[] = {mpiscope_op_find("bcast"), mpiscope_op_find("allreduce")};
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    spec.size_bytes = 4096;
    spec.dtype = "int";
    mpiscope_firstcall_t *fc;
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 2, &spec, &fc), 0);
    CHECK_INT_EQ(fc->n_ops, 2);
    CHECK_INT_EQ(fc->nprocs, 1);
    CHECK_INT_EQ(fc->size_bytes, 4096);
    CHECK(fc->ops[1] == ops[1]);
    for (int i = 0; i < 2; i++)
        CHECK(fc->first_ns[i] >= 0 && fc->second_ns[i] >= 0);
    mpiscope__jv_t *doc = document("test_check_firstcall.firstcall.json", add_firstcall, fc, 0);
    const mpiscope__jv_t *points = doc ? mpiscope__jv_get(doc, "points") : NULL;
    CHECK(points && points->count == 2);
    if (points && points->count == 2) {
        const mpiscope__jv_t *p = points->first->next;
        CHECK(strcmp(mpiscope__jv_get(p, "kind")->string, "firstcall") == 0);
        CHECK(strcmp(mpiscope__jv_get(p, "op")->string, "allreduce") == 0);
        CHECK_INT_EQ(mpiscope__jv_get(p, "size_bytes")->integer, 4096);
        CHECK_INT_EQ(mpiscope__jv_get(p, "first_ns")->count, 1);
        CHECK_INT_EQ(mpiscope__jv_get(doc, "warnings")->count, 1);
    }
    mpiscope__jv_free(doc);
    mpiscope_firstcall_free(fc);
}

static void test_firstcall_refuses(void)
{
    const mpiscope_op_t *ops[] = {mpiscope_op_find("bcast"), NULL};
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    mpiscope_firstcall_t *fc = NULL;
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 0, &spec, &fc), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 2, &spec, &fc), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, NULL, &fc), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, &spec, NULL), MPISCOPE_EINVAL);
    spec.validate = 1;
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, &spec, &fc), MPISCOPE_EINVAL);
    spec.validate = 0;
    spec.nprocs = 1;
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, &spec, &fc), MPISCOPE_EINVAL);
    spec.nprocs = 0;
    spec.root = 1; /* one rank */
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, &spec, &fc), MPISCOPE_ERANGE);
    spec.root = 0;
    spec.dtype = "no-such-type";
    const mpiscope_op_t *reduction[] = {mpiscope_op_find("allreduce")};
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, reduction, 1, &spec, &fc), MPISCOPE_EINVAL);
    CHECK(fc == NULL);
    CHECK_INT_EQ(mpiscope_result_add_firstcall(NULL, NULL), MPISCOPE_EINVAL);
    mpiscope_firstcall_free(NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_firstcall(); /* first: nothing has communicated yet */
    test_firstcall_refuses();
    test_check_refuses();
    test_check();
    MPI_Finalize();
    CHECK_DONE();
}
