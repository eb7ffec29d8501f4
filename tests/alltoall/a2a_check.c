/* a2a_check: every algorithm of the Alltoall lab's registry, in every
 * variant (inter-node exchange, hand-over, leaders, nodes), against
 * MPI_Alltoall, byte for byte, on random data, twice per variant and size
 * (the second time with other buffers and other data). Prints the first
 * difference and exits 1; exits 0 when every byte matched.
 *   mpiexec -n N a2a_check [--max-size BYTES] [--sample K] [--corrupt]
 * --sample K checks about one (variant, size) pair in K, a different share
 * for every number of ranks, and always each algorithm's first variant at
 * 3 and 65536 bytes and at --max-size: oversubscribed ranks on a small machine make every
 * collective cost milliseconds, so ctest spreads the matrix over 2..8 ranks.
 * --corrupt flips one received byte on purpose: the check must then fail
 * (ctest runs it as a test expected to fail). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "mpiscope/alltoall.h"
#include "mpiscope/error.h"

static const size_t sizes[] = {0, 1, 3, 8, 100, 1000, 4096, 65536, 1 << 20};
static const char *const inter_names[] = {"auto", "bruck", "pairwise", "native"};
static const char *const aggregate_names[] = {"shm", "p2p"};

typedef struct check {
    int rank, nprocs, corrupt;
    size_t max_size;
    int shm_refused;            /* this variant may be refused: shm over virtual nodes spanning real ones */
    unsigned long sample, pair; /* check pair `pair` (variant, size) if chosen(sample) */
    long checks;
    unsigned char *send[2], *recv[2], *want;
    long variants, failures;
} check_t;

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static void fill_random(unsigned char *buf, size_t n, int rank, size_t size, int round)
{
    uint64_t state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)rank << 40) ^ ((uint64_t)size << 8) ^ (uint64_t)round;
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(next_random(&state) >> 56);
}

static void describe(char *out, size_t n, const char *name, const mpiscope_alltoall_params_t *p, int leader_based)
{
    if (!leader_based)
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "%s (nodes=%d inter=%s aggregate=%s leaders=%d)", name, p->nodes, inter_names[p->inter],
                 aggregate_names[p->aggregate], p->leaders);
}

