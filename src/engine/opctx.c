/* opctx.c: filling an op's context for one measurement point, looking up
 * its options, and naming element types and reductions. The buffers of a
 * ctx live in buffers.c. */
#include <math.h>
#include "opctx.h"

#include <stdarg.h>
#include <stdio.h>
#include "mpiscope/error.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mpiscope__op_ctx_init(mpiscope_op_ctx_t *ctx, MPI_Comm comm, size_t size_bytes, int root, MPI_Datatype dtype,
                          MPI_Op reduce_op, mpiscope__op_engine_t *engine)
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
        .launch_start_ns = NAN,
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

/* The kinds of element types a reduction may take (MPI standard,
 * "Predefined Reduction Operations"): C integer, floating point, complex,
 * byte; MPI_CHAR is text and takes none. */
enum { KIND_INTEGER = 1, KIND_FLOATING = 2, KIND_COMPLEX = 4, KIND_BYTE = 8, KIND_CHAR = 16 };
static const char *const kind_names[] = {"integer", "floating", "complex", "byte", "char"};

typedef struct named_op {
    MPI_Op op;
    const char *canonical;
    unsigned kinds; /* KIND_* it applies to */
} named_op_t;

/* sizeof, not MPI_Type_size: names parse before MPI_Init. */
#define DTYPE_KIND(c_type)                                                                                             \
    ((c_type)0.5 != 0           ? MPISCOPE__DTYPE_FLOATING                                                             \
     : (c_type) - 1 < (c_type)1 ? MPISCOPE__DTYPE_SIGNED                                                               \
                                : MPISCOPE__DTYPE_UNSIGNED)
#define DTYPE(mpi_type, c_type) {mpi_type, sizeof(c_type), #mpi_type, DTYPE_KIND(c_type)}
static const named_dtype_t dtypes[] = {
    DTYPE(MPI_DOUBLE, double),
    DTYPE(MPI_FLOAT, float),
    DTYPE(MPI_LONG_DOUBLE, long double),
    DTYPE(MPI_INT, int),
    DTYPE(MPI_UNSIGNED, unsigned),
    DTYPE(MPI_LONG, long),
    DTYPE(MPI_UNSIGNED_LONG, unsigned long),
    DTYPE(MPI_LONG_LONG, long long),
    DTYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    DTYPE(MPI_SHORT, short),
    DTYPE(MPI_UNSIGNED_SHORT, unsigned short),
    DTYPE(MPI_CHAR, char),
    DTYPE(MPI_SIGNED_CHAR, signed char),
    DTYPE(MPI_UNSIGNED_CHAR, unsigned char),
    DTYPE(MPI_BYTE, unsigned char),
    DTYPE(MPI_INT8_T, int8_t),
    DTYPE(MPI_UINT8_T, uint8_t),
    DTYPE(MPI_INT16_T, int16_t),
    DTYPE(MPI_UINT16_T, uint16_t),
    DTYPE(MPI_INT32_T, int32_t),
    DTYPE(MPI_UINT32_T, uint32_t),
    DTYPE(MPI_INT64_T, int64_t),
    DTYPE(MPI_UINT64_T, uint64_t),
};
#undef DTYPE
#undef DTYPE_KIND

#define REDUCE_OP(mpi_op, kinds) {mpi_op, #mpi_op, kinds}
#define ARITHMETIC (KIND_INTEGER | KIND_FLOATING | KIND_COMPLEX)
#define ORDERED (KIND_INTEGER | KIND_FLOATING)
#define BITWISE (KIND_INTEGER | KIND_BYTE)
static const named_op_t reduce_ops[] = {
    REDUCE_OP(MPI_SUM, ARITHMETIC),    REDUCE_OP(MPI_PROD, ARITHMETIC),   REDUCE_OP(MPI_MIN, ORDERED),
    REDUCE_OP(MPI_MAX, ORDERED),       REDUCE_OP(MPI_BAND, BITWISE),      REDUCE_OP(MPI_BOR, BITWISE),
    REDUCE_OP(MPI_BXOR, BITWISE),      REDUCE_OP(MPI_LAND, KIND_INTEGER), REDUCE_OP(MPI_LOR, KIND_INTEGER),
    REDUCE_OP(MPI_LXOR, KIND_INTEGER),
};
#undef ARITHMETIC
#undef ORDERED
#undef BITWISE
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

/* The KIND_* bit of dtypes[i]. */
static unsigned kind_of(size_t i)
{
    if (dtypes[i].kind == MPISCOPE__DTYPE_FLOATING)
        return KIND_FLOATING;
    if (strcmp(dtypes[i].canonical, "MPI_BYTE") == 0)
        return KIND_BYTE;
    return strcmp(dtypes[i].canonical, "MPI_CHAR") == 0 ? KIND_CHAR : KIND_INTEGER;
}

static const char *kind_name(unsigned bit)
{
    for (size_t k = 0; k < sizeof kind_names / sizeof *kind_names; k++)
        if (bit == 1u << k)
            return kind_names[k];
    return NULL;
}

const char *mpiscope__dtype_kind_name_at(size_t index)
{
    return index < sizeof dtypes / sizeof *dtypes ? kind_name(kind_of(index)) : NULL;
}

