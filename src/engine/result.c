/* result.c: the result document, written after every point: a point is
 * appended in place (the file is valid JSON before and after), the whole
 * document is written anew (temporary file and rename) when anything
 * before the points changed and at the end. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpiscope/error.h"
#include "mpiscope/result.h"
#include "context.h"
#include "environment.h"
#include "json.h"
#include "point_json.h"
#include "result_internal.h"
#include "sync_report.h"
#include "util.h"

enum { MAX_META = 32, MAX_SECTIONS = 8 };

struct mpiscope_result {
    mpiscope_context_t *ctx;
    char *path;
    unsigned flags;
    int is_writer; /* rank 0 of the context */
    mpiscope__environment_t env;
    char *meta_key[MAX_META], *meta_value[MAX_META];
    int n_meta;
    char varied[16];
    int oversubscribed;
    mpiscope__json_t points;            /* "p1,p2,..." items of the points array */
    char *section_keys[MAX_SECTIONS];   /* extra top-level members: each key at most once */
    char *section_values[MAX_SECTIONS]; /* their values, encoded */
    int n_sections;
    mpiscope__json_t methods; /* "\"window\",..." names of the methods run */
    mpiscope__json_t warnings;
    double *end_residual_ns; /* [nprocs] after close */
    char end_time_utc[32];
    int keep_old;  /* FORCE over an existing file: kept until there is content */
    char why[256]; /* rank 0's last write failure, "" else */
    /* the document on disk, as rank 0 last wrote it: its head (up to the
     * points' '['), how much of res->points follows it, then its tail
     * (from the points' ']' to the end); the file's identity and length */
    char *disk_head, *disk_tail;
    size_t disk_head_len, disk_points_len, disk_tail_len, disk_len;
    dev_t disk_dev;
    ino_t disk_ino;
    int on_disk; /* the disk_ fields describe the file at path */
};

static void write_timer(const mpiscope_context_t *ctx, mpiscope__json_t *j)
{
    const mpiscope_timer_info_t *t = &ctx->timer;
    mpiscope__json_object(j, "timer");
    mpiscope__json_string(j, "name", t->name);
    mpiscope__json_string(j, "source", t->source);
    mpiscope__json_number(j, "resolution_ns", t->resolution_ns);
    mpiscope__json_number(j, "read_overhead_ns", t->read_overhead_ns);
    mpiscope__json_number(j, "frequency_hz", t->frequency_hz);
    mpiscope__json_bool(j, "invariant", t->invariant);
    mpiscope__json_bool(j, "wtime_is_global", t->wtime_is_global);
    mpiscope__json_end(j);
}

static void write_sync(const mpiscope_result_t *res, mpiscope__json_t *j)
{
    const mpiscope_clock_sync_t *s = res->ctx->sync;
    mpiscope__json_object(j, "clock_sync");
    mpiscope__json_string(j, "algorithm", mpiscope_sync_algorithm_name(s->algorithm));
    mpiscope__json_integer(j, "patience", res->ctx->params.sync.patience);
    mpiscope__json_integer(j, "max_exchanges", res->ctx->params.sync.max_exchanges);
    mpiscope__json_number(j, "duration_ns", s->duration_ns);
    mpiscope__json_integer(j, "exchanges", (long long)s->exchanges);
    mpiscope__json_integer(j, "resyncs", res->ctx->resyncs);
    if (res->ctx->one_clock)
        mpiscope__json_bool(j, "one_clock", 1);
    mpiscope__json_number_array(j, "offset_ns", s->offsets_ns, (size_t)s->nprocs);
    mpiscope__json_number_array(j, "rtt_min_ns", s->rtt_min_ns, (size_t)s->nprocs);
    mpiscope__json_number_array(j, "residual_ns", s->residual_ns, (size_t)s->nprocs);
    mpiscope__json_number(j, "max_abs_residual_ns", mpiscope_clock_sync_max_residual_ns(s));
    mpiscope__sync_json_fields(j, s, &res->ctx->params.sync);
    if (res->end_residual_ns) {
        mpiscope__json_number_array(j, "end_residual_ns", res->end_residual_ns, (size_t)s->nprocs);
        mpiscope__json_number(j, "max_abs_end_residual_ns", mpiscope__max_abs(res->end_residual_ns, s->nprocs));
    }
    mpiscope__json_end(j);
}

