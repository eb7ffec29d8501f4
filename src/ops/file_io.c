/* file_io.c: MPI-IO. file_write and file_read move size_bytes per rank
 * between memory and a file in the `dir` option's directory:
 *   access      individual (MPI_File_write_at / read_at) or collective
 *               (MPI_File_write_at_all / read_at_all)
 *   layout      contiguous, or strided: a vector file view, blocks of
 *               `block` bytes of each rank interleaved with the other
 *               ranks' (shared file) or with holes (file per process)
 *   file        one file shared by the point's ranks, or one per process
 *   cb          collective buffering as the library decides, or forced on
 *               or off with hints (collective_buffering, ROMIO's
 *               romio_cb_write / romio_cb_read), plus any `hints` given
 *   sync        1: MPI_File_sync after each write, inside the timed launch
 * A launch writes (reads) the same region of the file every time. The
 * file system (statfs), its free space and every hint in force
 * (MPI_File_get_info) are notes of the point.
 *
 * The file is opened exclusively under a name of its own in initialize and
 * unlinked at once, while open: nothing is left in `dir`, whatever ends
 * the run (Ctrl-C, a killed rank, a full file system); it lives until
 * finalize closes it. Before anything is created, every rank checks that
 * the directory is writable and that the file system can hold what the
 * point writes, and refuses the point with one line otherwise.
 *
 * Validation reads back every byte: file_write's check makes the file
 * consistent (sync, barrier, sync: the standard's recipe) and reads the
 * rank's region through the same view; file_read's preparation writes the
 * launch's data into the file the same way before the launch. Reads come
 * from the page cache where the file system keeps one (the file was just
 * written): this measures MPI-IO's path, not the disk. */
#include "common.h"
#include "layout.h"
#include "options.h"
#include "pattern.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "opctx.h"
#ifdef __linux__
#include <sys/vfs.h>
#endif

enum { ACCESS_INDIVIDUAL, ACCESS_COLLECTIVE };
enum { LAYOUT_CONTIGUOUS, LAYOUT_STRIDED };
enum { FILE_SHARED, FILE_PER_PROCESS };
enum { CB_DEFAULT, CB_ENABLE, CB_DISABLE };

static const char *const access_choices[] = {"individual", "collective", NULL};
static const char *const layout_choices[] = {"contiguous", "strided", NULL};
static const char *const file_choices[] = {"shared", "per_process", NULL};
static const char *const cb_choices[] = {"default", "enable", "disable", NULL};

typedef struct file_io {
    int write, access, shape, file, cb, sync;
    size_t block;  /* strided: bytes per block */
    int count;     /* bytes per rank per launch */
    MPI_Comm comm; /* the file's: the point's (shared) or MPI_COMM_SELF */
    MPI_File fh;
    MPI_Datatype filetype;     /* strided view, else MPI_DATATYPE_NULL */
    MPI_Offset offset;         /* where this rank's region starts (contiguous shared) */
    mpiscope__layout_t layout; /* the rank's data in memory: contiguous bytes */
    char path[4096];
    MPI_Status status; /* of the last launch: the bytes moved */
} file_io_t;

/* ---- the file system ---- */

static const char *fs_name(long type)
{
    static const struct {
        long magic;
        const char *name;
    } names[] = {
        {0xEF53, "ext2/3/4"}, {0x58465342, "xfs"},      {0x9123683E, "btrfs"}, {0x01021994, "tmpfs"},
        {0x6969, "nfs"},      {0x0BD00BD0, "lustre"},   {0x47504653, "gpfs"},  {0x794C7630, "overlayfs"},
        {0x2FC12FC1, "zfs"},  {0x19830326, "beegfs"},   {0x00C36400, "ceph"},  {0x65735546, "fuse"},
        {0x5346414F, "afs"},  {0x73717368, "squashfs"}, {0x858458F6, "ramfs"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].magic == (type & 0xFFFFFFFFL))
            return names[i].name;
    return NULL;
}

/* Collective over ctx->comm: every rank may write `needed` bytes into dir
 * (writable, not read-only, enough free space), else the point is refused
 * with the first failing rank's line. Notes the file system. */
