/* test_describe_write.c: the public writers of the engine's descriptions:
 * one line each, the describe document exactly the internal one, the op
 * catalogue one entry per built-in op, and the arguments they refuse. */
#include <string.h>
#include "check.h"
#include "describe.h"
#include "json_read.h"
#include "mpiscope/describe.h"
#include "mpiscope/error.h"
#include "mpiscope/op.h"

/* What writer put into a temporary file, NUL-terminated (static buffer). */
static const char *written(int (*writer)(FILE *, unsigned), size_t *len)
{
    static char text[1 << 18];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_INT_EQ(writer(f, 0), 0);
    rewind(f);
    *len = fread(text, 1, sizeof text - 1, f);
    text[*len] = '\0';
    fclose(f);
    return text;
}

static void test_describe_write(void)
{
    size_t len;
    const char *text = written(mpiscope_describe_write, &len);
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__describe(&j);
    CHECK_INT_EQ(len, j.len + 1);
    CHECK(strncmp(text, j.buf, j.len) == 0 && text[j.len] == '\n');
    mpiscope__json_free(&j);
}

static void test_catalogue_write(void)
{
    size_t len;
    const char *text = written(mpiscope_op_catalogue_write, &len);
    CHECK(len > 0 && text[len - 1] == '\n' && strchr(text, '\n') == text + len - 1);
    mpiscope__jv_t *doc = NULL;
    char err[160];
    CHECK_INT_EQ(mpiscope__json_parse(text, len, &doc, err, sizeof err), 0);
    if (!doc)
        return;
    CHECK_INT_EQ(doc->count, mpiscope_op_count());
    const mpiscope__jv_t *first = doc->first;
    CHECK(strcmp(mpiscope__jv_get(first, "name")->string, mpiscope_op_at(0)->name) == 0);
    for (const mpiscope__jv_t *op = doc->first; op; op = op->next) {
        const mpiscope_op_t *d = mpiscope_op_find(mpiscope__jv_get(op, "name")->string);
        CHECK(d != NULL);
        size_t n = 0;
        for (const mpiscope_op_option_t *o = d ? d->options : NULL; o && o->name; o++)
            n++;
        CHECK_INT_EQ(mpiscope__jv_get(op, "options")->count, n);
        CHECK(mpiscope__jv_get(op, "size_meaning") != NULL && mpiscope__jv_get(op, "flags") != NULL);
    }
    mpiscope__jv_free(doc);
}

static void test_refuses(void)
{
    CHECK_INT_EQ(mpiscope_describe_write(NULL, 0), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_describe_write(stdout, 1), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_op_catalogue_write(NULL, 0), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope_op_catalogue_write(stdout, 2), MPISCOPE_EINVAL);
    FILE *f = fopen("/dev/full", "w"); /* every write fails */
    if (f) {
        setvbuf(f, NULL, _IONBF, 0);
        CHECK_INT_EQ(mpiscope_op_catalogue_write(f, 0), MPISCOPE_EIO);
        fclose(f);
    }
}

int main(void)
{
    test_describe_write();
    test_catalogue_write();
    test_refuses();
    CHECK_DONE();
}