static void write_cache(const mpiscope_result_t *res, mpiscope__json_t *j)
{
    const mpiscope_params_t *p = &res->ctx->params;
    mpiscope__buffer_pool_info_t info;
    mpiscope__buffer_pool_info(res->ctx->pool, &info);
    mpiscope__json_object(j, "cache");
    mpiscope__json_string(j, "mode", p->cache_cold ? "cold" : "warm");
    mpiscope__json_integer(j, "llc_bytes", (long long)info.llc_bytes);
    mpiscope__json_integer(j, "alignment_bytes", (long long)p->alignment_bytes);
    mpiscope__json_integer(j, "pool_limit_bytes", (long long)info.limit_bytes);
    mpiscope__json_end(j);
}

/* Keys the schema requires that only the caller knows (mpiscope-bench sets
 * them; an application may not): null when not given. */
static void write_unset_meta(const mpiscope_result_t *res, mpiscope__json_t *j)
{
    static const char *const keys[] = {"command_line", "launcher", "mpi_implementation"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        int given = 0;
        for (int i = 0; i < res->n_meta; i++)
            given |= strcmp(res->meta_key[i], keys[k]) == 0;
        if (!given)
            mpiscope__json_raw(j, keys[k], "null");
    }
}

static void write_environment(const mpiscope_result_t *res, mpiscope__json_t *j)
{
    mpiscope__json_object(j, "environment");
    mpiscope__environment_write(&res->env, j);
    if (res->end_time_utc[0])
        mpiscope__json_string(j, "end_time_utc", res->end_time_utc);
    mpiscope__json_bool(j, "oversubscribed", res->oversubscribed);
    for (int i = 0; i < res->n_meta; i++)
        mpiscope__json_string(j, res->meta_key[i], res->meta_value[i]);
    write_unset_meta(res, j);
    write_timer(res->ctx, j);
    write_sync(res, j);
    write_cache(res, j);
    mpiscope__json_end(j);
}

static void write_method(const mpiscope_params_t *p, mpiscope__json_t *j)
{
    mpiscope__json_object(j, "method");
    mpiscope__json_string(j, "name", "window");
    mpiscope__json_number(j, "t_bcast_ns", p->t_bcast_ns);
    mpiscope__json_number(j, "window_ns", p->window_ns);
    mpiscope__json_number(j, "gap_ns", p->gap_ns);
    mpiscope__json_integer(j, "k_init", p->k_init);
    mpiscope__json_integer(j, "k", p->k);
    mpiscope__json_number(j, "invalid_threshold", p->invalid_threshold);
    mpiscope__json_number(j, "gamma", p->gamma);
    mpiscope__json_number(j, "window_min_ns", p->window_min_ns);
    mpiscope__json_number(j, "window_quantile", p->window_quantile);
    mpiscope__json_number(j, "late_tolerance_ns", p->late_tolerance_ns);
    mpiscope__json_number(j, "late_tolerance_fraction", p->late_tolerance_fraction);
    mpiscope__json_string(j, "stop_rule", mpiscope_stop_rule_name(p->stop_rule));
    mpiscope__json_number(j, "target_rse", p->target_rse);
    mpiscope__json_integer(j, "min_valid", p->min_valid);
    mpiscope__json_integer(j, "max_valid", p->max_valid);
    mpiscope__json_integer(j, "max_launches", p->max_launches);
    mpiscope__json_number(j, "max_point_seconds", p->max_point_seconds);
    mpiscope__json_number(j, "min_point_seconds", p->min_point_seconds);
    mpiscope__json_number(j, "trim_fraction", p->trim_fraction);
    mpiscope__json_number(j, "confidence", p->confidence);
    mpiscope__json_end(j);
}

/* A document worth replacing an old file with (--force): one that holds a
 * point or a section (the floor, measured before any point, is not one),
 * or that says the run completed. */
static int has_content(const mpiscope_result_t *res, const char *status)
{
    int sections = 0;
    for (int i = 0; i < res->n_sections; i++)
        sections += strcmp(res->section_keys[i], "floor") != 0;
    return (res->points.buf && res->points.buf[0]) || sections || strcmp(status, "complete") == 0;
}

/* Whether `path` is absent or a regular file: the only kind a rename may
 * replace (a rename over /dev/null would replace the device itself). */
static int replaceable(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode);
}

/* The document as pieces: head (to the points' '['), points, tail (from
 * the points' ']' to the end, its newline included). */
typedef struct pieces {
    const char *head, *points, *tail;
    size_t head_len, points_len, tail_len;
} pieces_t;