const char *mpiscope__reduce_op_kind_at(size_t index, size_t k)
{
    if (index >= sizeof reduce_ops / sizeof *reduce_ops)
        return NULL;
    for (unsigned bit = 1; bit <= KIND_CHAR; bit <<= 1)
        if ((reduce_ops[index].kinds & bit) && k-- == 0)
            return kind_name(bit);
    return NULL;
}

int mpiscope__reduce_op_allows(const char *reduce_op, const char *dtype)
{
    size_t d = 0, r = 0;
    while (d < sizeof dtypes / sizeof *dtypes && !(dtype && is_name_of(dtype, dtypes[d].canonical)))
        d++;
    while (r < sizeof reduce_ops / sizeof *reduce_ops && !(reduce_op && is_name_of(reduce_op, reduce_ops[r].canonical)))
        r++;
    return d < sizeof dtypes / sizeof *dtypes && r < sizeof reduce_ops / sizeof *reduce_ops
           && (reduce_ops[r].kinds & kind_of(d)) != 0;
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

int mpiscope_op_ctx_parts(mpiscope_op_ctx_t *ctx, size_t n_parts, const char *name)
{
    mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    if (!engine || !name || n_parts == 0 || n_parts > MPISCOPE_OP_MAX_PARTS
        || (engine->n_parts && engine->n_parts != n_parts))
        return MPISCOPE_EINVAL;
    if (!engine->parts && !(engine->parts = malloc(n_parts * sizeof *engine->parts)))
        return MPISCOPE_ENOMEM;
    engine->n_parts = n_parts;
    snprintf(engine->part_name, sizeof engine->part_name, "%s", name);
    ctx->part_ns = engine->parts;
    ctx->n_parts = n_parts;
    mpiscope__op_ctx_reset_parts(ctx);
    return 0;
}

void mpiscope__op_ctx_reset_parts(mpiscope_op_ctx_t *ctx)
{
    for (size_t i = 0; i < ctx->n_parts; i++)
        ctx->part_ns[i] = NAN;
}

void mpiscope__op_engine_free(mpiscope__op_engine_t *engine)
{
    free(engine->parts);
    engine->parts = NULL;
    engine->n_parts = 0;
}

int mpiscope_op_ctx_note(mpiscope_op_ctx_t *ctx, const char *key, const char *format, ...)
{
    mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    if (!engine || !key || !key[0] || strlen(key) >= sizeof engine->note_keys[0] || !format)
        return MPISCOPE_EINVAL;
    size_t i = 0;
    while (i < engine->n_notes && strcmp(engine->note_keys[i], key) != 0)
        i++;
    if (i == MPISCOPE_OP_MAX_NOTES)
        return MPISCOPE_EINVAL;
    if (i == engine->n_notes)
        snprintf(engine->note_keys[engine->n_notes++], sizeof engine->note_keys[0], "%s", key);
    va_list ap;
    va_start(ap, format);
    vsnprintf(engine->note_values[i], sizeof engine->note_values[i], format, ap);
    va_end(ap);
    return 0;
}

int mpiscope_op_ctx_refuse(mpiscope_op_ctx_t *ctx, int err, const char *format, ...)
{
    mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    if (engine && format && !engine->error[0]) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(engine->error, sizeof engine->error, format, ap);
        va_end(ap);
    }
    return err;
}

int mpiscope__op_ctx_bad_option_why(const mpiscope_op_ctx_t *ctx, const char *name, const char *why)
{
    mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    if (engine && !engine->error[0]) {
        const char *value = mpiscope_op_ctx_option(ctx, name);
        snprintf(engine->error, sizeof engine->error, "option %s of %s: '%.80s%s' is not a valid value%s%s", name,
                 engine->op ? engine->op->name : "the operation", value ? value : "",
                 value && strlen(value) > 80 ? "..." : "", why ? " here: " : "", why ? why : "");
    }
    return MPISCOPE_EINVAL;
}

int mpiscope__op_ctx_bad_option(const mpiscope_op_ctx_t *ctx, const char *name)
{
    return mpiscope__op_ctx_bad_option_why(ctx, name, NULL);
}

int mpiscope__op_types_resolve(const mpiscope_op_t *op, const char *dtype, const char *reduce_op,
                               mpiscope__op_types_t *out)
{
    *out = (mpiscope__op_types_t){
        .dtype = MPI_BYTE, .dtype_bytes = 1, .reduce_op = MPI_OP_NULL, .dtype_name = "MPI_BYTE", .reduce_name = NULL};
    if (!(op->flags & MPISCOPE_OP_USES_REDUCTION))
        return 0;
    dtype = dtype ? dtype : "double";
    reduce_op = reduce_op ? reduce_op : "sum";
    int err = mpiscope__dtype_parse(dtype, &out->dtype, &out->dtype_bytes, &out->dtype_name);
    if (!err)
        err = mpiscope__reduce_op_parse(reduce_op, &out->reduce_op, &out->reduce_name);
    return err ? err : mpiscope__reduce_op_allows(reduce_op, dtype) ? 0 : MPISCOPE_EINVAL;
}
