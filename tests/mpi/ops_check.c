/* ops_check.c: runs every registered operation over MPI_COMM_WORLD, in a
 * cold and a warm buffer pool, at a few sizes, and checks the results
 * where that is cheap. Rooted ops use root nprocs-1, so a wrong root shows.
 * Rank 0 prints one line per op; the exit status is 1 on any failure.
 *
 * Build (from the repository root), with every .c file of src/ops:
 *   mpicc -std=c11 -Wall -Wextra -D_GNU_SOURCE -Iinclude -Isrc/engine -Isrc/ops tests/mpi/ops_check.c
 *     src/ops/[a-z]*.c src/engine/{opctx,buffers,error,timer}.c -lm
 * Run: mpiexec -n 2 ./ops_check   (any number of ranks) */
#include "cache_size.h"
#include "opctx.h"
#include "refusal.h"
#include "mpiscope/error.h"
#include "mpiscope/timer.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LAUNCHES = 3, MAX_REPORTS_PER_OP = 5, EXPECTED_OP_COUNT = 123 };
static const size_t sizes_bytes[] = {0, 8, 1000, 65536};
/* Small, so cold pools stay quick on machines with a huge last-level cache. */
#define TEST_POOL_LIMIT_BYTES ((size_t)8 << 20)
#define TEST_ALIGNMENT_BYTES ((size_t)64)

/* What can be checked after a launch, chosen by op name. */
typedef enum {
    CHECK_NONE,
    CHECK_BCAST,
    CHECK_GATHER,
    CHECK_SCATTER,
    CHECK_ALLGATHER,
    CHECK_ALLTOALL,
    CHECK_REDUCE,
    CHECK_ALLREDUCE,
    CHECK_REDUCE_SCATTER,
    CHECK_SCAN,
    CHECK_EXSCAN,
    CHECK_WAIT_UP,
    CHECK_WAIT_DOWN
} check_kind_t;

static const struct {
    const char *op;
    check_kind_t kind;
} checks[] = {
    {"bcast", CHECK_BCAST},
    {"gather", CHECK_GATHER},
    {"gatherv", CHECK_GATHER},
    {"scatter", CHECK_SCATTER},
    {"scatterv", CHECK_SCATTER},
    {"allgather", CHECK_ALLGATHER},
    {"allgatherv", CHECK_ALLGATHER},
    {"alltoall", CHECK_ALLTOALL},
    {"alltoallv", CHECK_ALLTOALL},
    {"alltoallw", CHECK_ALLTOALL},
    {"reduce", CHECK_REDUCE},
    {"allreduce", CHECK_ALLREDUCE},
    {"reduce_scatter", CHECK_REDUCE_SCATTER},
    {"reduce_scatter_block", CHECK_REDUCE_SCATTER},
    {"scan", CHECK_SCAN},
    {"exscan", CHECK_EXSCAN},
    {"waitpattern_up", CHECK_WAIT_UP},
    {"waitpattern_down", CHECK_WAIT_DOWN},
    {"linear_bcast", CHECK_BCAST},
};

/* waitpattern_up runs with a user value, to test the option override. */
static const char *const up_option_names[] = {"unit_us"};
static const char *const up_option_values[] = {"2"};
#define UP_UNIT_US 2.0

/* Where we are, for failure messages. */
static struct {
    int rank;
    const char *op;
    int in_point; /* 0 while checking the registry */
    int cold;
    size_t size_bytes;
    size_t launch;
    int failures; /* this rank's, for the current op */
    size_t slots; /* buffer pairs the pool rotates through for the current point */
    int refused;  /* points the op refused as it should (refusal_expected) */
} here;

#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            fail(__LINE__, __VA_ARGS__);                                                                               \
    } while (0)

