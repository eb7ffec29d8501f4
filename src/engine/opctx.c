/* opctx.c: filling an op's context for one measurement point, looking up
 * its options, and naming element types and reductions. The buffers of a
 * ctx live in buffers.c. */
#include "opctx.h"

#include <stdarg.h>
#include <stdio.h>
#include "mpiscope/error.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

int mpiscope__op_ctx_init(mpiscope_op_ctx_t *ctx, MPI_Comm comm, size_t size_bytes, int root,
                          MPI_Datatype dtype, MPI_Op reduce_op, mpiscope__op_engine_t *engine)
{
    int rank, nprocs, dtype_bytes;

    if (!ctx || !engine || comm == MPI_COMM_NULL || dtype == MPI_DATATYPE_NULL)
        return MPISCOPE_EINVAL;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &nprocs) != MPI_SUCCESS
        || MPI_Type_size(dtype, &dtype_bytes) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    if (root < 0 || root >= nprocs || dtype_bytes <= 0)
        return MPISCOPE_EINVAL;
    *ctx = (mpiscope_op_ctx_t){
        .comm = comm,
        .rank = rank,
        .nprocs = nprocs,
        .size_bytes = size_bytes,
        .root = root,
        .dtype = dtype,
        .dtype_bytes = (size_t)dtype_bytes,
        .count = size_bytes < (size_t)dtype_bytes ? 1 : size_bytes / (size_t)dtype_bytes,
        .actual_bytes = dtype == MPI_BYTE ? size_bytes
                        : (size_bytes < (size_t)dtype_bytes ? 1 : size_bytes / (size_t)dtype_bytes)
                              * (size_t)dtype_bytes,
        .reduce_op = reduce_op,
        .engine = engine,
        .op = engine->op,
    };
    return 0;
}

const char *mpiscope_op_ctx_option(const mpiscope_op_ctx_t *ctx, const char *name)
{
    const mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    const mpiscope_op_option_t *option;

    if (!engine || !name)
        return NULL;
    for (size_t i = engine->n_options; i-- > 0;) /* the last one given wins */
        if (strcmp(engine->option_names[i], name) == 0)
            return engine->option_values[i];
    for (option = engine->op ? engine->op->options : NULL; option && option->name; option++)
        if (strcmp(option->name, name) == 0)
            return option->default_value;
    return NULL;
}

/* Named MPI handles. The short name is the canonical one without "MPI_":
 * "double" and "MPI_DOUBLE" both name MPI_DOUBLE, in any case. */
typedef struct named_dtype {
    MPI_Datatype type;
    size_t bytes;
    const char *canonical;
    mpiscope__dtype_kind_t kind;
} named_dtype_t;

typedef struct named_op {
    MPI_Op op;
    const char *canonical;
} named_op_t;

/* sizeof, not MPI_Type_size: names parse before MPI_Init. */
#define DTYPE_KIND(c_type) ((c_type)0.5 != 0 ? MPISCOPE__DTYPE_FLOATING \
                           : (c_type)-1 < (c_type)1 ? MPISCOPE__DTYPE_SIGNED : MPISCOPE__DTYPE_UNSIGNED)
#define DTYPE(mpi_type, c_type) {mpi_type, sizeof(c_type), #mpi_type, DTYPE_KIND(c_type)}
static const named_dtype_t dtypes[] = {
    DTYPE(MPI_DOUBLE, double),       DTYPE(MPI_FLOAT, float),
    DTYPE(MPI_LONG_DOUBLE, long double),
    DTYPE(MPI_INT, int),             DTYPE(MPI_UNSIGNED, unsigned),
    DTYPE(MPI_LONG, long),           DTYPE(MPI_UNSIGNED_LONG, unsigned long),
    DTYPE(MPI_LONG_LONG, long long), DTYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    DTYPE(MPI_SHORT, short),         DTYPE(MPI_UNSIGNED_SHORT, unsigned short),
    DTYPE(MPI_CHAR, char),           DTYPE(MPI_SIGNED_CHAR, signed char),
    DTYPE(MPI_UNSIGNED_CHAR, unsigned char), DTYPE(MPI_BYTE, unsigned char),
    DTYPE(MPI_INT8_T, int8_t),       DTYPE(MPI_UINT8_T, uint8_t),
    DTYPE(MPI_INT16_T, int16_t),     DTYPE(MPI_UINT16_T, uint16_t),
    DTYPE(MPI_INT32_T, int32_t),     DTYPE(MPI_UINT32_T, uint32_t),
    DTYPE(MPI_INT64_T, int64_t),     DTYPE(MPI_UINT64_T, uint64_t),
};
#undef DTYPE
#undef DTYPE_KIND

