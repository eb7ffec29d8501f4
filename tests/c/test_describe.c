/* test_describe.c: the describe document parses, lists every registered op
 * and method with its parameters, and the plan reader accepts and refuses
 * what the plan format says (docs/plan-format.md). */
#include <string.h>
#include "check.h"
#include "describe.h"
#include "method.h"
#include "mpiscope/alltoall.h"
#include "mpiscope/error.h"
#include "param_table.h"
#include "plan_spec.h"

static const mpiscope__jv_t *named(const mpiscope__jv_t *array, const char *name)
{
    for (const mpiscope__jv_t *item = array ? array->first : NULL; item; item = item->next)
        if (strcmp(mpiscope__jv_get(item, "name")->string, name) == 0)
            return item;
    return NULL;
}

static void test_describe(void)
{
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__describe(&j);
    mpiscope__jv_t *d;
    char err[160];
    CHECK_INT_EQ(mpiscope__json_parse(j.buf, j.len, &d, err, sizeof err), 0);
    mpiscope__json_free(&j);
    CHECK(strcmp(mpiscope__jv_get(d, "describe_version")->string, "1.0") == 0);
    const mpiscope__jv_t *ops = mpiscope__jv_get(d, "ops"), *methods = mpiscope__jv_get(d, "methods");
    CHECK_INT_EQ(ops->count, mpiscope_op_count());
    for (size_t i = 0; i < mpiscope_op_count(); i++) {
        const mpiscope_op_t *op = mpiscope_op_at(i);
        const mpiscope__jv_t *o = named(ops, op->name);
        CHECK(o != NULL);
        size_t n = 0;
        for (const mpiscope_op_option_t *opt = op->options; opt && opt->name; opt++, n++)
            CHECK(named(mpiscope__jv_get(o, "options"), opt->name) != NULL);
        CHECK_INT_EQ(mpiscope__jv_get(o, "options")->count, n);
        CHECK_INT_EQ(mpiscope__jv_get(o, "bandwidth")->boolean, (op->flags & MPISCOPE_OP_BANDWIDTH) != 0);
    }
    /* the Alltoall lab's algorithms, each measured by a registered op */
    const mpiscope__jv_t *algorithms = mpiscope__jv_get(d, "alltoall_algorithms");
    CHECK_INT_EQ(algorithms->count, mpiscope_alltoall_algorithm_count());
    for (size_t i = 0; i < mpiscope_alltoall_algorithm_count(); i++) {
        const mpiscope_alltoall_algorithm_t *a = mpiscope_alltoall_algorithm_at(i);
        const mpiscope__jv_t *ad = named(algorithms, a->name);
        CHECK(ad != NULL);
        CHECK(ad && strcmp(mpiscope__jv_get(ad, "op")->string, a->op_name) == 0);
        CHECK(ad && mpiscope__jv_get(ad, "leader_based")->boolean == a->leader_based);
        CHECK(named(ops, a->op_name) != NULL);
    }
    CHECK(mpiscope__jv_get(named(algorithms, "plp"), "leader_based")->boolean);
    CHECK(!mpiscope__jv_get(named(algorithms, "bruck"), "leader_based")->boolean);
    CHECK(mpiscope__jv_get(named(ops, "bcast"), "bandwidth")->boolean);
    CHECK(!mpiscope__jv_get(named(ops, "ibcast"), "bandwidth")->boolean);
    CHECK_INT_EQ(methods->count, mpiscope_method_count());
    for (size_t i = 0; i < mpiscope_method_count(); i++) {
        const mpiscope__method_t *m = mpiscope_method_at(i);
        const mpiscope__jv_t *md = named(methods, m->name);
        CHECK(md != NULL);
        CHECK_INT_EQ(mpiscope__jv_get(md, "scheduled")->boolean, m->scheduled);
        const mpiscope__jv_t *params = mpiscope__jv_get(md, "parameters");
        for (const char *const *p = m->parameters; *p; p++) {
            const mpiscope__jv_t *pd = named(params, *p);
            CHECK(pd != NULL);
            CHECK(pd && mpiscope__jv_get(pd, "default") && mpiscope__jv_get(pd, "unit"));
        }
    }
    const mpiscope__jv_t *supinski = mpiscope__jv_get(named(methods, "bcast-supinski"), "applies_to");
    CHECK(supinski->type == MPISCOPE__JV_ARRAY && supinski->count == 3); /* bcast, bcast_c, linear_bcast */
    CHECK(strcmp(supinski->first->string, "bcast") == 0);
    CHECK(strcmp(mpiscope__jv_get(named(methods, "window"), "applies_to")->string, "all") == 0);
    const mpiscope__jv_t *plan = mpiscope__jv_get(d, "plan_parameters");
    CHECK_INT_EQ(plan->count, mpiscope__plan_field_count());
    const mpiscope__jv_t *k = named(plan, "k");
    CHECK_NEAR(mpiscope__jv_get(k, "default")->number, 8, 0);
    CHECK_NEAR(mpiscope__jv_get(k, "max")->number, 64, 0);
    CHECK(named(mpiscope__jv_get(d, "timers"), "tsc") != NULL);
    CHECK(named(mpiscope__jv_get(d, "element_types"), "double") != NULL);
    CHECK(named(mpiscope__jv_get(d, "reductions"), "sum") != NULL);
    mpiscope__jv_free(d);
}

