/* test_json.c: the JSON writer behind the result document. */
#include <math.h>
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

int main(void)
{
    test_nesting_and_values();
    test_list_append_and_errors();
    test_precision();
    CHECK_DONE();
}
