/* coll.c: the shared hooks of the collective family (coll.h). */
#include "coll.h"
#include "layout.h"
#include "pattern.h"
#include "topology.h"
#include "values.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ctx->state of every collective. */
typedef struct coll {
    const mpiscope__coll_class_t *cls;
    mpiscope__coll_args_t args;
    mpiscope__layout_t layout;        /* MOVE */
    mpiscope__values_t values;        /* REDUCE */
    mpiscope__topology_t topology;    /* neighborhood */
    size_t input_blocks;              /* this rank's input, in messages */
    size_t send_blocks, recv_blocks;  /* this rank's buffers, in messages */
    int send_in_place, recv_in_place; /* MPI_IN_PLACE passed for send / recv */
    int input_in_recv;                /* this rank's data sits in its receive buffer */
    int *ranks;                       /* 0 .. nprocs-1: contributor lists */
    MPI_Request request;              /* nonblocking and persistent forms */
    double compute_ns, test_ns;
} coll_t;

const char *const mpiscope__choices_no_yes[] = {"0", "1", NULL};

static size_t shape_blocks(const coll_t *c, int shape)
{
    int root = c->args.rank == c->args.root;

    switch (shape) {
    case MPISCOPE__SHAPE_ONE:
        return 1;
    case MPISCOPE__SHAPE_ALL:
        return (size_t)c->args.nprocs;
    case MPISCOPE__SHAPE_ROOT_ONE:
        return root;
    case MPISCOPE__SHAPE_ROOT_ALL:
        return root ? (size_t)c->args.nprocs : 0;
    case MPISCOPE__SHAPE_IN_NEIGHBORS:
        return (size_t)c->topology.in_degree;
    case MPISCOPE__SHAPE_OUT_NEIGHBORS:
        return (size_t)c->topology.out_degree;
    default:
        return 0;
    }
}

/* The message: a layout (data movement) or count elements (reductions). */
static int set_message(mpiscope_op_ctx_t *ctx, coll_t *c)
{
    int rc;

    if (c->cls->kind == MPISCOPE__COLL_MOVE) {
        if (c->cls->large)
            mpiscope__layout_large_bytes(ctx->size_bytes, &c->layout);
        else if ((rc = mpiscope__layout_create(mpiscope_op_ctx_option(ctx, "datatype"), ctx->size_bytes, &c->layout))
                 != 0)
            return rc;
        c->args.ccount = (MPI_Count)ctx->size_bytes;
        c->args.type = c->layout.type;
        c->args.count = c->layout.count;
        c->args.span_bytes = c->layout.span_bytes;
        ctx->actual_bytes = c->layout.payload_bytes;
    } else if (c->cls->kind == MPISCOPE__COLL_REDUCE) {
        if (ctx->count > INT_MAX && !c->cls->large)
            return MPISCOPE_ERANGE;
        if ((rc = mpiscope__values_init(&c->values, ctx->dtype, ctx->dtype_bytes, ctx->reduce_op, ctx->nprocs)) != 0)
            return rc;
        c->args.type = ctx->dtype;
        c->args.count = ctx->count > INT_MAX ? 0 : (int)ctx->count;
        c->args.ccount = (MPI_Count)ctx->count;
        c->args.op = ctx->reduce_op;
        c->args.span_bytes = ctx->count * ctx->dtype_bytes;
    }
    return 0;
}

/* in_place=1 and where MPI_IN_PLACE goes on this rank. */
static int set_in_place(const mpiscope_op_ctx_t *ctx, coll_t *c)
{
    int where = c->cls->in_place, root = c->args.rank == c->args.root, in_place = 0;

    if (where != MPISCOPE__IN_PLACE_NO && where != MPISCOPE__IN_PLACE_BCAST
        && mpiscope__option_choice(ctx, "in_place", mpiscope__choices_no_yes, &in_place) != 0)
        return MPISCOPE_EINVAL;
    c->send_in_place =
        in_place && (where == MPISCOPE__IN_PLACE_SEND || (where == MPISCOPE__IN_PLACE_SEND_AT_ROOT && root));
    c->recv_in_place = in_place && where == MPISCOPE__IN_PLACE_RECV_AT_ROOT && root;
    c->input_in_recv = c->send_in_place || (where == MPISCOPE__IN_PLACE_BCAST && root);
    return 0;
}

