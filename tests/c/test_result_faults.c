/* test_result_faults.c: the result writer on faults (issue 13), on one rank
 * (MPI singleton): --force keeps the old file until the new document has
 * content, and a failed write says which rank and why, leaving the file
 * that was there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "mpiscope/mpiscope.h"
#include "result_internal.h"

static const char OLD[] = "{\"old\": true}\n";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The file's first bytes, "" when it cannot be read. */
static void read_file(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* FORCE over a file, then a failed run that added nothing: the old file stays. */
static void test_force_keeps_old(mpiscope_context_t *ctx, const char *path)
{
    char buf[4096];
    mpiscope_result_t *res;
    write_file(path, OLD);
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, MPISCOPE_RESULT_FORCE, &res), 0);
    read_file(path, buf, sizeof buf);
    CHECK(strcmp(buf, OLD) == 0); /* not replaced at open */
    CHECK_INT_EQ(mpiscope_result_close(res, 1), 0);
    read_file(path, buf, sizeof buf);
    CHECK(strcmp(buf, OLD) == 0); /* nor by a failed run without content */
}

/* FORCE, then content: the old file is replaced. */
static void test_force_replaces_with_content(mpiscope_context_t *ctx, const char *path)
{
    char buf[4096];
    mpiscope_result_t *res;
    write_file(path, OLD);
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, MPISCOPE_RESULT_FORCE, &res), 0);
    CHECK_INT_EQ(mpiscope__result_add_raw_point(res, "{\"kind\":\"test\"}"), 0);
    read_file(path, buf, sizeof buf);
    CHECK(strstr(buf, "\"kind\":\"test\"") != NULL);
    CHECK_INT_EQ(mpiscope_result_close(res, 1), 0);
    read_file(path, buf, sizeof buf);
    CHECK(strstr(buf, "\"status\":\"failed\"") != NULL);
    unlink(path);
}

/* The directory disappears under a running result: EIO, and the reason
 * names rank 0, the file and the system's word for it. */
static void test_write_error_says_why(mpiscope_context_t *ctx, const char *dir)
{
    char path[512], why[256];
    snprintf(path, sizeof path, "%s/r.json", dir);
    mpiscope_result_t *res;
    CHECK_INT_EQ(mkdir(dir, 0700), 0);
    CHECK_INT_EQ(mpiscope_result_open(ctx, path, 0, &res), 0);
    CHECK_INT_EQ(mpiscope__result_error(res)[0], '\0');
    unlink(path);
    CHECK_INT_EQ(rmdir(dir), 0);
    CHECK_INT_EQ(mpiscope__result_add_raw_point(res, "{\"kind\":\"test\"}"), MPISCOPE_EIO);
    const char *text = mpiscope__result_error(res);
    CHECK(strstr(text, "rank 0 could not write") != NULL);
    CHECK(strstr(text, path) != NULL);
    CHECK(strstr(text, "No such file or directory") != NULL);
    CHECK_INT_EQ(mpiscope__result_close(res, 1, why, sizeof why), MPISCOPE_EIO);
    CHECK(strstr(why, "rank 0 could not write") != NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[256], dir[256];
    snprintf(path, sizeof path, "test_result_faults.%ld.json", (long)getpid());
    snprintf(dir, sizeof dir, "test_result_faults.%ld.d", (long)getpid());
    mpiscope_context_t *ctx;
    CHECK_INT_EQ(mpiscope_context_create(MPI_COMM_WORLD, NULL, &ctx), 0);
    test_force_keeps_old(ctx, path);
    test_force_replaces_with_content(ctx, path);
    test_write_error_says_why(ctx, dir);
    mpiscope_context_destroy(ctx);
    unlink(path);
    MPI_Finalize();
    CHECK_DONE();
}
