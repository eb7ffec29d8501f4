/* test_result_append.c: the result writer appends each point in place
 * (issue 29: rewriting the whole document after every point cost
 * O(points^2) at 1,024 ranks), and the file is a valid document after
 * every point, as a run that is stopped there leaves it; anything before
 * the points that changes, a file replaced under the writer and a write
 * that fails half-way each leave a valid document too. One rank (MPI
 * singleton). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "json_read.h"
#include "mpiscope/mpiscope.h"
#include "result_internal.h"

/* The whole file (NUL-terminated; *len its length), NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)n, f) : 0;
    fclose(f);
    if (text)
        text[got] = '\0';
    *len = got;
    return text;
}

/* The document at path parsed, NULL (and a line why) when it is not valid JSON. */
static mpiscope__jv_t *parse(const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len), err[160];
    mpiscope__jv_t *doc = NULL;
    if (!text || mpiscope__json_parse(text, len, &doc, err, sizeof err) != 0) {
        fprintf(stderr, "%s: not a valid document: %s\n", path, text ? err : "unreadable");
        doc = NULL;
    }
    free(text);
    return doc;
}

/* A valid document with `status` and `points` points, the last of them
 * {"kind":"test","i":last} when last >= 0. */
static void check_document(const char *path, const char *status, size_t points, long last)
{
    mpiscope__jv_t *doc = parse(path);
    CHECK(doc != NULL);
    if (!doc)
        return;
    const mpiscope__jv_t *st = mpiscope__jv_get(doc, "status"), *p = mpiscope__jv_get(doc, "points");
    CHECK(st && st->string && strcmp(st->string, status) == 0);
    CHECK(p && p->type == MPISCOPE__JV_ARRAY);
    if (p) {
        CHECK_INT_EQ(p->count, points);
        const mpiscope__jv_t *item = p->first;
        while (item && item->next)
            item = item->next;
        if (item && last >= 0)
            CHECK_INT_EQ(mpiscope__jv_get(item, "i")->integer, last);
    }
    mpiscope__jv_free(doc);
}

static ino_t inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* A point of n bytes of filler, numbered i. */
static int add_test_point(mpiscope_result_t *res, long i, size_t n)
{
    char *text = malloc(n + 64);
    if (!text)
        return MPISCOPE_ENOMEM;
    int len = snprintf(text, n + 64, "{\"kind\":\"test\",\"i\":%ld,\"fill\":\"", i);
    memset(text + len, 'x', n);
    strcpy(text + len + n, "\"}");
    int err = mpiscope__result_add_raw_point(res, text);
    free(text);
    return err;
}

/* Point after point, the file is valid, status running, with every point
 * so far; from the second point on it is the same file (appended, not
 * replaced) and what precedes the points never changes. A measured point
 * goes the same way; the end is status complete. */
static void test_valid_after_every_point(mpiscope_context_t *ctx, const char *path)
{
    mpiscope_result_t *res;
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, 0, &res), 0);
    check_document(path, "running", 0, -1);
    size_t head_len = 0;
    char *head = slurp(path, &head_len);
    CHECK(head && strstr(head, "\"points\":[") != NULL);
    head_len = head ? (size_t)(strstr(head, "\"points\":[") - head) + 10 : 0;
    ino_t first = 0;
    for (long i = 0; i < 40; i++) {
        CHECK_INT_EQ(add_test_point(res, i, (size_t)(i * 37 % 300)), 0);
        check_document(path, "running", (size_t)i + 1, i);
        size_t len;
        char *now = slurp(path, &len);
        CHECK(now && head && len > head_len && memcmp(now, head, head_len) == 0);
        free(now);
        if (i == 0)
            first = inode(path);
        else
            CHECK(inode(path) == first);
    }
    const mpiscope_op_t *op = mpiscope_op_find("bcast");
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    mpiscope_point_result_t r;
    CHECK_INT_EQ(mpiscope_context_measure(ctx, op, &spec, &r), 0);
    CHECK_INT_EQ(mpiscope_result_add_point(res, op, &spec, &r), 0);
    check_document(path, "running", 41, -1);
    CHECK(inode(path) == first);
    CHECK_INT_EQ(mpiscope_result_close(res, 0), 0);
    check_document(path, "complete", 41, -1);
    free(head);
    unlink(path);
}