static int write_all(FILE *f, const pieces_t *d)
{
    return fwrite(d->head, 1, d->head_len, f) == d->head_len && fwrite(d->points, 1, d->points_len, f) == d->points_len
           && fwrite(d->tail, 1, d->tail_len, f) == d->tail_len;
}

/* Keep what is on disk now (after a whole write): the head, the tail and
 * the file's identity; on_disk 0 when any of it is missing. */
static void remember(mpiscope_result_t *res, const pieces_t *d)
{
    struct stat st;
    free(res->disk_head);
    free(res->disk_tail);
    res->disk_head = malloc(d->head_len + 1);
    res->disk_tail = malloc(d->tail_len + 1);
    res->on_disk = res->disk_head && res->disk_tail && stat(res->path, &st) == 0;
    if (!res->on_disk)
        return;
    memcpy(res->disk_head, d->head, d->head_len);
    memcpy(res->disk_tail, d->tail, d->tail_len);
    res->disk_head_len = d->head_len;
    res->disk_tail_len = d->tail_len;
    res->disk_points_len = d->points_len;
    res->disk_len = d->head_len + d->points_len + d->tail_len;
    res->disk_dev = st.st_dev;
    res->disk_ino = st.st_ino;
}

/* The pieces into res->path through a temporary file and a rename:
 * readers never see a half-written file, and a failed write leaves the
 * old one. Only a regular file is replaced. */
static int replace_file(mpiscope_result_t *res, const pieces_t *d)
{
    if (!replaceable(res->path)) {
        snprintf(res->why, sizeof res->why, "rank 0 could not write %s: not a regular file", res->path);
        return MPISCOPE_EIO;
    }
    size_t n = strlen(res->path) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return MPISCOPE_ENOMEM;
    snprintf(tmp, n, "%s.tmp.%ld", res->path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && write_all(f, d);
    int why = errno; /* fclose may succeed where the writes failed: keep theirs */
    if (f && fclose(f) != 0 && ok) {
        ok = 0;
        why = errno;
    }
    if (ok && !replaceable(res->path)) { /* something else appeared meanwhile */
        ok = 0;
        why = EEXIST;
    }
    if (ok && rename(tmp, res->path) != 0) {
        ok = 0;
        why = errno;
    }
    if (!ok) {
        unlink(tmp);
        snprintf(res->why, sizeof res->why, "rank 0 could not write %s: %s", res->path, strerror(why));
    }
    free(tmp);
    if (ok)
        remember(res, d);
    return ok ? 0 : MPISCOPE_EIO;
}

/* The file at path, open for writing, if it is still the document rank 0
 * last wrote (the same file, of the same length); else -1. */
static int open_own(const mpiscope_result_t *res)
{
    if (!res->on_disk)
        return -1;
    int fd = open(res->path, O_WRONLY);
    struct stat st;
    if (fd >= 0
        && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != res->disk_dev || st.st_ino != res->disk_ino
            || st.st_size < 0 || (size_t)st.st_size != res->disk_len)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* All len bytes at offset: 0, else -1 with errno. */
static int write_at(int fd, const char *text, size_t len, off_t offset)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, text, len, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        text += n;
        len -= (size_t)n;
        offset += n;
    }
    return 0;
}

/* The points added since the last write and the new tail, written over
 * the old tail in one write: the file is valid JSON before and after it.
 * A write that fails (a full disk) puts the old tail back where it was
 * (its blocks exist) and cuts the file to its old length: the previous
 * document stays. The signals that stop a run wait until the file is
 * whole again. */
static int append_points(mpiscope_result_t *res, int fd, const pieces_t *d)
{
    size_t old_len = res->disk_len, at = res->disk_head_len + res->disk_points_len;
    size_t fresh = d->points_len - res->disk_points_len, len = fresh + d->tail_len;
    char *bytes = malloc(len ? len : 1), *tail = malloc(d->tail_len + 1);
    if (!bytes || !tail) {
        free(bytes);
        free(tail);
        return MPISCOPE_ENOMEM;
    }
    memcpy(bytes, d->points + res->disk_points_len, fresh);
    memcpy(bytes + fresh, d->tail, d->tail_len);
    memcpy(tail, d->tail, d->tail_len);
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGQUIT);
    sigprocmask(SIG_BLOCK, &stop, &old);
    int ok = write_at(fd, bytes, len, (off_t)at) == 0 && (at + len >= old_len || ftruncate(fd, (off_t)(at + len)) == 0);
    int why = errno;
    if (!ok && (write_at(fd, res->disk_tail, res->disk_tail_len, (off_t)at) != 0 || ftruncate(fd, (off_t)old_len) != 0))
        res->on_disk = 0; /* not put back: the next write is a whole one */
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(bytes);
    if (!ok) {
        free(tail);
        snprintf(res->why, sizeof res->why, "rank 0 could not write %s: %s", res->path, strerror(why));
        return MPISCOPE_EIO;
    }
    free(res->disk_tail);
    res->disk_tail = tail;
    res->disk_tail_len = d->tail_len;
    res->disk_points_len = d->points_len;
    res->disk_len = at + len;
    return 0;
}