static int set_buffers(mpiscope_op_ctx_t *ctx, coll_t *c, mpiscope__coll_form_t form)
{
    size_t span = c->args.span_bytes;

    c->input_blocks = shape_blocks(c, c->cls->send);
    /* an input in the receive buffer needs no send buffer: a Bcast root's
     * unused one doubled what its cold slots held and flushed (2 MiB a
     * slot at 1 MiB: 16 MiB faulted in, and flushed per stage) */
    c->send_blocks = c->input_in_recv ? 0 : c->input_blocks;
    c->recv_blocks = c->recv_in_place ? 0 : shape_blocks(c, c->cls->recv);
    if (c->cls->kind == MPISCOPE__COLL_REDUCE && c->send_in_place && c->input_blocks > c->recv_blocks)
        c->recv_blocks = c->input_blocks; /* in place, the input is in the receive buffer */
    if (c->cls->kind == MPISCOPE__COLL_SYNC)
        return 0;
    if (span && (c->send_blocks > SIZE_MAX / span || c->recv_blocks > SIZE_MAX / span))
        return MPISCOPE_ERANGE;
    if (c->cls->large) { /* one pair, and only once the node is known to hold it */
        int rc = mpiscope__ops_memory_check(ctx, (c->send_blocks + c->recv_blocks) * span);
        return rc ? rc : mpiscope_op_ctx_buffers_fixed(ctx, c->send_blocks * span, c->recv_blocks * span);
    }
    return (form == MPISCOPE__COLL_PERSISTENT ? mpiscope_op_ctx_buffers_fixed : mpiscope_op_ctx_buffers)(
        ctx, c->send_blocks * span, c->recv_blocks * span);
}

/* A large-count class beyond int displacements: the w variant's byte
 * displacements (MPI_Aint) and types; the int arrays stay unused. */
static int set_vectors_bytes(mpiscope__coll_args_t *a, size_t n)
{
    a->aint_displs = malloc(n * sizeof *a->aint_displs);
    a->types = malloc(n * sizeof *a->types);
    if (!a->aint_displs || !a->types)
        return MPISCOPE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        a->aint_displs[i] = (MPI_Aint)(i * a->span_bytes);
        a->types[i] = a->type;
    }
    return 0;
}

/* The v/w arrays: every peer the same message, at its own place. */
static int set_vectors(coll_t *c)
{
    mpiscope__coll_args_t *a = &c->args;
    size_t n = (size_t)a->nprocs;

    if (n < (size_t)c->topology.in_degree)
        n = (size_t)c->topology.in_degree;
    if (n < (size_t)c->topology.out_degree)
        n = (size_t)c->topology.out_degree;
    if (c->cls->large) {
        a->ccounts = malloc(n * sizeof *a->ccounts);
        a->cdispls = malloc(n * sizeof *a->cdispls);
        if (!a->ccounts || !a->cdispls)
            return MPISCOPE_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            a->ccounts[i] = a->ccount;
            a->cdispls[i] = (MPI_Aint)i * (MPI_Aint)a->ccount;
        }
    }
    if ((a->count && n > (size_t)INT_MAX / (size_t)a->count) || (a->span_bytes && n > INT_MAX / a->span_bytes))
        return c->cls->large ? set_vectors_bytes(a, n) : MPISCOPE_ERANGE;
    a->counts = malloc(n * sizeof *a->counts);
    a->displs = malloc(n * sizeof *a->displs);
    a->byte_displs = malloc(n * sizeof *a->byte_displs);
    a->aint_displs = malloc(n * sizeof *a->aint_displs);
    a->types = malloc(n * sizeof *a->types);
    if (!a->counts || !a->displs || !a->byte_displs || !a->aint_displs || !a->types)
        return MPISCOPE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        a->counts[i] = a->count;
        a->displs[i] = (int)i * a->count;
        a->byte_displs[i] = (int)(i * a->span_bytes);
        a->aint_displs[i] = (MPI_Aint)(i * a->span_bytes);
        a->types[i] = a->type;
    }
    return 0;
}