#define REDUCE_OP(mpi_op) {mpi_op, #mpi_op}
static const named_op_t reduce_ops[] = {
    REDUCE_OP(MPI_SUM),  REDUCE_OP(MPI_PROD), REDUCE_OP(MPI_MIN),  REDUCE_OP(MPI_MAX),
    REDUCE_OP(MPI_BAND), REDUCE_OP(MPI_BOR),  REDUCE_OP(MPI_BXOR),
    REDUCE_OP(MPI_LAND), REDUCE_OP(MPI_LOR),  REDUCE_OP(MPI_LXOR),
};
#undef REDUCE_OP

static int equal_ignoring_case(const char *a, const char *b)
{
    while (*a && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

static int is_name_of(const char *given, const char *canonical)
{
    return equal_ignoring_case(given, canonical) || equal_ignoring_case(given, canonical + 4);
}

/* "MPI_UNSIGNED_LONG" -> "unsigned_long", into out. */
static const char *short_name(const char *canonical, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = canonical + 4; *c && n + 1 < size; c++)
        out[n++] = (char)tolower((unsigned char)*c);
    out[n] = '\0';
    return out;
}

const char *mpiscope__dtype_at(size_t index, size_t *bytes)
{
    static char names[sizeof dtypes / sizeof *dtypes][32];
    if (index >= sizeof dtypes / sizeof *dtypes)
        return NULL;
    *bytes = dtypes[index].bytes;
    return short_name(dtypes[index].canonical, names[index], sizeof names[index]);
}

const char *mpiscope__reduce_op_at(size_t index)
{
    static char names[sizeof reduce_ops / sizeof *reduce_ops][16];
    if (index >= sizeof reduce_ops / sizeof *reduce_ops)
        return NULL;
    return short_name(reduce_ops[index].canonical, names[index], sizeof names[index]);
}

int mpiscope__dtype_parse(const char *name, MPI_Datatype *dtype, size_t *bytes, const char **canonical)
{
    for (size_t i = 0; name && i < sizeof dtypes / sizeof *dtypes; i++)
        if (is_name_of(name, dtypes[i].canonical)) {
            *dtype = dtypes[i].type;
            *bytes = dtypes[i].bytes;
            if (canonical)
                *canonical = dtypes[i].canonical;
            return 0;
        }
    return MPISCOPE_EINVAL;
}

mpiscope__dtype_kind_t mpiscope__dtype_kind(MPI_Datatype dtype)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtypes[i].type == dtype)
            return dtypes[i].kind;
    return MPISCOPE__DTYPE_UNKNOWN;
}

int mpiscope__reduce_op_parse(const char *name, MPI_Op *op, const char **canonical)
{
    for (size_t i = 0; name && i < sizeof reduce_ops / sizeof *reduce_ops; i++)
        if (is_name_of(name, reduce_ops[i].canonical)) {
            *op = reduce_ops[i].op;
            if (canonical)
                *canonical = reduce_ops[i].canonical;
            return 0;
        }
    return MPISCOPE_EINVAL;
}

int mpiscope_op_ctx_mismatch(mpiscope_op_ctx_t *ctx, const char *format, ...)
{
    mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    if (engine && !engine->mismatch[0]) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(engine->mismatch, sizeof engine->mismatch, format, ap);
        va_end(ap);
        engine->mismatch_launch = ctx->launch;
        if (!engine->mismatch[0]) /* an empty message still marks the failure */
            snprintf(engine->mismatch, sizeof engine->mismatch, "mismatch");
    }
    return MPISCOPE_EVALIDATE;
}

int mpiscope__op_ctx_bad_option(const mpiscope_op_ctx_t *ctx, const char *name)
{
    mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    if (engine && !engine->error[0]) {
        const char *value = mpiscope_op_ctx_option(ctx, name);
        snprintf(engine->error, sizeof engine->error, "option %s of %s: '%s' is not a valid value",
                 name, engine->op ? engine->op->name : "the operation", value ? value : "");
    }
    return MPISCOPE_EINVAL;
}

int mpiscope__op_types_resolve(const mpiscope_op_t *op, const char *dtype, const char *reduce_op,
                               mpiscope__op_types_t *out)
{
    *out = (mpiscope__op_types_t){.dtype = MPI_BYTE, .dtype_bytes = 1, .reduce_op = MPI_OP_NULL,
                                  .dtype_name = "MPI_BYTE", .reduce_name = NULL};
    if (!(op->flags & MPISCOPE_OP_USES_REDUCTION))
        return 0;
    int err = mpiscope__dtype_parse(dtype ? dtype : "double", &out->dtype, &out->dtype_bytes, &out->dtype_name);
    return err ? err : mpiscope__reduce_op_parse(reduce_op ? reduce_op : "sum", &out->reduce_op, &out->reduce_name);
}