/* Appending is enough: the file is the document last written (open_own),
 * its head is the new one's and its points are the first new ones. */
static int can_append(const mpiscope_result_t *res, const pieces_t *d)
{
    return res->on_disk && d->head_len == res->disk_head_len && d->points_len >= res->disk_points_len
           && memcmp(d->head, res->disk_head, d->head_len) == 0;
}

/* The document's head and tail as one encoding, without the points: the
 * head ends at *head_len, with the points' '['. */
static void encode(const mpiscope_result_t *res, const char *status, mpiscope__json_t *j, size_t *head_len)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "schema_version", MPISCOPE_SCHEMA_VERSION);
    mpiscope__json_string(j, "status", status);
    mpiscope__json_raw(j, "units", "{\"time\":\"ns\",\"size\":\"bytes\",\"frequency\":\"Hz\",\"fraction\":\"1\"}");
    write_environment(res, j);
    write_method(&res->ctx->params, j);
    mpiscope__json_string(j, "varied", res->varied);
    mpiscope__json_array(j, "methods");
    mpiscope__json_raw(j, NULL, res->methods.buf ? res->methods.buf : "\"window\"");
    mpiscope__json_end(j);
    for (int i = 0; i < res->n_sections; i++)
        mpiscope__json_raw(j, res->section_keys[i], res->section_values[i]);
    mpiscope__json_array(j, "points");
    *head_len = j->len;
    mpiscope__json_raw(j, NULL, ""); /* where the points go */
    mpiscope__json_end(j);
    mpiscope__json_array(j, "warnings");
    mpiscope__json_raw(j, NULL, res->warnings.buf ? res->warnings.buf : "");
    mpiscope__json_end(j);
    mpiscope__json_end(j);
}

/* The document, with the points added since the last write appended in
 * place when nothing before them changed (append_points), else whole
 * (replace_file). */
static int write_document(mpiscope_result_t *res, const char *status)
{
    if (res->keep_old && !has_content(res, status))
        return 0;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    size_t head_len = 0;
    encode(res, status, &j, &head_len);
    size_t tail_len = j.len - head_len;
    char *tail = j.failed ? NULL : malloc(tail_len + 2);
    int err = !tail || res->points.failed || res->warnings.failed ? MPISCOPE_ENOMEM : 0;
    if (err) {
        snprintf(res->why, sizeof res->why, "rank 0 ran out of memory building the result document");
    } else {
        memcpy(tail, j.buf + head_len, tail_len);
        tail[tail_len++] = '\n';
        const char *points = res->points.buf ? res->points.buf : "";
        pieces_t d = {.head = j.buf,
                      .head_len = head_len,
                      .points = points,
                      .points_len = strlen(points),
                      .tail = tail,
                      .tail_len = tail_len};
        int fd = !res->keep_old && can_append(res, &d) ? open_own(res) : -1;
        if (fd < 0)
            err = replace_file(res, &d);
        else if ((err = append_points(res, fd, &d)) == 0 && close(fd) != 0) {
            snprintf(res->why, sizeof res->why, "rank 0 could not write %s: %s", res->path, strerror(errno));
            err = MPISCOPE_EIO;
        } else if (err)
            close(fd);
    }
    free(tail);
    mpiscope__json_free(&j);
    if (!err)
        res->keep_old = 0;
    return err;
}

/* Rank 0's error (it alone writes) on every rank of the context, with its
 * reason: a rank that went on alone would wait in the next collective. */
static int agree(mpiscope_result_t *res, int err)
{
    MPI_Bcast(&err, 1, MPI_INT, 0, res->ctx->comm);
    if (err)
        MPI_Bcast(res->why, (int)sizeof res->why, MPI_CHAR, 0, res->ctx->comm);
    return err;
}

int mpiscope__result_is_writer(const mpiscope_result_t *res)
{
    return res && res->is_writer;
}

const char *mpiscope__result_error(const mpiscope_result_t *res)
{
    return res ? res->why : "";
}