/* 1 if every rank's recv equals MPI_Alltoall's; the first difference printed by its rank. */
static int compare(check_t *c, const unsigned char *got, size_t size, const char *what, int round)
{
    int bad = 0, any;
    for (size_t i = 0; i < (size_t)c->nprocs * size; i++) {
        if (got[i] == c->want[i])
            continue;
        fprintf(stderr, "a2a_check: error: %s size %zu run %d: rank %d recv block %zu byte %zu: got 0x%02x, "
                "want 0x%02x\n", what, size, round + 1, c->rank, i / size, i % size, got[i], c->want[i]);
        bad = 1;
        break;
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

/* One variant at one size: create, two runs on different buffers, free. */
static int check_size(check_t *c, const char *name, const mpiscope_alltoall_params_t *p, size_t size,
                      const char *what)
{
    mpiscope_alltoall_t *a2a;
    size_t total = (size_t)c->nprocs * size;
    int rc = mpiscope_alltoall_create(MPI_COMM_WORLD, name, size, p, &a2a);

    if (rc == MPISCOPE_ENOTSUP && c->shm_refused)
        return 1; /* no shared window across real nodes: the refusal is the right answer */
    if (rc) {
        if (c->rank == 0)
            fprintf(stderr, "a2a_check: error: %s size %zu: create: %s\n", what, size, mpiscope_strerror(rc));
        return 0;
    }
    /* what create decided, as asked */
    if ((p->nodes > 0 && strstr(what, "nodes=") && mpiscope_alltoall_node_count(a2a) != p->nodes)
        || (p->leaders > 0 && mpiscope_alltoall_leaders(a2a) != p->leaders)) {
        fprintf(stderr, "a2a_check: error: %s size %zu: rank %d: create reports %d nodes and %d leaders\n", what,
                size, c->rank, mpiscope_alltoall_node_count(a2a), mpiscope_alltoall_leaders(a2a));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int round = 0; round < 2; round++) {
        fill_random(c->send[round], total, c->rank, size, round);
        memset(c->recv[round], 0xA5, total);
        MPI_Alltoall(c->send[round], (int)size, MPI_BYTE, c->want, (int)size, MPI_BYTE, MPI_COMM_WORLD);
        if ((rc = mpiscope_alltoall_run(a2a, c->send[round], c->recv[round])) != 0) {
            fprintf(stderr, "a2a_check: error: %s size %zu: run: %s\n", what, size, mpiscope_strerror(rc));
            MPI_Abort(MPI_COMM_WORLD, 1); /* the others may wait in the exchange */
        }
        if (c->corrupt && total && c->rank == c->nprocs - 1)
            c->recv[round][total - 1] ^= 1;
        if (!compare(c, c->recv[round], size, what, round)) {
            mpiscope_alltoall_free(a2a);
            return 0;
        }
    }
    mpiscope_alltoall_free(a2a);
    return 1;
}

/* The pairs of this share: a multiplicative hash spreads them over
 * variants and sizes, the number of ranks shifts the share. */
static int chosen(check_t *c, int first_variant, size_t size)
{
    unsigned long pair = c->pair++;

    if (c->sample <= 1 || (first_variant && (size == 3 || size == 65536 || size == c->max_size)))
        return 1;
    return ((pair * 2654435761ul) >> 7) % c->sample == (unsigned long)c->nprocs % c->sample;
}

static void check_variant(check_t *c, const char *name, const mpiscope_alltoall_params_t *p, int leader_based,
                          int first_variant)
{
    char what[160];

    describe(what, sizeof what, name, p, leader_based);
    c->variants++;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (sizes[i] > c->max_size || !chosen(c, first_variant, sizes[i]))
            continue;
        c->checks++;
        if (!check_size(c, name, p, sizes[i], what)) {
            c->failures++;
            return;
        }
    }
}

static int gcd(int x, int y)
{
    while (y) {
        int t = x % y;
        x = y;
        y = t;
    }
    return x;
}

/* The gcd of the node sizes for `nodes` (0: MPI_COMM_TYPE_SHARED, K: K blocks). */
static int common_node_size(int nprocs, int nodes)
{
    int common = 0, size, rank;
    MPI_Comm node;

    if (nodes > 0)
        return nprocs % nodes ? 1 : nprocs / nodes; /* sizes q and q + 1 have gcd 1 */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    /* the gcd over every rank's node size is the gcd over the nodes */
    int *sizes_of = malloc((size_t)nprocs * sizeof *sizes_of);
    MPI_Allgather(&size, 1, MPI_INT, sizes_of, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < nprocs; r++)
        common = gcd(common, sizes_of[r]);
    free(sizes_of);
    return common;
}

/* 1 if each of `nodes` virtual nodes lies inside one real node (shared
 * memory possible); 0 nodes: the real ones. */
static int virtual_nodes_fit(int nprocs, int nodes)
{
    int rank, first, fits = 1, q, big, *first_of = malloc((size_t)nprocs * sizeof(int));
    MPI_Comm node;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    MPI_Allgather(&first, 1, MPI_INT, first_of, 1, MPI_INT, MPI_COMM_WORLD);
    if (nodes > 0) {
        q = nprocs / nodes;
        big = nprocs % nodes;
        for (int n = 0, start = 0; n < nodes; start += q + (n < big), n++)
            for (int r = start; r < start + q + (n < big); r++)
                fits &= first_of[r] == first_of[start];
    }
    free(first_of);
    return fits;
}

/* A PLP leaders value that does not divide every node must be refused. */
static void check_refused(check_t *c, int nodes, int common)
{
    mpiscope_alltoall_params_t p = MPISCOPE_ALLTOALL_PARAMS_INIT;
    mpiscope_alltoall_t *a2a = NULL;

    p.nodes = nodes;
    for (p.leaders = 2; p.leaders <= c->nprocs && common % p.leaders == 0; p.leaders++)
        ;
    if (p.leaders > c->nprocs)
        return;
    int rc = mpiscope_alltoall_create(MPI_COMM_WORLD, "plp", 8, &p, &a2a);
    if (rc != MPISCOPE_EINVAL) {
        if (c->rank == 0)
            fprintf(stderr, "a2a_check: error: plp nodes=%d leaders=%d (node gcd %d): create returned %d, "
                    "want MPISCOPE_EINVAL\n", nodes, p.leaders, common, rc);
        mpiscope_alltoall_free(a2a);
        c->failures++;
    }
}

/* Arguments create must refuse with MPISCOPE_EINVAL, on every rank. */
static void check_bad_arguments(check_t *c)
{
    mpiscope_alltoall_params_t flags = MPISCOPE_ALLTOALL_PARAMS_INIT, nodes = flags, leaders = flags;
    mpiscope_alltoall_t *a2a = NULL;
    struct { const char *name; const mpiscope_alltoall_params_t *p; const char *why; } bad[] = {
        {"ring", NULL, "unknown algorithm"}, {NULL, NULL, "no algorithm"},
        {"bruck", &flags, "flags != 0"}, {"one_leader", &nodes, "nodes > nprocs"},
        {"plp", &leaders, "negative leaders"},
    };

    flags.flags = 1;
    nodes.nodes = c->nprocs + 1;
    leaders.leaders = -1;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = mpiscope_alltoall_create(MPI_COMM_WORLD, bad[i].name, 8, bad[i].p, &a2a);
        if (rc != MPISCOPE_EINVAL || a2a) {
            fprintf(stderr, "a2a_check: error: rank %d: create with %s returned %d, want MPISCOPE_EINVAL\n",
                    c->rank, bad[i].why, rc);
            mpiscope_alltoall_free(a2a);
            c->failures++;
        }
    }
    if (mpiscope_alltoall_create(MPI_COMM_WORLD, "bruck", 8, NULL, NULL) != MPISCOPE_EINVAL
        || mpiscope_alltoall_run(NULL, NULL, NULL) != MPISCOPE_EINVAL) {
        fprintf(stderr, "a2a_check: error: rank %d: NULL out or handle accepted\n", c->rank);
        c->failures++;
    }
}