static int set_ranks(coll_t *c)
{
    if (!(c->ranks = malloc((size_t)c->args.nprocs * sizeof *c->ranks)))
        return MPISCOPE_ENOMEM;
    for (int r = 0; r < c->args.nprocs; r++)
        c->ranks[r] = r;
    return 0;
}

static void bind_buffers(coll_t *c, const mpiscope_op_ctx_t *ctx)
{
    c->args.send = c->send_in_place ? MPI_IN_PLACE : ctx->send;
    c->args.recv = c->recv_in_place ? MPI_IN_PLACE : ctx->recv;
}

/* MPI_<Op>_init, with errors returned: a library without the call fails
 * it with MPI_ERR_UNSUPPORTED_OPERATION (or has no symbol at build time). */
static int start_persistent(mpiscope_op_ctx_t *ctx, coll_t *c)
{
#ifdef MPISCOPE_HAVE_PERSISTENT_COLL
    MPI_Errhandler previous;
    int mpi_rc, error_class = MPI_SUCCESS;

    bind_buffers(c, ctx);
    MPI_Comm_get_errhandler(c->args.comm, &previous);
    MPI_Comm_set_errhandler(c->args.comm, MPI_ERRORS_RETURN);
    mpi_rc = c->cls->call(&c->args, MPISCOPE__COLL_PERSISTENT, &c->request);
    MPI_Comm_set_errhandler(c->args.comm, previous);
    MPI_Errhandler_free(&previous);
    if (mpi_rc != MPI_SUCCESS)
        MPI_Error_class(mpi_rc, &error_class);
    return mpi_rc == MPI_SUCCESS ? 0 : error_class == MPI_ERR_UNSUPPORTED_OPERATION ? MPISCOPE_ENOTSUP : MPISCOPE_EMPI;
#else
    (void)ctx;
    (void)c;
    return MPISCOPE_ENOTSUP;
#endif
}

static int set_form(mpiscope_op_ctx_t *ctx, coll_t *c, mpiscope__coll_form_t form)
{
    int rc;

    if (form == MPISCOPE__COLL_BLOCKING)
        return 0;
    if ((rc = mpiscope__option_compute_ns(ctx, &c->compute_ns)) != 0
        || (rc = mpiscope__option_double(ctx, "test_us", 0.0, &c->test_ns)) != 0)
        return rc;
    c->test_ns *= 1e3;
    return form == MPISCOPE__COLL_PERSISTENT ? start_persistent(ctx, c) : 0;
}

static int setup(mpiscope_op_ctx_t *ctx, coll_t *c, const mpiscope__coll_class_t *cls, mpiscope__coll_form_t form)
{
    int rc;

    c->cls = cls;
    c->request = MPI_REQUEST_NULL;
    c->topology.comm = MPI_COMM_NULL;
    c->args = (mpiscope__coll_args_t){.comm = ctx->comm,
                                      .root = ctx->root,
                                      .rank = ctx->rank,
                                      .nprocs = ctx->nprocs,
                                      .type = MPI_BYTE,
                                      .op = MPI_OP_NULL};
#ifndef MPISCOPE_HAVE_PERSISTENT_COLL
    if (form == MPISCOPE__COLL_PERSISTENT)
        return MPISCOPE_ENOTSUP;
#endif
    if (cls->large && mpiscope__ops_large_refused(ctx))
        return MPISCOPE_ENOTSUP;
    if (cls->topology) {
        if ((rc = mpiscope__topology_create(ctx, &c->topology)) != 0)
            return rc;
        c->args.comm = c->topology.comm;
    }
    if ((rc = set_message(ctx, c)) != 0 || (rc = set_in_place(ctx, c)) != 0 || (rc = set_buffers(ctx, c, form)) != 0
        || (cls->vectors && (rc = set_vectors(c)) != 0) || (rc = set_ranks(c)) != 0)
        return rc;
    if (cls->linear && !(c->args.requests = malloc(((size_t)c->args.nprocs + 1) * sizeof(MPI_Request))))
        return MPISCOPE_ENOMEM;
    return set_form(ctx, c, form);
}