static void result_free(mpiscope_result_t *res)
{
    for (int i = 0; i < res->n_meta; i++) {
        free(res->meta_key[i]);
        free(res->meta_value[i]);
    }
    mpiscope__environment_free(&res->env);
    mpiscope__json_free(&res->points);
    mpiscope__json_free(&res->warnings);
    for (int i = 0; i < res->n_sections; i++) {
        free(res->section_keys[i]);
        free(res->section_values[i]);
    }
    mpiscope__json_free(&res->methods);
    free(res->end_residual_ns);
    free(res->disk_head);
    free(res->disk_tail);
    free(res->path);
    free(res);
}

/* The file a write of `path` replaces: a symbolic link's target (written
 * through the link, not over it), else `path` itself. Owned by the caller. */
static char *written_path(const char *path)
{
    struct stat st;
    char *resolved = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
    return resolved ? resolved : strdup(path);
}

int mpiscope_result_open(mpiscope_context_t *ctx, const char *path, unsigned flags, mpiscope_result_t **out)
{
    if (!ctx || !path || !out || (flags & ~(unsigned)(MPISCOPE_RESULT_FORCE | MPISCOPE_RESULT_RAW)))
        return MPISCOPE_EINVAL;
    mpiscope_result_t *res = calloc(1, sizeof *res);
    int err = res ? 0 : MPISCOPE_ENOMEM;
    if (res) {
        res->ctx = ctx;
        res->flags = flags;
        res->is_writer = ctx->rank == 0;
        res->path = written_path(path);
        snprintf(res->varied, sizeof res->varied, "size");
        mpiscope__json_init(&res->points);
        mpiscope__json_init(&res->warnings);
        mpiscope__json_init(&res->methods);
        err = res->path ? mpiscope__environment_gather(ctx->comm, &res->env) : MPISCOPE_ENOMEM;
    }
    if (!err && res->is_writer && !replaceable(res->path)) {
        snprintf(res->why, sizeof res->why, "%s is not a regular file: not replaced", path);
        err = MPISCOPE_EIO;
    } else if (!err && res->is_writer) {
        int exists = access(res->path, F_OK) == 0;
        res->keep_old = exists && (flags & MPISCOPE_RESULT_FORCE);
        err = exists && !res->keep_old ? MPISCOPE_EEXIST : write_document(res, "running");
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, ctx->comm);
    if (err) {
        if (res)
            result_free(res);
        return err;
    }
    mpiscope__context_keep_raw(ctx, (flags & MPISCOPE_RESULT_RAW) != 0);
    *out = res;
    return 0;
}

int mpiscope_result_set_meta(mpiscope_result_t *res, const char *key, const char *value)
{
    if (!res || !key || !value || res->n_meta == MAX_META)
        return MPISCOPE_EINVAL;
    for (int i = 0; i < res->n_meta; i++)
        if (strcmp(res->meta_key[i], key) == 0) {
            char *v = strdup(value);
            if (!v)
                return MPISCOPE_ENOMEM;
            free(res->meta_value[i]);
            res->meta_value[i] = v;
            return 0;
        }
    res->meta_key[res->n_meta] = strdup(key);
    res->meta_value[res->n_meta] = strdup(value);
    if (!res->meta_key[res->n_meta] || !res->meta_value[res->n_meta])
        return MPISCOPE_ENOMEM;
    res->n_meta++;
    return 0;
}

int mpiscope_result_set_varied(mpiscope_result_t *res, const char *varied)
{
    if (!res || !varied || (strcmp(varied, "size") != 0 && strcmp(varied, "nprocs") != 0))
        return MPISCOPE_EINVAL;
    snprintf(res->varied, sizeof res->varied, "%s", varied);
    return 0;
}

void mpiscope_result_set_oversubscribed(mpiscope_result_t *res, int oversubscribed)
{
    if (res)
        res->oversubscribed = oversubscribed != 0;
}

int mpiscope_result_warn(mpiscope_result_t *res, const char *text)
{
    if (!res || !text)
        return MPISCOPE_EINVAL;
    mpiscope__json_t item;
    mpiscope__json_init(&item);
    mpiscope__json_string(&item, NULL, text);
    mpiscope__json_list_append(&res->warnings, item.buf);
    mpiscope__json_free(&item);
    return res->warnings.failed ? MPISCOPE_ENOMEM : 0;
}

