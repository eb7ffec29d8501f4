/* ops.c: the Alltoall lab's algorithms as measurable operations
 * (`mpiscope run alltoall_plp --option leaders=2`), in the shape of the
 * built-in alltoall: block j of the send buffer goes to rank j. Options
 * become mpiscope_alltoall_params_t; validation checks that every receive
 * block holds the data its sender wrote for this rank in this launch. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "a2a.h"
#include "layout.h"
#include "opctx.h"
#include "options.h"
#include "pattern.h"

static const char *const choices_inter[] = {"auto", "bruck", "pairwise", "native", NULL};
static const char *const choices_aggregate[] = {"shm", "p2p", NULL};

#define OPT_NODES                                                                                                      \
    {.name = "nodes",                                                                                                  \
     .default_value = "0",                                                                                             \
     .unit = "nodes",                                                                                                  \
     .type = "integer",                                                                                                \
     .description = "0: nodes from MPI_COMM_TYPE_SHARED; K: K virtual nodes of consecutive ranks"}
#define OPT_INTER                                                                                                      \
    {.name = "inter",                                                                                                  \
     .default_value = "auto",                                                                                          \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = choices_inter,                                                                                         \
     .description = "the leaders' exchange between nodes: auto (Bruck up to size_crit, else pairwise), "               \
                    "bruck, pairwise, native (MPI_Alltoall)"}
#define OPT_AGGREGATE                                                                                                  \
    {.name = "aggregate",                                                                                              \
     .default_value = "shm",                                                                                           \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = choices_aggregate,                                                                                     \
     .description = "hand-over inside a node: shm (one MPI-3 shared window per node), p2p (messages)"}
#define OPT_SIZE_CRIT                                                                                                  \
    {.name = "size_crit",                                                                                              \
     .default_value = "8192",                                                                                          \
     .unit = "bytes",                                                                                                  \
     .type = "integer",                                                                                                \
     .description = "Bruck/ring switch of the inter-node exchange, bytes per destination node"}
#define OPT_LEADERS                                                                                                    \
    {.name = "leaders",                                                                                                \
     .default_value = "0",                                                                                             \
     .unit = "ranks",                                                                                                  \
     .type = "integer",                                                                                                \
     .description = "leaders per node, dividing every node's rank count; 0: the seed's rule"}

static const mpiscope_op_option_t leader_options[] = {OPT_NODES, OPT_INTER, OPT_AGGREGATE, OPT_SIZE_CRIT,
                                                      MPISCOPE__OPT_END};
static const mpiscope_op_option_t plp_options[] = {OPT_NODES,     OPT_INTER,   OPT_AGGREGATE,
                                                   OPT_SIZE_CRIT, OPT_LEADERS, MPISCOPE__OPT_END};

typedef struct a2a_op {
    mpiscope_alltoall_t *a2a;
    mpiscope__layout_t layout; /* plain bytes: the validation data's view */
} a2a_op_t;

static int read_params(const mpiscope_op_ctx_t *ctx, mpiscope_alltoall_params_t *p)
{
    long nodes, crit, leaders = 0;
    int inter, aggregate, rc;

    if (!ctx->op->options)
        return 0; /* bruck, pairwise, linear: nothing to set */
    if ((rc = mpiscope__option_long(ctx, "nodes", 0, ctx->nprocs, &nodes)) != 0
        || (rc = mpiscope__option_choice(ctx, "inter", choices_inter, &inter)) != 0
        || (rc = mpiscope__option_choice(ctx, "aggregate", choices_aggregate, &aggregate)) != 0
        || (rc = mpiscope__option_long(ctx, "size_crit", 0, LONG_MAX, &crit)) != 0
        || (ctx->op->options == plp_options
            && (rc = mpiscope__option_long(ctx, "leaders", 0, ctx->nprocs, &leaders)) != 0))
        return rc;
    p->nodes = (int)nodes;
    p->inter = (mpiscope_alltoall_inter_t)inter;
    p->aggregate = (mpiscope_alltoall_aggregate_t)aggregate;
    p->size_crit_bytes = (size_t)crit;
    p->leaders = (int)leaders;
    return 0;
}

/* `fixed`: one buffer pair for every launch, for an algorithm that binds
 * its receive buffer (lss attaches it to an RMA window: rotating buffers
 * would put MPI_Win_attach in every timed call; the seed registered them once). */
static int setup(mpiscope_op_ctx_t *ctx, a2a_op_t *s, const char *algorithm, int fixed)
{
    mpiscope_alltoall_params_t params = MPISCOPE_ALLTOALL_PARAMS_INIT;
    size_t n = (size_t)ctx->nprocs, size = ctx->size_bytes;
    int rc;

    if (size && n > SIZE_MAX / size)
        return MPISCOPE_ERANGE;
    rc = read_params(ctx, &params);
    if (rc
        || (rc = fixed ? mpiscope_op_ctx_buffers_fixed(ctx, n * size, n * size)
                       : mpiscope_op_ctx_buffers(ctx, n * size, n * size))
               != 0
        || (rc = mpiscope__layout_create("bytes", size, &s->layout)) != 0)
        return rc;
    rc = mpiscope_alltoall_create(ctx->comm, algorithm, size, &params, &s->a2a);
    /* the arguments are checked above but for this one: name it */
    return rc == MPISCOPE_EINVAL && params.leaders ? mpiscope__op_ctx_bad_option(ctx, "leaders") : rc;
}

