/* ops_validate.c: every registered operation through its validate hook.
 * For each op: its default options and every variant of the options it
 * declares (datatypes, in place, modes, pairs and their rounds, windows, compute, one-sided
 * synchronizations and windows, topologies, element types and
 * reductions), at a few sizes, in a cold and a warm pool, a few launches
 * each: PREPARE, execute, CHECK must pass on every rank. Then the hooks
 * must be able to fail: a launch prepared and checked but not executed must
 * be reported by some rank (barriers carry no data and are exempt).
 * Rooted ops use root nprocs-1. Rank 0 prints one line per op; the exit
 * status is 1 on any failure. Run: mpiexec -n 2 ./ops_validate (any n). */
#include "opctx.h"
#include "refusal.h"
#include "mpiscope/error.h"
#include "mpiscope/timer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LAUNCHES = 3, MAX_OPTIONS = 4, MAX_REPORTS_PER_OP = 3 };
static const size_t default_sizes[] = {0, 1, 1000, 65536};
static const size_t variant_sizes[] = {1, 1000};
#define POOL_LIMIT_BYTES ((size_t)8 << 20)

/* Options set together, or an element type and reduction (reductions only). */
typedef struct variant {
    const char *names[MAX_OPTIONS];
    const char *values[MAX_OPTIONS];
    const char *dtype, *reduce_op;
} variant_t;

#define OPT1(a, x)                                                                                                     \
    {                                                                                                                  \
        .names = {a}, .values = {x}                                                                                    \
    }
#define OPT2(a, x, b, y)                                                                                               \
    {                                                                                                                  \
        .names = {a, b}, .values = {x, y}                                                                              \
    }
#define ELEMENTS(t, o) {.dtype = t, .reduce_op = o}
static variant_t variants[] = {
    {.names = {NULL}}, /* the defaults */
    OPT1("datatype", "vector:3"),
    OPT1("datatype", "indexed"),
    OPT1("datatype", "struct"),
    OPT1("in_place", "1"),
    OPT2("in_place", "1", "datatype", "indexed"),
    OPT1("mode", "blocking"),
    OPT1("mode", "nonblocking"),
    OPT1("mode", "synchronous"),
    OPT1("mode", "persistent"),
    OPT2("mode", "persistent", "datatype", "struct"),
    OPT1("pairs", "all"),
    OPT2("pairs", "0-1;1-0", "mode", "blocking"), /* rounds: both roles */
    OPT2("pairs", "0-1;1-0", "mode", "nonblocking"),
    OPT1("window", "3"),
    OPT2("compute_us", "5", "test_us", "1"),
    OPT1("periodic", "1"),
    OPT2("dims", "2", "periodic", "0"),
    OPT1("dims", "3"),
    OPT1("graph", NULL), /* the path is made at run time */
    OPT2("sync", "fence", "win", "create"),
    OPT2("sync", "fence", "win", "allocate"),
    OPT2("sync", "fence", "win", "dynamic"),
    OPT2("sync", "pscw", "win", "create"),
    OPT2("sync", "pscw", "win", "allocate"),
    OPT2("sync", "pscw", "win", "dynamic"),
    OPT2("sync", "lock", "win", "create"),
    OPT2("sync", "lock", "win", "allocate"),
    OPT2("sync", "lock", "win", "dynamic"),
    OPT2("sync", "lock_all", "win", "create"),
    OPT2("sync", "lock_all", "win", "allocate"),
    OPT2("sync", "lock_all", "win", "dynamic"),
    OPT2("nodes", "2", "aggregate", "p2p"),
    OPT2("nodes", "2", "inter", "bruck"),
    OPT2("inter", "native", "aggregate", "p2p"),
    OPT2("nodes", "1", "leaders", "1"),
    /* threads, partitioned, MPI-IO */
    OPT1("threads", "1"),
    OPT1("threads", "3"),
    OPT1("separation", "tag"),
    OPT1("separation", "shared"),
    OPT2("as", "messages", "order", "reverse"),
    OPT2("as", "single", "order", "random"),
    OPT2("order", "random", "fill_us", "2"),
    OPT1("partitions", "3"),
    OPT1("access", "collective"),
    OPT1("layout", "strided"),
    OPT1("file", "per_process"),
    OPT2("file", "per_process", "layout", "strided"),
    OPT2("access", "collective", "layout", "strided"),
    OPT2("access", "collective", "cb", "enable"),
    OPT2("access", "collective", "cb", "disable"),
    OPT2("sync", "1", "access", "individual"),
    OPT2("hints", "cb_buffer_size=65536", "access", "collective"),
    ELEMENTS("int", "prod"),
    ELEMENTS("uint8_t", "bxor"),
    ELEMENTS("float", "max"),
    ELEMENTS("int16_t", "lor"),
    ELEMENTS("long_double", "min"),
    ELEMENTS("unsigned", "land"),
    ELEMENTS("int64_t", "band"),
    ELEMENTS("uint16_t", "bor"),
    ELEMENTS("long", "lxor"),
};
enum { N_VARIANTS = sizeof variants / sizeof *variants };