int mpiscope__coll_initialize(mpiscope_op_ctx_t *ctx, const mpiscope__coll_class_t *cls, mpiscope__coll_form_t form)
{
    coll_t *c = calloc(1, sizeof *c);
    int rc;

    if (!(ctx->state = c))
        return MPISCOPE_ENOMEM;
    if ((rc = setup(ctx, c, cls, form)) != 0)
        mpiscope__coll_finalize(ctx); /* the engine finalizes only what initialized */
    return rc;
}

int mpiscope__coll_execute(mpiscope_op_ctx_t *ctx)
{
    coll_t *c = ctx->state;

    bind_buffers(c, ctx);
    return mpiscope__ops_mpi(c->cls->call(&c->args, MPISCOPE__COLL_BLOCKING, NULL));
}

int mpiscope__coll_execute_nonblocking(mpiscope_op_ctx_t *ctx)
{
    coll_t *c = ctx->state;

    bind_buffers(c, ctx);
    if (c->cls->call(&c->args, MPISCOPE__COLL_NONBLOCKING, &c->request) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return mpiscope__ops_wait_computing(&c->request, c->compute_ns, c->test_ns);
}

int mpiscope__coll_execute_persistent(mpiscope_op_ctx_t *ctx)
{
    coll_t *c = ctx->state;

    if (MPI_Start(&c->request) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return mpiscope__ops_wait_computing(&c->request, c->compute_ns, c->test_ns);
}

int mpiscope__coll_finalize(mpiscope_op_ctx_t *ctx)
{
    coll_t *c = ctx->state;

    if (!c)
        return 0;
    if (c->request != MPI_REQUEST_NULL)
        MPI_Request_free(&c->request);
    mpiscope__layout_free(&c->layout);
    mpiscope__values_free(&c->values);
    mpiscope__topology_free(&c->topology);
    free(c->args.counts);
    free(c->args.displs);
    free(c->args.byte_displs);
    free(c->args.aint_displs);
    free(c->args.types);
    free(c->args.requests);
    free(c->args.ccounts);
    free(c->args.cdispls);
    free(c->ranks);
    free(c);
    ctx->state = NULL;
    return 0;
}

/* ---- validation ---- */

static unsigned char *block_at(void *buf, const coll_t *c, size_t block)
{
    return (unsigned char *)buf + block * c->args.span_bytes;
}

/* Where this rank's send block b sits in its receive buffer when its data
 * is there: the same block when both hold as many, else its own slot. */
static size_t input_slot(const coll_t *c, size_t b)
{
    return c->input_blocks == c->recv_blocks ? b : (size_t)c->args.rank;
}

static void prepare_move(const mpiscope_op_ctx_t *ctx, const coll_t *c)
{
    memset(ctx->recv, MPISCOPE__POISON, c->recv_blocks * c->args.span_bytes);
    for (size_t b = 0; b < c->input_blocks; b++)
        mpiscope__pattern_fill(c->input_in_recv ? block_at(ctx->recv, c, input_slot(c, b)) : block_at(ctx->send, c, b),
                               &c->layout, ctx->rank, b, ctx->launch);
}

static void prepare_reduce(const mpiscope_op_ctx_t *ctx, const coll_t *c)
{
    size_t elements = c->input_blocks * ctx->count;

    if (c->input_in_recv)
        mpiscope__values_fill(&c->values, ctx->recv, 0, elements, ctx->rank, ctx->launch);
    else {
        mpiscope__values_fill(&c->values, ctx->send, 0, elements, ctx->rank, ctx->launch);
        memset(ctx->recv, MPISCOPE__POISON, c->recv_blocks * c->args.span_bytes);
    }
}

/* Who sent receive block j, and which of its blocks (from < 0: nobody). */
static void block_source(const coll_t *c, size_t j, int *from, size_t *block)
{
    int rank = c->args.rank, root = c->args.root;

    switch (c->cls->source) {
    case MPISCOPE__FROM_ROOT_BLOCK_0:
        *from = root;
        *block = 0;
        break;
    case MPISCOPE__FROM_J_BLOCK_0:
        *from = (int)j;
        *block = 0;
        break;
    case MPISCOPE__FROM_ROOT_BLOCK_RANK:
        *from = root;
        *block = (size_t)rank;
        break;
    case MPISCOPE__FROM_J_BLOCK_RANK:
        *from = (int)j;
        *block = (size_t)rank;
        break;
    case MPISCOPE__FROM_NEIGHBOR_BLOCK_0:
    case MPISCOPE__FROM_NEIGHBOR:
        *from = c->topology.sources[j] == MPI_PROC_NULL ? -1 : c->topology.sources[j];
        *block = c->cls->source == MPISCOPE__FROM_NEIGHBOR ? (size_t)c->topology.source_block[j] : 0;
        break;
    default:
        *from = -1;
        *block = 0;
        break;
    }
}

static int check_move(mpiscope_op_ctx_t *ctx, const coll_t *c)
{
    int from, rc = 0;
    size_t block;

    for (size_t j = 0; !rc && j < c->recv_blocks; j++) {
        block_source(c, j, &from, &block);
        rc = mpiscope__pattern_check(ctx, block_at(ctx->recv, c, j), &c->layout, from, block, "recv block", j);
    }
    return rc;
}

static int check_reduce(mpiscope_op_ctx_t *ctx, coll_t *c)
{
    int rank = ctx->rank, source = c->cls->source;
    size_t n_ranks = source == MPISCOPE__REDUCE_INCLUSIVE   ? (size_t)rank + 1
                     : source == MPISCOPE__REDUCE_EXCLUSIVE ? (size_t)rank
                                                            : (size_t)ctx->nprocs;
    size_t first = source == MPISCOPE__REDUCE_ALL_BLOCK_RANK ? (size_t)rank * ctx->count : 0;

    if (c->recv_blocks == 0)
        return 0; /* no result on this rank */
    return mpiscope__values_check(&c->values, ctx, ctx->recv, first, ctx->count, c->ranks, n_ranks, "result");
}

/* A barrier carries no data: nothing may be left pending on the communicator. */
static int check_sync(mpiscope_op_ctx_t *ctx, const coll_t *c)
{
    MPI_Status status;
    int pending = 0;

    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c->args.comm, &pending, &status) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return pending ? mpiscope_op_ctx_mismatch(ctx,
                                              "rank %d: a message from rank %d (tag %d) is pending after "
                                              "the launch",
                                              ctx->rank, status.MPI_SOURCE, status.MPI_TAG)
                   : 0;
}

int mpiscope__coll_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    coll_t *c = ctx->state;
    int kind = c->cls->kind;

    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        if (kind == MPISCOPE__COLL_MOVE)
            prepare_move(ctx, c);
        else if (kind == MPISCOPE__COLL_REDUCE)
            prepare_reduce(ctx, c);
        return 0;
    }
    if (kind == MPISCOPE__COLL_MOVE)
        return check_move(ctx, c);
    return kind == MPISCOPE__COLL_REDUCE ? check_reduce(ctx, c) : check_sync(ctx, c);
}
