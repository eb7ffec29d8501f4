/* test_plan.c: the public plan reader (mpiscope/plan.h): the same plan
 * from JSON text and from field texts, its errors (one line naming the
 * field), the object form of "arrival", element kinds and reductions, and
 * the points a plan expands to. No MPI run needed. */
#include <string.h>
#include "check.h"
#include "mpiscope/error.h"
#include "mpiscope/plan.h"
#include "opctx.h"
#include "plan_spec.h"

static mpiscope_plan_t *from_text(const char *text, char *err, size_t size)
{
    mpiscope_plan_t *p = NULL;
    int rc = mpiscope_plan_from_json_text(text, strlen(text), 0, &p, err, size);
    CHECK(rc == 0 ? p != NULL : p == NULL);
    return p;
}

static void refuse(const char *text, const char *message)
{
    char err[200] = "";
    mpiscope_plan_t *p = (mpiscope_plan_t *)1;
    CHECK_INT_EQ(mpiscope_plan_from_json_text(text, strlen(text), 0, &p, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(p == NULL);
    if (strcmp(err, message) != 0) {
        fprintf(stderr, "plan %s: got '%s', want '%s'\n", text, err, message);
        CHECK(0);
    }
}

static void test_fields_equal_text(void)
{
    const char *names[] = {"ops",       "sizes",      "method", "cache", "k",       "max-launches", "root",  "dtype",
                           "reduce_op", "op_options", "meta",   "meta",  "shuffle", "out",          "force", "arrival"};
    const char *values[] = {"bcast,barrier,allreduce",
                            "8,1024",
                            "window,bcast-supinski",
                            "warm,cold",
                            "8",
                            "40",
                            "1",
                            "int",
                            "max",
                            "datatype=bytes",
                            "origin=x",
                            "origin=test",
                            "7",
                            "r.json",
                            NULL,
                            "late:1:50"};
    char err[200] = "";
    mpiscope_plan_t *a = NULL;
    CHECK(mpiscope_plan_from_fields(names, values, 16, 0, &a, err, sizeof err) != 0); /* "method" is a flag */
    names[2] = "methods";
    CHECK_INT_EQ(mpiscope_plan_from_fields(names, values, 16, 0, &a, err, sizeof err), 0);
    mpiscope_plan_t *b = from_text("{\"ops\":[\"bcast\",\"barrier\",\"allreduce\"],\"sizes\":[8,1024],"
                                   "\"methods\":[\"window\",\"bcast-supinski\"],\"cache\":[\"warm\",\"cold\"],"
                                   "\"k\":8,\"max_launches\":40,\"root\":1,\"dtype\":\"int\",\"reduce_op\":\"max\","
                                   "\"op_options\":{\"datatype\":\"bytes\"},\"meta\":{\"origin\":\"test\"},"
                                   "\"shuffle\":7,\"out\":\"r.json\",\"force\":true,"
                                   "\"arrival\":{\"kind\":\"late\",\"rank\":1,\"us\":50}}",
                                   err, sizeof err);
    CHECK(a && b);
    if (!a || !b)
        return;
    CHECK_INT_EQ(a->n_ops, b->n_ops);
    CHECK(a->op_handles[2] == b->op_handles[2]);
    CHECK_INT_EQ(a->sizes[1], b->sizes[1]);
    CHECK(a->method_handles[1] == b->method_handles[1]);
    CHECK_INT_EQ(a->caches[0], 0);
    CHECK_INT_EQ(a->params.k, b->params.k);
    CHECK_INT_EQ(a->params.max_launches, 40);
    CHECK_INT_EQ(a->n_meta, 1);
    CHECK(strcmp(a->meta_values[0], "test") == 0 && strcmp(b->meta_values[0], "test") == 0);
    CHECK(strcmp(a->opt_values[0], "bytes") == 0);
    CHECK_INT_EQ(a->shuffle_seed, 7);
    CHECK_INT_EQ(a->arrival.kind, b->arrival.kind);
    CHECK_INT_EQ(a->arrival.rank, 1);
    CHECK_NEAR(b->arrival.us, 50, 0);
    int force = 0, check = 1;
    CHECK_INT_EQ(mpiscope_plan_get_bool(a, "force", &force), 0);
    CHECK_INT_EQ(mpiscope_plan_get_bool(b, "check", &check), 0);
    CHECK(force == 1 && check == 0);
    CHECK_INT_EQ(mpiscope_plan_get_bool(a, "root", &force), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_plan_get_bool(NULL, "force", &force), MPISCOPE_EINVAL);

    /* bcast: 2 sizes x 2 methods x 2 caches; barrier (no size, no supinski): 2; allreduce: 2 x 1 x 2 */
    mpiscope__plan_point_t *pts;
    size_t n;
    CHECK_INT_EQ(mpiscope__plan_points(a, &pts, &n), 0);
    CHECK_INT_EQ(n, 14);
    size_t supinski = 0, cold = 0;
    for (size_t i = 0; i < n; i++) {
        supinski += pts[i].method == mpiscope_method_find("bcast-supinski");
        cold += pts[i].cache_cold;
        CHECK(pts[i].method != mpiscope_method_find("bcast-supinski") || pts[i].op == mpiscope_op_find("bcast"));
    }
    CHECK_INT_EQ(supinski, 4);
    CHECK_INT_EQ(cold, 7);
    free(pts);
    mpiscope_plan_free(a);
    mpiscope_plan_free(b);
}

static void test_errors(void)
{
    char err[200] = "";
    mpiscope_plan_t *p = (mpiscope_plan_t *)1;
    const char *names[] = {"ops", "color"}, *values[] = {"bcast", "red"};
    CHECK_INT_EQ(mpiscope_plan_from_fields(names, values, 2, 0, &p, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(p == NULL && strcmp(err, "plan field 'color': unknown field") == 0);
    names[1] = "meta";
    values[1] = "nokey";
    CHECK_INT_EQ(mpiscope_plan_from_fields(names, values, 2, 0, &p, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(strcmp(err, "plan field 'meta': 'nokey' is not NAME=VALUE") == 0);
    CHECK_INT_EQ(mpiscope_plan_from_fields(names, values, 1, 0, &p, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(strcmp(err, "plan field 'out': required") == 0);
    CHECK_INT_EQ(mpiscope_plan_from_json_text("{}", 2, 1, &p, err, sizeof err), MPISCOPE_EINVAL); /* flags */
    CHECK_INT_EQ(mpiscope_plan_from_json_text(NULL, 0, 0, &p, NULL, 0), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_plan_from_json_text("{}", 2, 0, NULL, NULL, 0), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_plan_read_file("/nonexistent/plan.json", 0, &p, err, sizeof err), MPISCOPE_EIO);
    CHECK(p == NULL && strcmp(err, "/nonexistent/plan.json: cannot open the plan") == 0);
    refuse("{\"ops\":[\"bcast\"],", "line 1, column 18: expected a member name");
    refuse("{\"ops\":[\"allreduce\"],\"reduce_op\":\"bxor\",\"out\":\"x\"}",
           "plan field 'reduce_op': 'bxor' does not apply to element type 'double' (it takes integer, byte)");
    refuse("{\"ops\":[\"allreduce\"],\"dtype\":\"char\",\"out\":\"x\"}",
           "plan field 'reduce_op': 'sum' does not apply to element type 'char' (it takes integer, floating, complex)");
    mpiscope_plan_free(from_text("{\"ops\":[\"bcast\"],\"reduce_op\":\"bxor\",\"out\":\"x\"}", err, sizeof err));
    mpiscope_plan_free(NULL);
}

static void test_arrival(void)
{
    char err[200] = "";
    static const struct {
        const char *json;
        int kind, rank;
        double us;
        unsigned long long seed;
    } good[] = {
        {"\"late:2:5\"", MPISCOPE__ARRIVAL_LATE, 2, 5, 1},
        {"{\"kind\":\"late\",\"rank\":1,\"us\":50}", MPISCOPE__ARRIVAL_LATE, 1, 50, 1},
        {"{\"us\":5,\"kind\":\"linear\"}", MPISCOPE__ARRIVAL_LINEAR, 0, 5, 1},
        {"{\"kind\":\"random\",\"us\":10,\"seed\":3}", MPISCOPE__ARRIVAL_RANDOM, 0, 10, 3},
        {"{\"kind\":\"random\",\"us\":10}", MPISCOPE__ARRIVAL_RANDOM, 0, 10, 1},
        {"{\"kind\":\"none\"}", MPISCOPE__ARRIVAL_NONE, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char text[200];
        snprintf(text, sizeof text, "{\"ops\":[\"bcast\"],\"out\":\"x\",\"arrival\":%s}", good[i].json);
        mpiscope_plan_t *p = from_text(text, err, sizeof err);
        CHECK(p != NULL);
        if (!p) {
            fprintf(stderr, "%s: %s\n", text, err);
            continue;
        }
        CHECK_INT_EQ(p->arrival.kind, good[i].kind);
        CHECK_INT_EQ(p->arrival.rank, good[i].rank);
        CHECK_NEAR(p->arrival.us, good[i].us, 0);
        CHECK_INT_EQ(p->arrival.seed, good[i].seed);
        mpiscope_plan_free(p);
    }
    static const char *const bad[][2] = {
        {"{\"rank\":1}", "plan field 'arrival.kind': required: one of none, late, linear, random"},
        {"{\"kind\":\"early\"}", "plan field 'arrival.kind': must be one of none, late, linear, random"},
        {"{\"kind\":\"late\",\"us\":5}", "plan field 'arrival.rank': required"},
        {"{\"kind\":\"late\",\"rank\":-1,\"us\":5}",
         "plan field 'arrival.rank': must be an integer in [0, 1073741824]"},
        {"{\"kind\":\"linear\",\"us\":2e7}", "plan field 'arrival.us': must be a number in [0, 1e+07]"},
        {"{\"kind\":\"linear\",\"us\":\"5\"}", "plan field 'arrival.us': must be a number in [0, 1e+07]"},
        {"{\"kind\":\"linear\",\"us\":5,\"seed\":3}", "plan field 'arrival.seed': not a member of a linear arrival"},
        {"{\"kind\":\"random\",\"us\":5,\"seed\":1.5}", "plan field 'arrival.seed': must be an integer >= 0"},
        {"{\"kind\":\"none\",\"us\":5}", "plan field 'arrival.us': not a member of a none arrival"},
        {"\"late:x\"", "plan field 'arrival': 'late:x' is not none|late:RANK:US|linear:US|random:US[:SEED] "
                       "(US at most 1e7)"},
        {"[1]", "plan field 'arrival': must be a string or an object, not an array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[200];
        snprintf(text, sizeof text, "{\"ops\":[\"bcast\"],\"out\":\"x\",\"arrival\":%s}", bad[i][0]);
        refuse(text, bad[i][1]);
    }
}

static void test_kinds(void)
{
    CHECK(strcmp(mpiscope__dtype_kind_name_at(0), "floating") == 0); /* double */
    CHECK(mpiscope__dtype_kind_name_at(1000) == NULL);
    CHECK(mpiscope__reduce_op_allows("bxor", "byte"));
    CHECK(mpiscope__reduce_op_allows("MPI_SUM", "MPI_INT"));
    CHECK(!mpiscope__reduce_op_allows("land", "double"));
    CHECK(!mpiscope__reduce_op_allows("max", "byte"));
    CHECK(!mpiscope__reduce_op_allows("sum", "char"));
    CHECK(!mpiscope__reduce_op_allows("nope", "int"));
    CHECK(strcmp(mpiscope__reduce_op_kind_at(0, 2), "complex") == 0); /* sum */
    CHECK(mpiscope__reduce_op_kind_at(0, 3) == NULL);
}

int main(void)
{
    test_fields_equal_text();
    test_errors();
    test_arrival();
    test_kinds();
    CHECK_DONE();
}