static struct {
    int rank, nprocs;
    const char *op;
    int failures; /* this rank's, for the current op */
    int refused;  /* points the op refused as it should (refusal_expected) */
} here;

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *format, ...)
{
    va_list args;

    if (here.failures++ >= MAX_REPORTS_PER_OP)
        return;
    fprintf(stderr, "ops_validate: rank %d: %s: ", here.rank, here.op);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

static int declares(const mpiscope_op_t *op, const char *name)
{
    for (const mpiscope_op_option_t *o = op->options; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return 1;
    return 0;
}

static size_t n_options(const variant_t *v)
{
    size_t n = 0;
    while (n < MAX_OPTIONS && v->names[n])
        n++;
    return n;
}

static int applies(const mpiscope_op_t *op, const variant_t *v)
{
    if (v->dtype)
        return (op->flags & MPISCOPE_OP_USES_REDUCTION) != 0;
    for (size_t i = 0; i < n_options(v); i++)
        if (!declares(op, v->names[i]))
            return 0;
    return 1;
}

/* Open MPI 5.0's nonblocking and persistent neighbor alltoalls put the
 * blocks of a periodic dimension of 1 or 2 ranks in the wrong slots
 * (open-mpi/ompi#14430): reported, not counted. */
static int known_mpi_bug(const mpiscope_op_t *op, const variant_t *v)
{
#ifdef OPEN_MPI
    int alltoall = strstr(op->name, "neighbor_alltoall") != NULL;
    int nonblocking = op->name[0] == 'i' || strstr(op->name, "_init") != NULL;
    for (size_t i = 0; alltoall && nonblocking && i < n_options(v); i++)
        if (strcmp(v->names[i], "periodic") == 0 && strcmp(v->values[i], "1") == 0)
            return here.nprocs <= 2;
#else
    (void)op;
    (void)v;
#endif
    return 0;
}

typedef struct point {
    mpiscope__op_engine_t engine;
    const char *names[MAX_OPTIONS + 1], *values[MAX_OPTIONS + 1]; /* the variant's, and a small grid */
    mpiscope_op_ctx_t ctx;
    int initialized;
} point_t;

/* Set up ctx for op at size_bytes with variant v (0 or an MPISCOPE_E code). */
static int point_begin(point_t *p, const mpiscope_op_t *op, const variant_t *v, mpiscope__buffer_pool_t *pool,
                       size_t size_bytes)
{
    MPI_Datatype dtype = MPI_BYTE;
    MPI_Op reduce_op = MPI_OP_NULL;
    size_t bytes;
    int root = op->flags & MPISCOPE_OP_USES_ROOT ? here.nprocs - 1 : 0, rc;

    size_t n = n_options(v);

    memset(p, 0, sizeof *p);
    memcpy(p->names, v->names, n * sizeof *p->names);
    memcpy(p->values, v->values, n * sizeof *p->values);
    if (declares(op, "grid")) { /* fft3d's default 120^3 grid takes seconds per launch under the
                                   sanitizers: a 12^3 one checks the same code */
        p->names[n] = "grid";
        p->values[n++] = "12";
    }
    p->engine = (mpiscope__op_engine_t){
        .pool = pool, .op = op, .option_names = p->names, .option_values = p->values, .n_options = n};
    if ((op->flags & MPISCOPE_OP_USES_REDUCTION)
        && (mpiscope__dtype_parse(v->dtype ? v->dtype : "double", &dtype, &bytes, NULL) != 0
            || mpiscope__reduce_op_parse(v->reduce_op ? v->reduce_op : "sum", &reduce_op, NULL) != 0))
        return MPISCOPE_EINVAL;
    rc = mpiscope__op_ctx_init(&p->ctx, MPI_COMM_WORLD, size_bytes, root, dtype, reduce_op, &p->engine);
    if (!rc)
        rc = op->initialize(&p->ctx);
    p->initialized = rc == 0;
    return rc;
}

static void point_end(point_t *p, const mpiscope_op_t *op)
{
    if (p->initialized && op->finalize(&p->ctx) != 0)
        fail("finalize failed");
    mpiscope__op_ctx_release_buffers(&p->ctx);
    mpiscope__op_engine_free(&p->engine);
}

/* One launch, validated; execute skipped when !run. 0 if this rank's check passed. */
static int launch(const mpiscope_op_t *op, point_t *p, size_t number, int run)
{
    int rc;

    mpiscope__op_ctx_select_buffers(&p->ctx, number);
    p->engine.mismatch[0] = '\0';
    if ((rc = op->validate(&p->ctx, MPISCOPE_VALIDATE_PREPARE)) != 0)
        fail("prepare: %s", mpiscope_strerror(rc));
    if (run && (rc = op->execute(&p->ctx)) != 0)
        fail("execute: %s", mpiscope_strerror(rc));
    return op->validate(&p->ctx, MPISCOPE_VALIDATE_CHECK);
}

static const char *describe(const variant_t *v, char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "%s", v->dtype ? v->dtype : "");
    if (v->reduce_op)
        used += (size_t)snprintf(text + used, size - used, " %s", v->reduce_op);
    for (size_t i = 0; i < n_options(v) && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, " %s=%s", v->names[i], v->values[i]);
    return used ? text : "defaults";
}

/* Every size of one variant in a cold and a warm pool; returns the points run. */
static int run_variant(const mpiscope_op_t *op, const variant_t *v, int *bug_seen)
{
    int is_default = v == &variants[0], points = 0, expected_bug = known_mpi_bug(op, v);
    const size_t *sizes = is_default ? default_sizes : variant_sizes;
    size_t n_sizes = !(op->flags & MPISCOPE_OP_USES_SIZE) ? 1
                     : is_default                         ? sizeof default_sizes / sizeof *default_sizes
                                                          : sizeof variant_sizes / sizeof *variant_sizes;
    char text[128];

    for (int cold = 1; cold >= 0; cold--) {
        mpiscope__buffer_pool_t *pool;
        if (mpiscope__buffer_pool_create(cold, 64, POOL_LIMIT_BYTES, &pool) != 0) {
            fail("pool");
            return points;
        }
        for (size_t s = 0; s < n_sizes; s++, points++) {
            size_t size = op->flags & MPISCOPE_OP_USES_SIZE ? sizes[s] : 0;
            point_t p;
            int rc = point_begin(&p, op, v, pool, size);
            if (rc == MPISCOPE_ENOTSUP && refusal_expected(op))
                here.refused++;
            else if (rc)
                fail("%s size %zu: initialize: %s", describe(v, text, sizeof text), size, mpiscope_strerror(rc));
            for (size_t l = 0; !rc && l < LAUNCHES; l++)
                if (launch(op, &p, l, 1) != 0) {
                    if (expected_bug)
                        *bug_seen = 1;
                    else
                        fail("%s %s size %zu launch %zu: %s", describe(v, text, sizeof text), cold ? "cold" : "warm",
                             size, l, p.engine.mismatch);
                }
            point_end(&p, op);
        }
        mpiscope__buffer_pool_destroy(pool);
    }
    return points;
}

/* A launch not executed must fail some rank's check. Returns 1 if it did. */
static int skipped_launch_caught(const mpiscope_op_t *op)
{
    mpiscope__buffer_pool_t *pool;
    point_t p;
    int mine = 0, any = 0;

    if (mpiscope__buffer_pool_create(0, 64, POOL_LIMIT_BYTES, &pool) != 0)
        return 0;
    if (point_begin(&p, op, &variants[0], pool, 1000) == 0) {
        if (launch(op, &p, 0, 1) != 0)
            fail("the launch before the skipped one failed: %s", p.engine.mismatch);
        mine = launch(op, &p, 1, 0) != 0;
    }
    point_end(&p, op);
    mpiscope__buffer_pool_destroy(pool);
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static int carries_no_data(const mpiscope_op_t *op)
{
    return strstr(op->name, "barrier") != NULL;
}

static void run_op(const mpiscope_op_t *op, char *detail, size_t size)
{
    int points = 0, n_variants = 0, bug_seen = 0, bug_anywhere = 0, caught;

    here.op = op->name;
    if (!op->validate) {
        fail("no validate hook");
        snprintf(detail, size, "no validate hook");
        return;
    }
    for (size_t i = 0; i < N_VARIANTS; i++)
        if (applies(op, &variants[i])) {
            points += run_variant(op, &variants[i], &bug_seen);
            n_variants++;
        }
    if (here.refused) {
        snprintf(detail, size, "refused all %d points: this MPI library lacks what it needs", points);
        here.refused = 0;
        return;
    }
    caught = skipped_launch_caught(op);
    if (!caught && !carries_no_data(op))
        fail("a launch that did not run passed every check");
    MPI_Allreduce(&bug_seen, &bug_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    snprintf(detail, size, "%d variants, %d points x %d launches%s%s", n_variants, points, LAUNCHES,
             caught ? ", skipped launch caught" : "",
             bug_anywhere ? "; periodic=1: Open MPI bug ompi#14430 reproduced" : "");
}

/* A ring where every rank sends twice to the next and once to the one before. */
static void write_graph(char *path, size_t size)
{
    int fd;
    FILE *f;

    snprintf(path, size, "/tmp/mpiscope-ops-validate-XXXXXX");
    if (here.rank == 0 && (fd = mkstemp(path)) >= 0 && (f = fdopen(fd, "w"))) {
        fprintf(f, "# written by ops_validate\n");
        for (int r = 0; r < here.nprocs; r++)
            fprintf(f, "%d: %d %d %d\n", r, (r + 1) % here.nprocs, (r + 1) % here.nprocs,
                    (r + here.nprocs - 1) % here.nprocs);
        fclose(f);
    }
    MPI_Bcast(path, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    char graph[64], detail[160];
    int failed_ops = 0;

    int provided; /* the thread ops need MPI_THREAD_MULTIPLE (mpiscope-bench asks for it) */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &here.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &here.nprocs);
    if (mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0) != 0)
        mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0);
    write_graph(graph, sizeof graph);
    for (size_t i = 0; i < N_VARIANTS; i++)
        if (variants[i].names[0] && strcmp(variants[i].names[0], "graph") == 0)
            variants[i].values[0] = graph;
    for (size_t i = 0; i < mpiscope_op_count(); i++) {
        const mpiscope_op_t *op = mpiscope_op_at(i);
        int any;
        here.op = op->name; /* what the library must set up on every process first (op.h) */
        if (op->prepare && op->prepare(MPI_COMM_WORLD) != 0)
            fail("prepare failed");
        run_op(op, detail, sizeof detail);
        MPI_Allreduce(&here.failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (here.rank == 0)
            printf("%-4s %-26s %s\n", any ? "FAIL" : "ok", op->name, detail);
        failed_ops += any != 0;
        here.failures = 0;
    }
    if (here.rank == 0) {
        unlink(graph);
        printf("ops_validate: %d ranks, %s (%d failed)\n", here.nprocs, failed_ops ? "FAILED" : "passed", failed_ops);
    }
    MPI_Finalize();
    return failed_ops ? 1 : 0;
}