static void fail(int line, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void fail(int line, const char *format, ...)
{
    va_list args;

    if (here.failures++ >= MAX_REPORTS_PER_OP)
        return;
    fprintf(stderr, "ops_check: rank %d: %s", here.rank, here.op);
    if (here.in_point)
        fprintf(stderr, " %s size %zu launch %zu", here.cold ? "cold" : "warm", here.size_bytes, here.launch);
    fprintf(stderr, " (line %d): ", line);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

static check_kind_t check_kind(const char *op)
{
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if (strcmp(checks[i].op, op) == 0)
            return checks[i].kind;
    return CHECK_NONE;
}

static int is_movement(check_kind_t kind)
{
    return kind >= CHECK_BCAST && kind <= CHECK_ALLTOALL;
}

static int is_reduction(check_kind_t kind)
{
    return kind >= CHECK_REDUCE && kind <= CHECK_EXSCAN;
}

static int is_wait(check_kind_t kind)
{
    return kind == CHECK_WAIT_UP || kind == CHECK_WAIT_DOWN;
}

/* ---- data movement: byte i of send block b on rank `from` ---- */

static unsigned char payload(int from, int block, size_t launch, size_t i)
{
    return (unsigned char)(1 + 37 * from + 11 * block + 5 * launch + 3 * i);
}

/* bcast has no send buffer: its root's data sits in ctx->recv */
static size_t send_blocks(check_kind_t kind, const mpiscope_op_ctx_t *ctx)
{
    int root = ctx->rank == ctx->root;
    return kind == CHECK_BCAST                                         ? 0
           : kind == CHECK_ALLTOALL || (kind == CHECK_SCATTER && root) ? (size_t)ctx->nprocs
                                                                       : 1;
}

/* bcast's one buffer is ctx->recv: the root sends from it. */
static size_t recv_blocks(check_kind_t kind, const mpiscope_op_ctx_t *ctx)
{
    switch (kind) {
    case CHECK_BCAST:
        return 1;
    case CHECK_GATHER:
        return ctx->rank == ctx->root ? (size_t)ctx->nprocs : 0;
    case CHECK_ALLGATHER:
    case CHECK_ALLTOALL:
        return (size_t)ctx->nprocs;
    case CHECK_SCATTER:
        return 1;
    default:
        return 0;
    }
}

/* Who sent receive block j, and which of its send blocks it was. */
static void block_source(check_kind_t kind, const mpiscope_op_ctx_t *ctx, int j, int *from, int *block)
{
    *from = kind == CHECK_SCATTER || kind == CHECK_BCAST ? ctx->root : j;
    *block = kind == CHECK_SCATTER || kind == CHECK_ALLTOALL ? ctx->rank : 0;
}

static void movement_prepare(check_kind_t kind, const mpiscope_op_ctx_t *ctx, size_t launch)
{
    unsigned char *send = ctx->send;

    for (size_t b = 0; b < send_blocks(kind, ctx); b++)
        for (size_t i = 0; i < ctx->size_bytes; i++)
            send[b * ctx->size_bytes + i] = payload(ctx->rank, (int)b, launch, i);
    unsigned char *recv = ctx->recv;
    memset(recv, 0, recv_blocks(kind, ctx) * ctx->size_bytes);
    if (kind == CHECK_BCAST && ctx->rank == ctx->root)
        for (size_t i = 0; i < ctx->size_bytes; i++)
            recv[i] = payload(ctx->rank, 0, launch, i);
}

static void movement_verify(check_kind_t kind, const mpiscope_op_ctx_t *ctx, size_t launch)
{
    const unsigned char *got = ctx->recv;
    size_t blocks = recv_blocks(kind, ctx);
    int from, block;

    for (size_t j = 0; j < blocks; j++) {
        block_source(kind, ctx, (int)j, &from, &block);
        for (size_t i = 0; i < ctx->size_bytes; i++) {
            unsigned char want = payload(from, block, launch, i);
            if (got[j * ctx->size_bytes + i] != want) {
                fail(__LINE__, "block %zu byte %zu: got %u, want %u (from rank %d block %d)", j, i,
                     got[j * ctx->size_bytes + i], want, from, block);
                break;
            }
        }
    }
}

/* ---- reductions (double, sum): element e of rank r's send vector ---- */

static double element(int r, size_t e, size_t launch)
{
    return r + 1 + (double)(e % 7) + 0.25 * (double)launch; /* exact in double */
}

static void reduction_prepare(check_kind_t kind, const mpiscope_op_ctx_t *ctx, size_t launch)
{
    size_t n = kind == CHECK_REDUCE_SCATTER ? ctx->count * (size_t)ctx->nprocs : ctx->count;
    double *send = ctx->send;
    int root = ctx->rank == ctx->root;

    for (size_t e = 0; e < n; e++)
        send[e] = element(ctx->rank, e, launch);
    if (kind != CHECK_REDUCE || root)
        memset(ctx->recv, 0, ctx->count * sizeof(double));
}

static void reduction_verify(check_kind_t kind, const mpiscope_op_ctx_t *ctx, size_t launch)
{
    size_t offset = kind == CHECK_REDUCE_SCATTER ? (size_t)ctx->rank * ctx->count : 0;
    int ranks = kind == CHECK_SCAN ? ctx->rank + 1 : kind == CHECK_EXSCAN ? ctx->rank : ctx->nprocs;
    const double *got = ctx->recv;

    if ((kind == CHECK_REDUCE && ctx->rank != ctx->root) || (kind == CHECK_EXSCAN && ctx->rank == 0))
        return; /* no defined result here */
    for (size_t e = 0; e < ctx->count; e++) {
        double want = 0.0;
        for (int r = 0; r < ranks; r++)
            want += element(r, offset + e, launch);
        if (got[e] != want) {
            fail(__LINE__, "element %zu: got %.17g, want %.17g", e, got[e], want);
            break;
        }
    }
}

/* ---- one measurement point ---- */

static int wait_steps(check_kind_t kind, const mpiscope_op_ctx_t *ctx)
{
    return kind == CHECK_WAIT_UP ? ctx->rank + 1 : ctx->nprocs - ctx->rank;
}

static void check_buffers(const mpiscope_op_ctx_t *ctx, const mpiscope__buffer_pool_t *pool)
{
    mpiscope__buffer_pool_info_t info;

    mpiscope__buffer_pool_info(pool, &info);
    if (info.slots == 0)
        return; /* the op asked for no buffers */
    /* cold: rotating, or one pair for ops that bind their buffers (persistent, one-sided) */
    EXPECT(info.cold ? info.slots >= 1 && info.slots <= 4096 : info.slots == 1, "%zu slots", info.slots);
    here.slots = info.slots;
    EXPECT(info.region_bytes == info.slots * info.slot_bytes, "region %zu bytes", info.region_bytes);
    EXPECT((uintptr_t)ctx->send % TEST_ALIGNMENT_BYTES == 0 && (uintptr_t)ctx->recv % TEST_ALIGNMENT_BYTES == 0,
           "buffers %p %p not aligned", ctx->send, ctx->recv);
}

static void run_launch(const mpiscope_op_t *op, check_kind_t kind, mpiscope_op_ctx_t *ctx, void **last_send)
{
    size_t launch = here.launch;
    double t0, elapsed_ns;
    int rc;

    mpiscope__op_ctx_select_buffers(ctx, launch);
    EXPECT(launch == 0 || !ctx->send || here.slots < 2 || ctx->send != *last_send,
           "cold pool gave the same buffer twice in a row");
    *last_send = ctx->send;
    if (is_movement(kind))
        movement_prepare(kind, ctx, launch);
    else if (is_reduction(kind))
        reduction_prepare(kind, ctx, launch);
    t0 = mpiscope_timer_now_ns();
    rc = op->execute(ctx);
    elapsed_ns = mpiscope_timer_now_ns() - t0;
    EXPECT(rc == 0, "execute: %s", mpiscope_strerror(rc));
    if (is_movement(kind))
        movement_verify(kind, ctx, launch);
    else if (is_reduction(kind))
        reduction_verify(kind, ctx, launch);
    else if (is_wait(kind)) {
        double want_ns = wait_steps(kind, ctx) * (kind == CHECK_WAIT_UP ? UP_UNIT_US : 1.0) * 1e3;
        EXPECT(elapsed_ns >= want_ns, "waited %.0f ns, want >= %.0f ns", elapsed_ns, want_ns);
    }
}

static void run_point(const mpiscope_op_t *op, mpiscope__buffer_pool_t *pool, size_t size_bytes)
{
    check_kind_t kind = check_kind(op->name);
    int is_up = kind == CHECK_WAIT_UP;
    mpiscope__op_engine_t engine = {
        .pool = pool,
        .op = op,
        .option_names = is_up ? up_option_names : NULL,
        .option_values = is_up ? up_option_values : NULL,
        .n_options = is_up ? 1 : 0,
    };
    mpiscope_op_ctx_t ctx = {.engine = &engine};
    MPI_Datatype dtype = MPI_BYTE;
    MPI_Op reduce_op = MPI_OP_NULL;
    const char *dtype_name = "byte", *reduce_op_name = "none";
    size_t dtype_bytes;
    int nprocs, rc;
    void *last_send = NULL;

    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    here.in_point = 1;
    here.size_bytes = size_bytes;
    here.launch = 0;
    here.slots = 0;
    if (op->flags & MPISCOPE_OP_USES_REDUCTION) {
        EXPECT(mpiscope__dtype_parse(mpiscope_op_ctx_option(&ctx, "dtype"), &dtype, &dtype_bytes, &dtype_name) == 0
                   && mpiscope__reduce_op_parse(mpiscope_op_ctx_option(&ctx, "op"), &reduce_op, &reduce_op_name) == 0,
               "default dtype or op does not parse");
        EXPECT(strcmp(dtype_name, "MPI_DOUBLE") == 0 && strcmp(reduce_op_name, "MPI_SUM") == 0,
               "defaults %s %s: the checks assume MPI_DOUBLE and MPI_SUM", dtype_name, reduce_op_name);
    }
    rc = mpiscope__op_ctx_init(&ctx, MPI_COMM_WORLD, size_bytes, op->flags & MPISCOPE_OP_USES_ROOT ? nprocs - 1 : 0,
                               dtype, reduce_op, &engine);
    EXPECT(rc == 0, "ctx init: %s", mpiscope_strerror(rc));
    if (rc == 0 && (rc = op->initialize(&ctx)) == MPISCOPE_ENOTSUP && refusal_expected(op)) {
        here.refused++; /* this MPI library lacks what the op needs, and the op said so */
    } else if (rc == 0) {
        check_buffers(&ctx, pool);
        for (here.launch = 0; here.launch < LAUNCHES; here.launch++)
            run_launch(op, kind, &ctx, &last_send);
        rc = op->finalize(&ctx);
        EXPECT(rc == 0, "finalize: %s", mpiscope_strerror(rc));
    } else
        EXPECT(rc == 0, "initialize: %s", mpiscope_strerror(rc));
    mpiscope__op_ctx_release_buffers(&ctx);
    mpiscope__op_engine_free(&engine);
}

/* Every point of one op in a cold and a warm pool; returns its points. */
static int run_op(const mpiscope_op_t *op)
{
    size_t n_sizes = op->flags & MPISCOPE_OP_USES_SIZE ? sizeof sizes_bytes / sizeof *sizes_bytes : 1;
    mpiscope__buffer_pool_t *pool;
    int points = 0;

    for (here.cold = 1; here.cold >= 0; here.cold--) {
        EXPECT(mpiscope__buffer_pool_create(here.cold, TEST_ALIGNMENT_BYTES, TEST_POOL_LIMIT_BYTES, &pool) == 0,
               "pool create");
        for (size_t s = 0; pool && s < n_sizes; s++, points++)
            run_point(op, pool, sizes_bytes[s]);
        mpiscope__buffer_pool_destroy(pool);
    }
    return points;
}

/* ---- the registry and the name parsers, on one rank's view ---- */

static void check_registry(void)
{
    const mpiscope_op_t *up = mpiscope_op_find("waitpattern_up");
    MPI_Datatype dtype;
    MPI_Op reduce_op;
    size_t bytes;
    const char *canonical = NULL;

    here.op = "registry";
    EXPECT(mpiscope_op_count() == EXPECTED_OP_COUNT, "%zu ops", mpiscope_op_count());
    EXPECT(mpiscope_op_at(mpiscope_op_count()) == NULL, "op past the end");
    EXPECT(up && mpiscope_op_find("WaitPattern-Up") == up, "find is not case- and dash-insensitive");
    EXPECT(mpiscope_op_find("bcastx") == NULL && mpiscope_op_find("") == NULL, "found an unknown op");
    for (size_t i = 0; i < mpiscope_op_count(); i++) {
        const mpiscope_op_t *op = mpiscope_op_at(i);
        EXPECT(op->name && op->description && op->size_meaning && op->initialize && op->execute && op->finalize
                   && mpiscope_op_find(op->name) == op,
               "descriptor %zu incomplete or its name not unique", i);
    }
    EXPECT(mpiscope__dtype_parse("Double", &dtype, &bytes, &canonical) == 0 && dtype == MPI_DOUBLE
               && bytes == sizeof(double) && strcmp(canonical, "MPI_DOUBLE") == 0,
           "dtype double");
    EXPECT(mpiscope__dtype_parse("mpi_int64_t", &dtype, &bytes, NULL) == 0 && bytes == 8, "dtype int64_t");
    EXPECT(mpiscope__dtype_parse("doubles", &dtype, &bytes, NULL) == MPISCOPE_EINVAL, "dtype doubles");
    EXPECT(mpiscope__reduce_op_parse("MAX", &reduce_op, &canonical) == 0 && reduce_op == MPI_MAX
               && strcmp(canonical, "MPI_MAX") == 0,
           "op max");
    EXPECT(mpiscope__reduce_op_parse("mpi_bxor", &reduce_op, NULL) == 0 && reduce_op == MPI_BXOR, "op bxor");
    EXPECT(mpiscope__reduce_op_parse("average", &reduce_op, NULL) == MPISCOPE_EINVAL, "op average");
}

static const char *checked_what(check_kind_t kind)
{
    if (kind == CHECK_NONE)
        return "runs";
    if (is_wait(kind))
        return "wait time";
    return is_reduction(kind) ? "reduced values" : "received bytes";
}

/* 1 if any rank failed. Rank 0 prints the line. */
static int report(const char *name, const char *detail)
{
    int any_failures;

    MPI_Allreduce(&here.failures, &any_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (here.rank == 0)
        printf("%-4s %-21s %s\n", any_failures ? "FAIL" : "ok", name, detail);
    here.failures = 0;
    return any_failures != 0;
}

int main(int argc, char **argv)
{
    int nprocs, failed_ops = 0;

    int provided; /* the thread ops need MPI_THREAD_MULTIPLE (mpiscope-bench asks for it) */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &here.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0) != 0)
        mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0);
    if (here.rank == 0)
        printf("ops_check: %d ranks, llc %zu bytes\n", nprocs, mpiscope__llc_bytes());
    check_registry();
    failed_ops += report("registry", "checked: lookup, descriptors, dtype and op names");
    for (size_t i = 0; i < mpiscope_op_count(); i++) {
        const mpiscope_op_t *op = mpiscope_op_at(i);
        char detail[160];
        here.op = op->name;
        here.refused = 0;
        /* what the library must set up on every process first (op.h), as the engine does */
        EXPECT(!op->prepare || op->prepare(MPI_COMM_WORLD) == 0, "prepare failed");
        int points = run_op(op);
        if (here.refused)
            snprintf(detail, sizeof detail, "refused all %d points: this MPI library lacks what it needs", points);
        else
            snprintf(detail, sizeof detail, "%d points x %d launches (cold+warm), checked: %s", points, LAUNCHES,
                     checked_what(check_kind(op->name)));
        failed_ops += report(op->name, detail);
    }
    if (here.rank == 0)
        printf("ops_check: %s (%d failed)\n", failed_ops ? "FAILED" : "passed", failed_ops);
    MPI_Finalize();
    return failed_ops ? 1 : 0;
}