static int check_directory(mpiscope_op_ctx_t *ctx, const char *dir, unsigned long long needed)
{
    char why[300] = "";
    struct statvfs vfs;
    unsigned long long free_bytes = 0;
    if (statvfs(dir, &vfs) != 0)
        snprintf(why, sizeof why, "%s: %s", dir, strerror(errno));
    else if (vfs.f_flag & ST_RDONLY)
        snprintf(why, sizeof why, "%s: read-only file system: %s cannot create its file there", dir, ctx->op->name);
    else if (access(dir, W_OK | X_OK) != 0)
        snprintf(why, sizeof why, "%s: not writable (%s): %s cannot create its file there", dir, strerror(errno),
                 ctx->op->name);
    else if ((free_bytes = (unsigned long long)vfs.f_bavail * vfs.f_frsize) < needed)
        snprintf(why, sizeof why, "%s: %llu bytes free on its file system, %s of %zu bytes writes %llu there", dir,
                 free_bytes, ctx->op->name, ctx->size_bytes, needed);
    int bad = why[0] != '\0', any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (bad)
        return mpiscope_op_ctx_refuse(ctx, MPISCOPE_EIO, "%s", why);
    if (any)
        return MPISCOPE_EIO;
    const char *name = NULL;
#ifdef __linux__
    struct statfs fs;
    if (statfs(dir, &fs) == 0)
        name = fs_name((long)fs.f_type);
#endif
    mpiscope_op_ctx_note(ctx, "file_system", "%s in %s, %.2f GiB free", name ? name : "unknown", dir,
                         (double)free_bytes / (1024.0 * 1024.0 * 1024.0));
    return 0;
}

/* ---- the file ---- */

static int make_info(mpiscope_op_ctx_t *ctx, const file_io_t *s, MPI_Info *info)
{
    if (MPI_Info_create(info) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    if (s->cb != CB_DEFAULT) {
        const char *on = s->cb == CB_ENABLE ? "enable" : "disable";
        MPI_Info_set(*info, "collective_buffering", s->cb == CB_ENABLE ? "true" : "false");
        MPI_Info_set(*info, "romio_cb_write", on);
        MPI_Info_set(*info, "romio_cb_read", on);
    }
    const char *hints = mpiscope_op_ctx_option(ctx, "hints");
    char key[MPI_MAX_INFO_KEY + 1], value[256];
    for (const char *at = hints ? hints : ""; *at;) { /* KEY=VALUE,KEY=VALUE */
        size_t k = strcspn(at, "="), v;
        if (at[k] != '=' || k == 0 || k > MPI_MAX_INFO_KEY)
            return mpiscope__op_ctx_bad_option(ctx, "hints");
        v = strcspn(at + k + 1, ",");
        if (v >= sizeof value)
            return mpiscope__op_ctx_bad_option(ctx, "hints");
        memcpy(key, at, k);
        key[k] = '\0';
        memcpy(value, at + k + 1, v);
        value[v] = '\0';
        MPI_Info_set(*info, key, value);
        at += k + 1 + v + (at[k + 1 + v] == ',');
    }
    return 0;
}

/* Every hint the library has in force, as one line of KEY=VALUE. */
static void note_hints(mpiscope_op_ctx_t *ctx, MPI_File fh)
{
    MPI_Info info;
    char line[1024] = "";
    int n = 0;
    if (MPI_File_get_info(fh, &info) != MPI_SUCCESS)
        return;
    MPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[256];
        int len = (int)sizeof value, flag = 0;
        MPI_Info_get_nthkey(info, i, key);
#ifdef MPISCOPE_HAVE_INFO_GET_STRING
        MPI_Info_get_string(info, key, &len, value, &flag);
#else /* before MPI-4 (SimGrid SMPI) */
        MPI_Info_get(info, key, len - 1, value, &flag);
#endif
        size_t used = strlen(line);
        if (flag && used < sizeof line)
            snprintf(line + used, sizeof line - used, "%s%s=%s", used ? " " : "", key, value);
    }
    MPI_Info_free(&info);
    mpiscope_op_ctx_note(ctx, "hints", "%s", n ? line : "(none)");
}