static void check_leader_based(check_t *c, const char *name, int plp)
{
    mpiscope_alltoall_params_t p = MPISCOPE_ALLTOALL_PARAMS_INIT;
    int first = 1;

    for (p.nodes = 0; p.nodes <= 3 && p.nodes <= c->nprocs; p.nodes++) {
        int common = common_node_size(c->nprocs, p.nodes), fits = virtual_nodes_fit(c->nprocs, p.nodes);
        for (int inter = 0; inter < 4; inter++)
            for (int aggregate = 0; aggregate < 2; aggregate++)
                for (p.leaders = 0; p.leaders <= (plp ? common : 0); p.leaders++) {
                    if (p.leaders && common % p.leaders)
                        continue;
                    p.inter = (mpiscope_alltoall_inter_t)inter;
                    p.aggregate = (mpiscope_alltoall_aggregate_t)aggregate;
                    c->shm_refused = !fits && p.aggregate == MPISCOPE_ALLTOALL_AGGREGATE_SHM;
                    check_variant(c, name, &p, 1, first);
                    first = 0;
                }
        c->shm_refused = 0;
        if (plp)
            check_refused(c, p.nodes, common);
    }
}

static int parse(check_t *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--corrupt"))
            c->corrupt = 1;
        else if (!strcmp(argv[i], "--max-size") && i + 1 < argc)
            c->max_size = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--sample") && i + 1 < argc)
            c->sample = strtoul(argv[++i], NULL, 10);
        else
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    check_t c = {.max_size = 1 << 20};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);
    if (!parse(&c, argc, argv)) {
        if (c.rank == 0)
            fprintf(stderr, "a2a_check: error: usage: a2a_check [--max-size BYTES] [--sample K] [--corrupt]\n");
        MPI_Finalize();
        return 2;
    }
    size_t bytes = (size_t)c.nprocs * c.max_size + 1;
    c.send[0] = malloc(bytes), c.send[1] = malloc(bytes), c.recv[0] = malloc(bytes), c.recv[1] = malloc(bytes);
    c.want = malloc(bytes);
    check_bad_arguments(&c);
    for (size_t i = 0; i < mpiscope_alltoall_algorithm_count() && !c.failures; i++) {
        const mpiscope_alltoall_algorithm_t *alg = mpiscope_alltoall_algorithm_at(i);
        mpiscope_alltoall_params_t p = MPISCOPE_ALLTOALL_PARAMS_INIT;
        if (alg->leader_based)
            check_leader_based(&c, alg->name, !strcmp(alg->name, "plp"));
        else
            check_variant(&c, alg->name, &p, 0, 1);
    }
    if (c.rank == 0)
        printf("a2a_check: %d ranks, %zu algorithms, %ld variants, %ld (variant, size) checks up to %zu bytes: "
               "%s\n", c.nprocs, mpiscope_alltoall_algorithm_count(), c.variants, c.checks, c.max_size,
               c.failures ? "FAILED" : "all match");
    for (int i = 0; i < 2; i++) {
        free(c.send[i]);
        free(c.recv[i]);
    }
    free(c.want);
    MPI_Finalize();
    return c.failures ? 1 : 0;
}