void mpiscope__result_point_json(const mpiscope_result_t *res, const mpiscope_op_t *op,
                                 const mpiscope_point_spec_t *spec, const mpiscope_point_result_t *point,
                                 mpiscope__json_t *j)
{
    if (res && res->is_writer && point->participated)
        mpiscope__point_json(res->ctx, op, spec, point, res->oversubscribed, j);
}

int mpiscope_result_add_point(mpiscope_result_t *res, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                              const mpiscope_point_result_t *point)
{
    if (!res || !op || !spec || !point)
        return MPISCOPE_EINVAL;
    int err = 0;
    if (res->is_writer && point->participated) {
        mpiscope__json_t item;
        mpiscope__json_init(&item);
        mpiscope__point_json(res->ctx, op, spec, point, res->oversubscribed, &item);
        mpiscope__json_list_append(&res->points, item.buf);
        err = item.failed ? MPISCOPE_ENOMEM : write_document(res, "running");
        mpiscope__json_free(&item);
    }
    return agree(res, err);
}

int mpiscope_result_close(mpiscope_result_t *res, int failed)
{
    return mpiscope__result_close(res, failed, NULL, 0);
}

int mpiscope__result_close(mpiscope_result_t *res, int failed, char *why, size_t why_size)
{
    if (why && why_size)
        why[0] = '\0';
    if (!res)
        return MPISCOPE_EINVAL;
    mpiscope_context_t *ctx = res->ctx;
    int err = 0;
    /* (one clock for every rank, verified when the context was made: it
     * cannot have drifted) */
    res->end_residual_ns = ctx->one_clock ? NULL : calloc((size_t)ctx->nprocs, sizeof(double));
    if (!failed && res->end_residual_ns)
        mpiscope_clock_sync_verify(ctx->comm, ctx->sync, res->end_residual_ns);
    else {
        free(res->end_residual_ns);
        res->end_residual_ns = NULL;
    }
    mpiscope__utc_now(res->end_time_utc, sizeof res->end_time_utc);
    if (res->is_writer)
        err = write_document(res, failed ? "failed" : "complete");
    err = agree(res, err);
    if (err && why && why_size)
        snprintf(why, why_size, "%s", res->why);
    result_free(res);
    return err;
}

int mpiscope_result_set_methods(mpiscope_result_t *res, const char *const *names, int n)
{
    if (!res || !names || n < 1)
        return MPISCOPE_EINVAL;
    mpiscope__json_free(&res->methods);
    for (int i = 0; i < n; i++) {
        mpiscope__json_t item;
        mpiscope__json_init(&item);
        mpiscope__json_string(&item, NULL, names[i]);
        mpiscope__json_list_append(&res->methods, item.buf);
        mpiscope__json_free(&item);
    }
    return res->methods.failed ? MPISCOPE_ENOMEM : 0;
}

int mpiscope__result_add_raw_point(mpiscope_result_t *res, const char *json_object)
{
    if (!res || !json_object)
        return MPISCOPE_EINVAL;
    int err = 0;
    if (res->is_writer) {
        mpiscope__json_list_append(&res->points, json_object);
        err = res->points.failed ? MPISCOPE_ENOMEM : write_document(res, "running");
    }
    return agree(res, err);
}

/* The section named key, or -1. */
static int find_section(const mpiscope_result_t *res, const char *key)
{
    for (int i = 0; i < res->n_sections; i++)
        if (strcmp(res->section_keys[i], key) == 0)
            return i;
    return -1;
}

int mpiscope__result_update_section(mpiscope_result_t *res, const char *key, const char *json_value)
{
    if (!res || !key || !json_value)
        return MPISCOPE_EINVAL;
    int i = find_section(res, key);
    if (i < 0 && res->n_sections == MAX_SECTIONS)
        return MPISCOPE_EINVAL;
    char *value = strdup(json_value);
    if (!value)
        return MPISCOPE_ENOMEM;
    if (i < 0) {
        if (!(res->section_keys[res->n_sections] = strdup(key))) {
            free(value);
            return MPISCOPE_ENOMEM;
        }
        i = res->n_sections++;
    }
    free(res->section_values[i]);
    res->section_values[i] = value;
    return 0;
}

int mpiscope__result_set_section(mpiscope_result_t *res, const char *key, const char *json_value)
{
    if (!res || !key || find_section(res, key) >= 0) /* a JSON object names a member once */
        return MPISCOPE_EINVAL;
    return mpiscope__result_update_section(res, key, json_value);
}

int mpiscope__result_write(mpiscope_result_t *res)
{
    if (!res)
        return MPISCOPE_EINVAL;
    return agree(res, res->is_writer ? write_document(res, "running") : 0);
}