/* A warning (after the points) keeps appending; a section (before them)
 * writes the whole document; so does a file renamed over the result
 * meanwhile: every point is in it after. */
static void test_changes_around_the_points(mpiscope_context_t *ctx, const char *path)
{
    char other[300];
    snprintf(other, sizeof other, "%s.other", path);
    mpiscope_result_t *res;
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, 0, &res), 0);
    CHECK_INT_EQ(add_test_point(res, 0, 10), 0);
    ino_t first = inode(path);
    CHECK_INT_EQ(mpiscope_result_warn(res, "a warning after the first point"), 0);
    CHECK_INT_EQ(add_test_point(res, 1, 10), 0);
    check_document(path, "running", 2, 1);
    CHECK(inode(path) == first);
    size_t len;
    char *text = slurp(path, &len);
    CHECK(text && strstr(text, "a warning after the first point") != NULL);
    free(text);
    CHECK_INT_EQ(mpiscope__result_update_section(res, "floor", "{\"median_ns\":1}"), 0);
    CHECK_INT_EQ(add_test_point(res, 2, 10), 0);
    check_document(path, "running", 3, 2);
    text = slurp(path, &len);
    CHECK(text && strstr(text, "\"floor\":{\"median_ns\":1}") != NULL);
    free(text);
    FILE *f = fopen(other, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"someone\": \"else\"}\n", f);
        fclose(f);
    }
    CHECK_INT_EQ(rename(other, path), 0);
    CHECK_INT_EQ(add_test_point(res, 3, 10), 0);
    check_document(path, "running", 4, 3);
    CHECK_INT_EQ(mpiscope_result_close(res, 0), 0);
    check_document(path, "complete", 4, 3);
    unlink(path);
}

/* An append that fails half-way (here the file size limit; a full disk
 * alike): EIO, and the file is the previous document byte for byte. */
static void test_failed_append_keeps_the_document(mpiscope_context_t *ctx, const char *path)
{
    mpiscope_result_t *res;
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, 0, &res), 0);
    CHECK_INT_EQ(add_test_point(res, 0, 100), 0);
    CHECK_INT_EQ(add_test_point(res, 1, 100), 0);
    size_t before_len;
    char *before = slurp(path, &before_len);
    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = (rlim_t)before_len + 16; /* the new point's first bytes fit, not the rest */
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK_INT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    CHECK_INT_EQ(add_test_point(res, 2, 4000), MPISCOPE_EIO);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, was);
    CHECK(strstr(mpiscope__result_error(res), "File too large") != NULL);
    size_t after_len;
    char *after = slurp(path, &after_len);
    CHECK(before && after && before_len == after_len && memcmp(before, after, before_len) == 0);
    check_document(path, "running", 2, 1);
    free(before);
    free(after);
    CHECK_INT_EQ(mpiscope_result_close(res, 1), 0);
    check_document(path, "failed", 3, 2); /* the close writes what it holds */
    unlink(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[256];
    snprintf(path, sizeof path, "test_result_append.%ld.json", (long)getpid());
    mpiscope_context_t *ctx;
    CHECK_INT_EQ(mpiscope_context_create(MPI_COMM_WORLD, NULL, &ctx), 0);
    test_valid_after_every_point(ctx, path);
    test_changes_around_the_points(ctx, path);
    test_failed_append_keeps_the_document(ctx, path);
    mpiscope_context_destroy(ctx);
    unlink(path);
    MPI_Finalize();
    CHECK_DONE();
}
