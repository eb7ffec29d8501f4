/* test_json.c: the JSON writer behind the result document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "json.h"

#define CHECK_STR(a, b)                                                                                                \
    do {                                                                                                               \
        const char *va_ = (a), *vb_ = (b);                                                                             \
        if (!va_ || strcmp(va_, vb_) != 0) {                                                                           \
            fprintf(stderr, "%s:%d: got %s, want %s\n", __FILE__, __LINE__, va_ ? va_ : "(null)", vb_);                \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

static void test_nesting_and_values(void)
{
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_object(&j, NULL);
    mpiscope__json_string(&j, "s", "a\"b\\c\n\x01");
    mpiscope__json_number(&j, "x", 1.5);
    mpiscope__json_number(&j, "nan", NAN);
    mpiscope__json_number(&j, "inf", INFINITY);
    mpiscope__json_integer(&j, "i", -42);
    mpiscope__json_bool(&j, "t", 1);
    mpiscope__json_string(&j, "null", NULL);
    mpiscope__json_array(&j, "a");
    mpiscope__json_object(&j, NULL);
    mpiscope__json_end(&j);
    mpiscope__json_array(&j, NULL);
    mpiscope__json_end(&j);
    mpiscope__json_raw(&j, NULL, "{\"r\":1}");
    mpiscope__json_end(&j);
    mpiscope__json_end(&j);
    CHECK(!j.failed);
    CHECK_STR(j.buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"x\":1.5,\"nan\":null,\"inf\":null,"
                     "\"i\":-42,\"t\":true,\"null\":null,\"a\":[{},[],{\"r\":1}]}");
    mpiscope__json_free(&j);
}

static void test_list_append_and_errors(void)
{
    mpiscope__json_t list;
    mpiscope__json_init(&list);
    mpiscope__json_list_append(&list, "{\"p\":1}");
    mpiscope__json_list_append(&list, "{\"p\":2}");
    CHECK_STR(list.buf, "{\"p\":1},{\"p\":2}");
    mpiscope__json_end(&list); /* nothing open */
    CHECK(list.failed);
    mpiscope__json_free(&list);
}

static void test_precision(void)
{
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_number(&j, NULL, 1234567.891234);
    CHECK_STR(j.buf, "1234567.891234");
    mpiscope__json_free(&j);
}

/* Each value back within half a tenth (and an ulp), as printf("%.1f") writes it. */
static void test_tenths(void)
{
    static const double values[] = {0,      0.04,   -0.04,      0.05,         0.25, 1.25,  391.2345,
                                    -17.96, 999.95, 1e14 + 0.3, 123456789.04, 1e15, -3e17, 2.5e-7};
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_array(&j, NULL);
    mpiscope__json_tenths(&j, NULL, NAN);
    mpiscope__json_tenths(&j, NULL, -INFINITY);
    mpiscope__json_end(&j);
    CHECK_STR(j.buf, "[null,null]");
    mpiscope__json_free(&j);
    unsigned long long state = 12345;
    for (size_t i = 0; i < 20000 + sizeof values / sizeof *values; i++) {
        double v;
        if (i < sizeof values / sizeof *values) {
            v = values[i];
        } else {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            v = ((double)(state >> 11) / 9007199254740992.0 - 0.25) * pow(10, (double)(i % 9));
        }
        mpiscope__json_init(&j);
        mpiscope__json_tenths(&j, NULL, v);
        char want[64], *end = NULL;
        snprintf(want, sizeof want, "%.1f", v);
        double back = strtod(j.buf, &end);
        CHECK(end && *end == '\0' && strchr(j.buf, '.') && strlen(strchr(j.buf, '.')) == 2);
        CHECK(fabs(back - v) <= 0.05 + 1e-9 * fabs(v));
        CHECK(strcmp(j.buf, want) == 0 || fabs(strtod(want, NULL) - back) <= 0.1 + 1e-9 * fabs(v));
        mpiscope__json_free(&j);
    }
}

int main(void)
{
    test_nesting_and_values();
    test_tenths();
    test_list_append_and_errors();
    test_precision();
    CHECK_DONE();
}
