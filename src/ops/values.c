/* values.c: element values of the reductions' validate hooks (values.h). */
#include "values.h"
#include "common.h"
#include "opctx.h"

#include <stdlib.h>
#include <string.h>

int mpiscope__values_init(mpiscope__values_t *v, MPI_Datatype dtype, size_t bytes, MPI_Op op, int nprocs)
{
    memset(v, 0, sizeof *v);
    v->kind = mpiscope__dtype_kind(dtype);
    v->bytes = bytes;
    v->op = op;
    v->nprocs = nprocs;
    return v->kind == MPISCOPE__DTYPE_UNKNOWN ? MPISCOPE_EINVAL : 0;
}

void mpiscope__values_free(mpiscope__values_t *v)
{
    free(v->expect);
    free(v->term);
    v->expect = v->term = NULL;
    v->capacity = 0;
}

int64_t mpiscope__values_at(const mpiscope__values_t *v, int rank, size_t e, size_t launch)
{
    size_t r = (size_t)rank;

    if (v->op == MPI_PROD) /* one rank per element gives 2 or 3, the others 1 */
        return (e + launch) % (size_t)v->nprocs == r ? 2 + (int64_t)(launch % 2) : 1;
    if (v->op == MPI_LAND || v->op == MPI_LOR || v->op == MPI_LXOR)
        return (e + launch) % 3 == 0 ? 0 : (int64_t)((e + r + launch) % 2);
    if (v->op == MPI_BAND || v->op == MPI_BOR || v->op == MPI_BXOR)
        return (int64_t)((r * 37 + e * 11 + launch * 5) & 0x7f);
    return 1 + (int64_t)((r * 3 + e + launch) % 5);
}

void mpiscope__values_store(const mpiscope__values_t *v, void *element, int64_t value)
{
    union {
        float f;
        double d;
        long double ld;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
    } u;

    memset(&u, 0, sizeof u);
    if (v->kind == MPISCOPE__DTYPE_FLOATING) {
        if (v->bytes == sizeof(float))
            u.f = (float)value;
        else if (v->bytes == sizeof(double))
            u.d = (double)value;
        else
            u.ld = (long double)value;
    } else { /* small non-negative: the same bits signed or unsigned */
        switch (v->bytes) {
        case 1:
            u.i8 = (int8_t)value;
            break;
        case 2:
            u.i16 = (int16_t)value;
            break;
        case 4:
            u.i32 = (int32_t)value;
            break;
        default:
            u.i64 = value;
            break;
        }
    }
    memcpy(element, &u, v->bytes);
}

static long double load(const mpiscope__values_t *v, const unsigned char *element)
{
    union {
        float f;
        double d;
        long double ld;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
    } u;
    int is_signed = v->kind == MPISCOPE__DTYPE_SIGNED;

    memcpy(&u, element, v->bytes);
    if (v->kind == MPISCOPE__DTYPE_FLOATING)
        return v->bytes == sizeof(float) ? u.f : v->bytes == sizeof(double) ? u.d : u.ld;
    switch (v->bytes) {
    case 1:
        return is_signed ? (long double)u.i8 : (long double)u.u8;
    case 2:
        return is_signed ? (long double)u.i16 : (long double)u.u16;
    case 4:
        return is_signed ? (long double)u.i32 : (long double)u.u32;
    default:
        return is_signed ? (long double)u.i64 : (long double)u.u64;
    }
}

void mpiscope__values_fill(const mpiscope__values_t *v, void *buf, size_t first, size_t n, int rank, size_t launch)
{
    unsigned char *at = buf;

    for (size_t e = 0; e < n; e++, at += v->bytes)
        mpiscope__values_store(v, at, mpiscope__values_at(v, rank, first + e, launch));
}

static int reserve(mpiscope__values_t *v, size_t n)
{
    if (n <= v->capacity)
        return 0;
    mpiscope__values_free(v);
    v->expect = malloc(n * sizeof *v->expect);
    v->term = malloc(n * sizeof *v->term);
    if (!v->expect || !v->term) {
        mpiscope__values_free(v);
        return MPISCOPE_ENOMEM;
    }
    v->capacity = n;
    return 0;
}

/* v->expect[0..n) = the reduction over the ranks (MPI reduces). */
static int expect(mpiscope__values_t *v, size_t first, size_t n, const int *ranks, size_t n_ranks, size_t launch)
{
    MPI_Op op = v->op == MPI_OP_NULL ? MPI_SUM : v->op;

    for (size_t e = 0; e < n; e++)
        v->expect[e] = mpiscope__values_at(v, ranks[0], first + e, launch);
    for (size_t r = 1; r < n_ranks; r++) {
        for (size_t e = 0; e < n; e++)
            v->term[e] = mpiscope__values_at(v, ranks[r], first + e, launch);
        if (MPI_Reduce_local(v->term, v->expect, (int)n, MPI_INT64_T, op) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    return 0;
}

int mpiscope__values_check(mpiscope__values_t *v, mpiscope_op_ctx_t *ctx, const void *buf, size_t first, size_t n,
                           const int *ranks, size_t n_ranks, const char *what)
{
    const unsigned char *at = buf;
    int rc;

    if (n_ranks == 0 || n == 0)
        return 0;
    if ((rc = reserve(v, n)) != 0 || (rc = expect(v, first, n, ranks, n_ranks, ctx->launch)) != 0)
        return rc;
    for (size_t e = 0; e < n; e++, at += v->bytes) {
        long double got = load(v, at);
        if (got != (long double)v->expect[e])
            return mpiscope_op_ctx_mismatch(ctx, "rank %d: %s element %zu: got %.6Lg, want %lld (launch %zu)",
                                            ctx->rank, what, e, got, (long long)v->expect[e], ctx->launch);
    }
    return 0;
}
