/* common.c: helpers shared by the built-in op families (see common.h). */
#include "common.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#define ROOT_OPTION \
    {.name = "root", .default_value = "0", .unit = "rank", .description = "rank of the root in the communicator"}
#define DTYPE_OPTION                                                         \
    {.name = "dtype", .default_value = "double", .unit = "",                 \
     .description = "element type: double, float, int, long, char, byte, int64_t, ..."}
#define REDUCE_OP_OPTION                                                     \
    {.name = "op", .default_value = "sum", .unit = "",                       \
     .description = "reduction: sum, prod, min, max, band, bor, bxor, land, lor, lxor"}
#define END_OPTIONS {.name = NULL}

const mpiscope_op_option_t mpiscope__ops_root_options[] = {ROOT_OPTION, END_OPTIONS};
const mpiscope_op_option_t mpiscope__ops_reduction_options[] = {DTYPE_OPTION, REDUCE_OP_OPTION, END_OPTIONS};
const mpiscope_op_option_t mpiscope__ops_root_reduction_options[] = {ROOT_OPTION, DTYPE_OPTION,
                                                                     REDUCE_OP_OPTION, END_OPTIONS};

static int message_buffers(mpiscope_op_ctx_t *ctx, size_t count, size_t unit_bytes, size_t send_messages,
                           size_t recv_messages)
{
    size_t message_bytes = count * unit_bytes;

    if (count > INT_MAX || (message_bytes && (send_messages > SIZE_MAX / message_bytes
                                              || recv_messages > SIZE_MAX / message_bytes)))
        return MPISCOPE_ERANGE;
    return mpiscope_op_ctx_buffers(ctx, send_messages * message_bytes, recv_messages * message_bytes);
}

int mpiscope__ops_byte_buffers(mpiscope_op_ctx_t *ctx, size_t send_messages, size_t recv_messages)
{
    return message_buffers(ctx, ctx->size_bytes, 1, send_messages, recv_messages);
}

int mpiscope__ops_element_buffers(mpiscope_op_ctx_t *ctx, size_t send_messages, size_t recv_messages)
{
    return message_buffers(ctx, ctx->count, ctx->dtype_bytes, send_messages, recv_messages);
}

static void vectors_destroy(mpiscope__ops_vectors_t *v)
{
    if (!v)
        return;
    free(v->counts);
    free(v->displs);
    free(v->types);
    free(v);
}

int mpiscope__ops_vectors_create(mpiscope_op_ctx_t *ctx, size_t count, int with_types)
{
    size_t n = (size_t)ctx->nprocs;
    mpiscope__ops_vectors_t *v;

    ctx->state = NULL;
    if (count > INT_MAX / n) /* the displacements are ints */
        return MPISCOPE_ERANGE;
    if (!(v = calloc(1, sizeof *v)))
        return MPISCOPE_ENOMEM;
    v->counts = malloc(n * sizeof *v->counts);
    v->displs = malloc(n * sizeof *v->displs);
    v->types = with_types ? malloc(n * sizeof *v->types) : NULL;
    if (!v->counts || !v->displs || (with_types && !v->types)) {
        vectors_destroy(v);
        return MPISCOPE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        v->counts[i] = (int)count;
        v->displs[i] = (int)(i * count);
        if (v->types)
            v->types[i] = MPI_BYTE;
    }
    ctx->state = v;
    return 0;
}

int mpiscope__ops_vectors_free(mpiscope_op_ctx_t *ctx)
{
    vectors_destroy(ctx->state);
    ctx->state = NULL;
    return 0;
}

int mpiscope__ops_nothing(mpiscope_op_ctx_t *ctx)
{
    (void)ctx;
    return 0;
}
