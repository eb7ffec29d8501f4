/* test_json_read.c: the strict JSON reader on good and malformed input,
 * and on what the project's own writer produces. */
#include <string.h>
#include "check.h"
#include "json.h"
#include "json_read.h"
#include "mpiscope/error.h"

static mpiscope__jv_t *parse(const char *text)
{
    mpiscope__jv_t *v;
    char err[128];
    int rc = mpiscope__json_parse(text, strlen(text), &v, err, sizeof err);
    if (rc)
        fprintf(stderr, "unexpected: %s: %s\n", text, err);
    CHECK_INT_EQ(rc, 0);
    return v;
}

/* Must fail, with `why` in the message. */
static void refuse(const char *text, const char *why)
{
    mpiscope__jv_t *v = (mpiscope__jv_t *)1;
    char err[128] = "";
    CHECK_INT_EQ(mpiscope__json_parse(text, strlen(text), &v, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(v == NULL);
    if (!strstr(err, why)) {
        fprintf(stderr, "input %s: message '%s' lacks '%s'\n", text, err, why);
        CHECK(0);
    }
}

static void test_values(void)
{
    mpiscope__jv_t *v = parse(" {\"sizes\": [0, 8, 1048576], \"x\": -1.5e3, \"ok\": true, \"no\": null,"
                              " \"s\": \"a\\\"b\\u00e9\\ud83d\\ude00\\n\", \"o\": {}, \"a\": []}\n");
    const mpiscope__jv_t *sizes = mpiscope__jv_get(v, "sizes");
    CHECK_INT_EQ(sizes->type, MPISCOPE__JV_ARRAY);
    CHECK_INT_EQ(sizes->count, 3);
    CHECK(sizes->first->next->next->is_integer);
    CHECK_INT_EQ(sizes->first->next->next->integer, 1048576);
    const mpiscope__jv_t *x = mpiscope__jv_get(v, "x");
    CHECK(!x->is_integer && x->negative);
    CHECK_NEAR(x->number, -1500, 0);
    CHECK(mpiscope__jv_get(v, "ok")->boolean);
    CHECK_INT_EQ(mpiscope__jv_get(v, "no")->type, MPISCOPE__JV_NULL);
    CHECK(strcmp(mpiscope__jv_get(v, "s")->string, "a\"b\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    CHECK_INT_EQ(mpiscope__jv_get(v, "o")->count, 0);
    CHECK(mpiscope__jv_get(v, "missing") == NULL);
    mpiscope__jv_free(v);
    v = parse("18446744073709551615");
    CHECK(v->is_integer);
    mpiscope__jv_free(v);
    v = parse("18446744073709551616"); /* too large for an integer: a number still */
    CHECK(!v->is_integer);
    mpiscope__jv_free(v);
}

static void test_malformed(void)
{
    refuse("", "end of input");
    refuse("{\"a\":1,}", "member name");
    refuse("[1,2,]", "unexpected character");
    refuse("[1 2]", "expected ',' or ']'");
    refuse("{\"a\" 1}", "expected ':'");
    refuse("{\"a\":1,\"a\":2}", "duplicate member name");
    refuse("{a:1}", "member name");
    refuse("01", "leading zero");
    refuse("1.", "bad number");
    refuse("-", "bad number");
    refuse("1e", "bad number");
    refuse("+1", "unexpected character");
    refuse("NaN", "unexpected character");
    refuse("tru", "unexpected character");
    refuse("\"abc", "unterminated string");
    refuse("\"a\tb\"", "control character");
    refuse("\"\\x\"", "bad escape");
    refuse("\"\\u12g4\"", "bad \\u escape");
    refuse("\"\\ud800\"", "lone high surrogate");
    refuse("\"\\udc00\"", "lone low surrogate");
    refuse("\"\\u0000\"", "NUL");
    refuse("{} {}", "text after the value");
    refuse("// comment\n{}", "unexpected character");
    refuse("\xEF\xBB\xBF{}", "byte order mark");
    refuse("{\n  \"a\": [1,\n  }", "line 3, column 3");
    char deep[200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    refuse(deep, "nested too deeply");
}

/* What the writer writes, the reader reads back. */
static void test_round_trip(void)
{
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_object(&j, NULL);
    mpiscope__json_string(&j, "name", "tab\there \"quoted\" \\ \x01");
    mpiscope__json_integer(&j, "n", 42);
    mpiscope__json_number(&j, "x", 0.25);
    mpiscope__json_end(&j);
    mpiscope__jv_t *v = parse(j.buf);
    CHECK(strcmp(mpiscope__jv_get(v, "name")->string, "tab\there \"quoted\" \\ \x01") == 0);
    CHECK_INT_EQ(mpiscope__jv_get(v, "n")->integer, 42);
    CHECK_NEAR(mpiscope__jv_get(v, "x")->number, 0.25, 0);
    mpiscope__jv_free(v);
    mpiscope__json_free(&j);
}

int main(void)
{
    test_values();
    test_malformed();
    test_round_trip();
    CHECK_DONE();
}