static void mpi_error_text(int mpi_rc, char *text, size_t size)
{
    char buf[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(mpi_rc, buf, &len);
    for (int i = 0; i < len; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    snprintf(text, size, "%.*s", len, buf);
}

/* A name no other run or rank uses: rank 0's host, pid and time, and the
 * rank for a file per process. */
static void make_path(const mpiscope_op_ctx_t *ctx, file_io_t *s, const char *dir)
{
    unsigned long long tag[2] = {(unsigned long long)getpid(), (unsigned long long)time(NULL)};
    MPI_Bcast(tag, 2, MPI_UNSIGNED_LONG_LONG, 0, ctx->comm);
    if (s->file == FILE_SHARED)
        snprintf(s->path, sizeof s->path, "%s/.mpiscope-io-%llu-%llu.shared", dir, tag[0], tag[1]);
    else
        snprintf(s->path, sizeof s->path, "%s/.mpiscope-io-%llu-%llu.rank%d", dir, tag[0], tag[1], ctx->rank);
}

/* Open exclusively, then unlink while open (collective over ctx->comm). */
static int open_file(mpiscope_op_ctx_t *ctx, file_io_t *s, MPI_Info info)
{
    int amode = MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR;
    int rc = MPI_File_open(s->comm, s->path, amode, info, &s->fh), opened = rc == MPI_SUCCESS, all = 0;
    MPI_Allreduce(&opened, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (opened && (s->file == FILE_PER_PROCESS || ctx->rank == 0))
        unlink(s->path); /* from now on only the open handles keep it */
    if (!opened) {
        char text[MPI_MAX_ERROR_STRING];
        mpi_error_text(rc, text, sizeof text);
        s->fh = MPI_FILE_NULL;
        unlink(s->path); /* a file a failed open may have created */
        return mpiscope_op_ctx_refuse(ctx, MPISCOPE_EIO, "%s: cannot create %s: %s", ctx->op->name, s->path, text);
    }
    return all ? 0 : MPISCOPE_EIO;
}

static int set_view(const mpiscope_op_ctx_t *ctx, file_io_t *s)
{
    int sharers = s->file == FILE_SHARED ? ctx->nprocs : 1, me = s->file == FILE_SHARED ? ctx->rank : 0;
    s->filetype = MPI_DATATYPE_NULL;
    if (s->shape == LAYOUT_CONTIGUOUS) {
        s->offset = (MPI_Offset)me * (MPI_Offset)s->count;
        return 0;
    }
    /* blocks of this rank every `sharers` blocks (shared), every other block (per process) */
    int blocks = (int)((size_t)s->count / s->block), stride = sharers > 1 ? sharers : 2;
    if (MPI_Type_vector(blocks, (int)s->block, stride * (int)s->block, MPI_BYTE, &s->filetype) != MPI_SUCCESS
        || MPI_Type_commit(&s->filetype) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    s->offset = 0;
    return mpiscope__ops_mpi(MPI_File_set_view(s->fh, (MPI_Offset)me * (MPI_Offset)s->block, MPI_BYTE, s->filetype,
                                               "native", MPI_INFO_NULL));
}

static int write_region(file_io_t *s, const void *buf)
{
    return s->access == ACCESS_COLLECTIVE ? MPI_File_write_at_all(s->fh, s->offset, buf, s->count, MPI_BYTE, &s->status)
                                          : MPI_File_write_at(s->fh, s->offset, buf, s->count, MPI_BYTE, &s->status);
}

static int read_region(file_io_t *s, void *buf)
{
    return s->access == ACCESS_COLLECTIVE ? MPI_File_read_at_all(s->fh, s->offset, buf, s->count, MPI_BYTE, &s->status)
                                          : MPI_File_read_at(s->fh, s->offset, buf, s->count, MPI_BYTE, &s->status);
}

/* Every rank's writes visible to every rank's reads (the standard's
 * sync-barrier-sync), collective over ctx->comm. */
static int make_consistent(const mpiscope_op_ctx_t *ctx, file_io_t *s)
{
    int rc = MPI_File_sync(s->fh);
    MPI_Barrier(ctx->comm);
    return rc == MPI_SUCCESS ? MPI_File_sync(s->fh) : rc;
}

/* ---- the hooks ---- */

static int read_options(mpiscope_op_ctx_t *ctx, file_io_t *s)
{
    long block, sync;
    int rc;
    if ((rc = mpiscope__option_choice(ctx, "access", access_choices, &s->access)) != 0
        || (rc = mpiscope__option_choice(ctx, "layout", layout_choices, &s->shape)) != 0
        || (rc = mpiscope__option_choice(ctx, "file", file_choices, &s->file)) != 0
        || (rc = mpiscope__option_choice(ctx, "cb", cb_choices, &s->cb)) != 0
        || (rc = mpiscope__option_long(ctx, "block", 1, 1L << 30, &block)) != 0
        || (rc = mpiscope__option_long(ctx, "sync", 0, 1, &sync)) != 0)
        return rc;
    s->sync = (int)sync;
    if (ctx->size_bytes > INT_MAX)
        return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ERANGE, "%s: %zu bytes per rank is more than an int count",
                                      ctx->op->name, ctx->size_bytes);
    s->block = (size_t)block < ctx->size_bytes || ctx->size_bytes == 0 ? (size_t)block : ctx->size_bytes;
    s->count = (int)(s->shape == LAYOUT_STRIDED && s->block ? ctx->size_bytes / s->block * s->block : ctx->size_bytes);
    if (s->shape == LAYOUT_STRIDED && (size_t)s->count / s->block > INT_MAX / 2)
        return mpiscope__op_ctx_bad_option(ctx, "block");
    return 0;
}

static int setup(mpiscope_op_ctx_t *ctx, file_io_t *s)
{
    MPI_Info info = MPI_INFO_NULL;
    const char *dir = mpiscope_op_ctx_option(ctx, "dir");
    int rc = read_options(ctx, s);
    if (rc)
        return rc;
    dir = dir && dir[0] ? dir : ".";
    s->comm = s->file == FILE_SHARED ? ctx->comm : MPI_COMM_SELF;
    ctx->actual_bytes = (size_t)s->count;
    mpiscope__layout_large_bytes((size_t)s->count, &s->layout);
    int local = 1;
    MPI_Comm node;
    if (MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    unsigned long long needed =
        (unsigned long long)s->count * (unsigned long long)(s->file == FILE_SHARED ? ctx->nprocs : local);
    if ((rc = check_directory(ctx, dir, needed)) != 0 || (rc = make_info(ctx, s, &info)) != 0)
        goto done;
    make_path(ctx, s, dir);
    if ((rc = open_file(ctx, s, info)) != 0 || (rc = set_view(ctx, s)) != 0)
        goto done;
    note_hints(ctx, s->fh);
    mpiscope_op_ctx_note(ctx, "file", "%s, %s, %s%s, %d bytes per rank%s", file_choices[s->file],
                         layout_choices[s->shape], access_choices[s->access],
                         s->sync ? ", MPI_File_sync after each write" : "", s->count,
                         s->write ? "" : "; read from the page cache where the file system has one");
    if ((rc = mpiscope_op_ctx_buffers(ctx, (size_t)s->count, (size_t)s->count)) != 0)
        goto done;
    if (!s->write) { /* something to read: the region written once, made visible */
        memset(ctx->send, 0xA5, (size_t)s->count);
        rc = mpiscope__ops_mpi(write_region(s, ctx->send));
        if (make_consistent(ctx, s) != MPI_SUCCESS && !rc)
            rc = MPISCOPE_EMPI;
    }
done:
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return rc;
}

static int finalize(mpiscope_op_ctx_t *ctx)
{
    file_io_t *s = ctx->state;
    if (!s)
        return 0;
    if (s->fh != MPI_FILE_NULL)
        MPI_File_close(&s->fh); /* collective over the file's communicator */
    if (s->filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->filetype);
    free(s);
    ctx->state = NULL;
    return 0;
}

static int initialize(mpiscope_op_ctx_t *ctx, int write)
{
#ifndef MPISCOPE_HAVE_MPIIO
    return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ENOTSUP, "%s: this MPI library has no MPI-IO", ctx->op->name);
#else
    file_io_t *s = calloc(1, sizeof *s);
    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    s->write = write;
    s->fh = MPI_FILE_NULL;
    s->filetype = MPI_DATATYPE_NULL;
    int rc = setup(ctx, s);
    if (rc)
        finalize(ctx);
    return rc;
#endif
}

static int write_initialize(mpiscope_op_ctx_t *ctx)
{
    return initialize(ctx, 1);
}
static int read_initialize(mpiscope_op_ctx_t *ctx)
{
    return initialize(ctx, 0);
}

/* A failed access fails the point; its line says what MPI said (a full
 * file system: "No space left on device"). Only on that path. */
static int failed(mpiscope_op_ctx_t *ctx, int mpi_rc)
{
    char text[MPI_MAX_ERROR_STRING];
    mpi_error_text(mpi_rc, text, sizeof text);
    return mpiscope_op_ctx_refuse(ctx, MPISCOPE_EIO, "%s: %s", ctx->op->name, text);
}

static int execute(mpiscope_op_ctx_t *ctx)
{
    file_io_t *s = ctx->state;
    int rc = s->write ? write_region(s, ctx->send) : read_region(s, ctx->recv);
    if (rc == MPI_SUCCESS && s->write && s->sync)
        rc = MPI_File_sync(s->fh);
    return rc == MPI_SUCCESS ? 0 : failed(ctx, rc);
}

/* The bytes the last access moved, against what it should have. */
static int check_moved(mpiscope_op_ctx_t *ctx, file_io_t *s, const char *what)
{
    int moved = 0;
    MPI_Get_count(&s->status, MPI_BYTE, &moved);
    return moved == s->count
               ? 0
               : mpiscope_op_ctx_mismatch(ctx, "rank %d: %s moved %d bytes of %d", ctx->rank, what, moved, s->count);
}

static int validate(mpiscope_op_ctx_t *ctx, int phase)
{
    file_io_t *s = ctx->state;
    int rc = 0;
    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        mpiscope__pattern_fill(ctx->send, &s->layout, ctx->rank, 0, ctx->launch);
        memset(ctx->recv, MPISCOPE__POISON, (size_t)s->count);
        if (s->write)
            return 0;
        rc = write_region(s, ctx->send); /* the launch's data in the file */
        if (make_consistent(ctx, s) != MPI_SUCCESS || rc != MPI_SUCCESS)
            return failed(ctx, rc != MPI_SUCCESS ? rc : MPI_ERR_IO);
        return 0;
    }
    if ((rc = check_moved(ctx, s, s->write ? "the write" : "the read")) != 0)
        return rc;
    if (s->write) { /* read back what was written, through the same view */
        int mpi_rc = make_consistent(ctx, s);
        if (mpi_rc == MPI_SUCCESS)
            mpi_rc = MPI_File_read_at(s->fh, s->offset, ctx->recv, s->count, MPI_BYTE, &s->status);
        if (mpi_rc != MPI_SUCCESS)
            return failed(ctx, mpi_rc);
        if ((rc = check_moved(ctx, s, "reading back")) != 0)
            return rc;
        MPI_Barrier(ctx->comm); /* nobody writes the next launch before every rank read this one */
    }
    return mpiscope__pattern_check(ctx, ctx->recv, &s->layout, ctx->rank, 0, "file region", 0);
}

static const mpiscope_op_option_t options[] = {
    {.name = "dir",
     .default_value = ".",
     .unit = "path",
     .type = "text",
     .description = "directory of the file, on the file system to measure (its type and free space are in "
                    "the result); the file is created under a name of its own and unlinked as soon as every "
                    "rank has it open, so nothing is left there whatever ends the run"},
    {.name = "access",
     .default_value = "individual",
     .unit = "",
     .type = "choice",
     .choices = access_choices,
     .description = "individual (MPI_File_write_at, read_at) or collective (write_at_all, read_at_all)"},
    {.name = "layout",
     .default_value = "contiguous",
     .unit = "",
     .type = "choice",
     .choices = layout_choices,
     .description = "contiguous, or strided: a vector file view of `block`-byte blocks, the ranks' blocks "
                    "interleaved (shared file) or with holes between them (file per process)"},
    {.name = "file",
     .default_value = "shared",
     .unit = "",
     .type = "choice",
     .choices = file_choices,
     .description = "one file shared by the ranks, or one file per process"},
    {.name = "cb",
     .default_value = "default",
     .unit = "",
     .type = "choice",
     .choices = cb_choices,
     .description = "collective buffering: the library's choice, or forced with hints (collective_buffering, "
                    "romio_cb_write, romio_cb_read)"},
    {.name = "hints",
     .default_value = "",
     .unit = "",
     .type = "text",
     .description = "more MPI-IO hints: KEY=VALUE,KEY=VALUE (e.g. cb_buffer_size=16777216)"},
    {.name = "block",
     .default_value = "4096",
     .unit = "bytes",
     .type = "integer",
     .description = "strided layout: bytes per block (the size is rounded down to whole blocks)"},
    {.name = "sync",
     .default_value = "0",
     .unit = "",
     .type = "choice",
     .choices = mpiscope__choices_no_yes,
     .description = "1: MPI_File_sync after each write, inside the launch (the data reaches the file system)"},
    MPISCOPE__OPT_END,
};

const mpiscope_op_t mpiscope__op_file_write = {
    .abi = MPISCOPE_OP_ABI,
    .name = "file_write",
    .description = "MPI-IO write (IMB-IO): every rank writes its region of a shared file or of its own file, "
                   "individually (MPI_File_write_at) or collectively (write_at_all), contiguous or through a "
                   "strided view; bandwidth: size / time",
    .size_meaning = "bytes each rank writes",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_BANDWIDTH | MPISCOPE_OP_FILES,
    .options = options,
    .initialize = write_initialize,
    .execute = execute,
    .finalize = finalize,
    .validate = validate,
};

const mpiscope_op_t mpiscope__op_file_read = {
    .abi = MPISCOPE_OP_ABI,
    .name = "file_read",
    .description = "MPI-IO read (IMB-IO): every rank reads its region of a shared file or of its own file, "
                   "individually (MPI_File_read_at) or collectively (read_at_all), contiguous or through a "
                   "strided view; bandwidth: size / time",
    .size_meaning = "bytes each rank reads",
    .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_BANDWIDTH | MPISCOPE_OP_FILES,
    .options = options,
    .initialize = read_initialize,
    .execute = execute,
    .finalize = finalize,
    .validate = validate,
};