static int a2a_finalize(mpiscope_op_ctx_t *ctx)
{
    a2a_op_t *s = ctx->state;

    if (!s)
        return 0;
    mpiscope_alltoall_free(s->a2a);
    mpiscope__layout_free(&s->layout);
    free(s);
    ctx->state = NULL;
    return 0;
}

/* Every rank fails alike up to create, which agrees on one verdict. */
static int a2a_initialize(mpiscope_op_ctx_t *ctx, const char *algorithm, int fixed)
{
    a2a_op_t *s = calloc(1, sizeof *s);
    int rc;

    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    if ((rc = setup(ctx, s, algorithm, fixed)) != 0)
        a2a_finalize(ctx);
    return rc;
}

static int a2a_execute(mpiscope_op_ctx_t *ctx)
{
    a2a_op_t *s = ctx->state;
    return mpiscope_alltoall_run(s->a2a, ctx->send, ctx->recv);
}

/* Send block b carries (this rank, block b, launch); receive block j must
 * hold (rank j, block rank, launch). */
static int a2a_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    a2a_op_t *s = ctx->state;
    size_t size = ctx->size_bytes;
    unsigned char *send = ctx->send, *recv = ctx->recv;
    int rc = 0;

    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        if (size)
            memset(recv, MPISCOPE__POISON, (size_t)ctx->nprocs * size);
        for (int b = 0; b < ctx->nprocs; b++)
            mpiscope__pattern_fill(send + (size_t)b * size, &s->layout, ctx->rank, (size_t)b, ctx->launch);
        return 0;
    }
    for (int j = 0; !rc && j < ctx->nprocs; j++)
        rc = mpiscope__pattern_check(ctx, recv + (size_t)j * size, &s->layout, j, (size_t)ctx->rank, "recv block",
                                     (size_t)j);
    return rc;
}

#define SIZE_MEANING "bytes each rank sends to each rank (itself included)"
#define A2A_OP(NAME, ALGORITHM, FIXED, OPTIONS, DESCRIPTION)                                                           \
    static int NAME##_initialize(mpiscope_op_ctx_t *ctx)                                                               \
    {                                                                                                                  \
        return a2a_initialize(ctx, ALGORITHM, FIXED);                                                                  \
    }                                                                                                                  \
    const mpiscope_op_t mpiscope__op_##NAME = {                                                                        \
        .abi = MPISCOPE_OP_ABI,                                                                                        \
        .name = #NAME,                                                                                                 \
        .description = DESCRIPTION,                                                                                    \
        .size_meaning = SIZE_MEANING,                                                                                  \
        .flags = MPISCOPE_OP_USES_SIZE | MPISCOPE_OP_SYNCHRONIZING | MPISCOPE_OP_BANDWIDTH,                            \
        .options = OPTIONS,                                                                                            \
        .initialize = NAME##_initialize,                                                                               \
        .execute = a2a_execute,                                                                                        \
        .finalize = a2a_finalize,                                                                                      \
        .validate = a2a_validate,                                                                                      \
    };

A2A_OP(alltoall_bruck, "bruck", 0, NULL,
       "Alltoall lab: radix-2 Bruck over Sendrecv, ceil(log2 p) steps (the seed's small-block algorithm)")
A2A_OP(alltoall_pairwise, "pairwise", 0, NULL,
       "Alltoall lab: virtual ring over Sendrecv, p - 1 steps (the seed's large-block algorithm)")
A2A_OP(alltoall_linear, "linear", 0, NULL,
       "Alltoall lab: every Irecv and Isend posted at once in staggered order, one Waitall")
A2A_OP(alltoall_one_leader, "one_leader", 0, leader_options,
       "Alltoall lab: one leader per node aggregates its node's blocks (shared memory) for one "
       "inter-node exchange among the leaders")
A2A_OP(alltoall_m_leader, "m_leader", 0, leader_options,
       "Alltoall lab: every rank is a leader for its own blocks: one inter-node exchange per local rank")
A2A_OP(alltoall_plp, "plp", 0, plp_options,
       "Alltoall lab: PLP, d leaders per node (the seed's rule or the leaders option) each aggregating "
       "a group of ranks")
A2A_OP(alltoall_lss, "lss", 1, NULL,
       "Alltoall lab: LSS in MPI-3 RMA form, a ring of MPI_Put with sqrt(p) address handshakes and one "
       "completion instead of a FIN per block")