/* 0, or the error message. */
static int plan_from(const char *text, mpiscope__plan_t *p, char *err, size_t size)
{
    mpiscope__jv_t *doc;
    mpiscope__plan_default(p);
    int rc = mpiscope__json_parse(text, strlen(text), &doc, err, size);
    return rc ? rc : mpiscope__plan_from_json(p, doc, err, size);
}

static void refuse(const char *text, const char *message)
{
    mpiscope__plan_t p;
    char err[200] = "";
    CHECK(plan_from(text, &p, err, sizeof err) != 0);
    if (strcmp(err, message) != 0) {
        fprintf(stderr, "plan %s: got '%s', want '%s'\n", text, err, message);
        CHECK(0);
    }
    mpiscope__plan_free(&p);
}

static void test_plan(void)
{
    mpiscope__plan_t p;
    char err[200] = "";
    CHECK_INT_EQ(plan_from("{\"ops\":[\"bcast\",\"Reduce\"],\"sizes\":[0,8,1048576],\"methods\":[\"window\","
                           "\"bcast-supinski\"],\"k\":16,\"stop\":\"count\",\"op_options\":{\"window\":32},"
                           "\"arrival\":\"late:1:5\",\"cache\":[\"warm\",\"cold\"],\"out\":\"r.json\"}",
                           &p, err, sizeof err),
                 0);
    CHECK_INT_EQ(p.n_ops, 2);
    CHECK(p.op_handles[1] == mpiscope_op_find("reduce"));
    CHECK_INT_EQ(p.sizes[2], 1048576);
    CHECK(p.method_handles[1] == mpiscope_method_find("bcast-supinski"));
    CHECK_INT_EQ(p.params.k, 16);
    CHECK_INT_EQ(p.params.max_launches, 100); /* the count rule's default */
    CHECK(strcmp(p.opt_values[0], "32") == 0);
    CHECK_INT_EQ(p.arrival.kind, MPISCOPE__ARRIVAL_LATE);
    CHECK_INT_EQ(p.caches[0], 0);
    CHECK_INT_EQ(p.params.cache_cold, 0);
    mpiscope__plan_free(&p);
    refuse("{\"ops\":[\"bcast\"],\"sizes\":[1,2,-3],\"out\":\"x\"}",
           "plan field 'sizes[2]': must be an integer in [0, 1e+15]");
    refuse("{\"ops\":[\"bcast\"],\"sizes\":[1.5],\"out\":\"x\"}",
           "plan field 'sizes[0]': must be an integer in [0, 1e+15]");
    refuse("{\"ops\":[\"nope\"],\"out\":\"x\"}", "plan field 'ops[0]': unknown operation 'nope'");
    refuse("{\"ops\":\"bcast\",\"out\":\"x\"}", "plan field 'ops': must be an array, not a string");
    refuse("{\"ops\":[\"bcast\"],\"out\":\"x\",\"gamma\":2}", "plan field 'gamma': must be a number in (1, 2)");
    refuse("{\"ops\":[\"bcast\"],\"out\":\"x\",\"timer\":\"sundial\"}",
           "plan field 'timer': must be one of auto, tsc, monotonic, gettimeofday, wtime");
    refuse("{\"ops\":[\"bcast\"],\"out\":\"x\",\"methods\":[\"window\",\"psychic\"]}",
           "plan field 'methods[1]': unknown method 'psychic'");
    refuse("{\"ops\":[\"bcast\"],\"out\":\"x\",\"op_options\":{\"w\":[1]}}",
           "plan field 'op_options.w': must be a string, a number or a boolean, not an array");
    refuse("{\"ops\":[\"bcast\"],\"out\":\"x\",\"arrival\":\"late:x\"}",
           "plan field 'arrival': 'late:x' is not none|late:RANK:US|linear:US|random:US[:SEED] (US at most 1e7)");
    refuse("{\"ops\":[\"bcast\"],\"out\":\"x\",\"color\":1}", "plan field 'color': unknown field");
    refuse("{\"ops\":[\"bcast\"]}", "plan field 'out': required");
    refuse("[]", "a plan is a JSON object");
}

int main(void)
{
    test_describe();
    test_plan();
    CHECK_DONE();
}
