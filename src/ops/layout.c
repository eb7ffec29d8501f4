/* layout.c: the `datatype` option: contiguous bytes or a derived type
 * (see layout.h). */
#include "layout.h"
#include "common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { ELEMENT_BYTES = 8, MAX_STRIDE = 1 << 20 };

/* The indexed unit, in 8-byte elements; the struct unit, in bytes. */
static const int indexed_lengths[] = {1, 2, 3, 2};
static const int indexed_displs[] = {0, 2, 5, 9};
enum { INDEXED_BLOCKS = 4, INDEXED_EXTENT_ELEMENTS = 11, STRUCT_EXTENT = 24 };

static void set_piece(mpiscope__layout_t *l, size_t offset, size_t length)
{
    l->piece_offset[l->n_pieces] = offset;
    l->piece_length[l->n_pieces] = length;
    l->n_pieces++;
}

/* Whole units of unit_payload bytes in size_bytes: at least one if any. */
static size_t units_for(size_t size_bytes, size_t unit_payload)
{
    size_t n = size_bytes / unit_payload;
    return n == 0 && size_bytes > 0 ? 1 : n;
}

static int commit(mpiscope__layout_t *l, MPI_Datatype type)
{
    l->type = type;
    l->derived = 1;
    return mpiscope__ops_mpi(MPI_Type_commit(&l->type));
}

void mpiscope__layout_large_bytes(size_t size_bytes, mpiscope__layout_t *l)
{
    memset(l, 0, sizeof *l);
    l->type = MPI_BYTE;
    l->payload_bytes = l->span_bytes = size_bytes;
    l->units = size_bytes > 0;
    l->unit_extent = size_bytes;
    set_piece(l, 0, size_bytes);
}

static int make_bytes(mpiscope__layout_t *l, size_t size_bytes)
{
    if (size_bytes > INT_MAX)
        return MPISCOPE_ERANGE;
    l->type = MPI_BYTE;
    l->count = (int)size_bytes;
    l->units = size_bytes > 0;
    l->unit_extent = size_bytes;
    set_piece(l, 0, size_bytes);
    return 0;
}

static int make_vector(mpiscope__layout_t *l, size_t size_bytes, const char *stride_text)
{
    char *end;
    long stride = strtol(stride_text, &end, 10);
    size_t n = units_for(size_bytes, ELEMENT_BYTES);
    MPI_Datatype vector;

    if (end == stride_text || *end != '\0' || stride < 1 || stride > MAX_STRIDE)
        return MPISCOPE_EINVAL;
    if (n > (size_t)INT_MAX / ((size_t)stride * ELEMENT_BYTES))
        return MPISCOPE_ERANGE;
    l->units = n;
    l->unit_extent = (size_t)stride * ELEMENT_BYTES;
    set_piece(l, 0, ELEMENT_BYTES);
    l->type = MPI_BYTE;
    if (n == 0)
        return 0;
    l->count = 1;
    if (MPI_Type_vector((int)n, ELEMENT_BYTES, (int)stride * ELEMENT_BYTES, MPI_BYTE, &vector) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return commit(l, vector);
}

static int make_indexed(mpiscope__layout_t *l, size_t size_bytes)
{
    MPI_Datatype element, unit;
    int rc;

    for (int b = 0; b < INDEXED_BLOCKS; b++)
        set_piece(l, (size_t)indexed_displs[b] * ELEMENT_BYTES, (size_t)indexed_lengths[b] * ELEMENT_BYTES);
    l->unit_extent = INDEXED_EXTENT_ELEMENTS * ELEMENT_BYTES;
    l->units = units_for(size_bytes, 8 * ELEMENT_BYTES);
    if (l->units > INT_MAX / l->unit_extent)
        return MPISCOPE_ERANGE;
    l->count = (int)l->units;
    if (MPI_Type_contiguous(ELEMENT_BYTES, MPI_BYTE, &element) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    rc = mpiscope__ops_mpi(MPI_Type_indexed(INDEXED_BLOCKS, indexed_lengths, indexed_displs, element, &unit));
    MPI_Type_free(&element);
    return rc ? rc : commit(l, unit);
}

static int make_struct(mpiscope__layout_t *l, size_t size_bytes)
{
    static const int lengths[] = {1, 1, 4};
    static const MPI_Aint displs[] = {0, 8, 16};
    MPI_Datatype types[] = {MPI_INT32_T, MPI_DOUBLE, MPI_CHAR}, tight, unit;
    int rc;

    set_piece(l, 0, 4);
    set_piece(l, 8, 8);
    set_piece(l, 16, 4);
    l->unit_extent = STRUCT_EXTENT;
    l->units = units_for(size_bytes, 16);
    if (l->units > INT_MAX / l->unit_extent)
        return MPISCOPE_ERANGE;
    l->count = (int)l->units;
    if (MPI_Type_create_struct(3, lengths, displs, types, &tight) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    rc = mpiscope__ops_mpi(MPI_Type_create_resized(tight, 0, STRUCT_EXTENT, &unit));
    MPI_Type_free(&tight);
    return rc ? rc : commit(l, unit);
}

/* Payload and span from the memory view and the MPI type. */
static int measure(mpiscope__layout_t *l)
{
    MPI_Aint lb, extent;

    for (size_t p = 0; p < l->n_pieces; p++)
        l->payload_bytes += l->piece_length[p];
    l->payload_bytes *= l->units;
    if (MPI_Type_get_extent(l->type, &lb, &extent) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    l->span_bytes = (size_t)l->count * (size_t)extent;
    return 0;
}

int mpiscope__layout_create(const char *name, size_t size_bytes, mpiscope__layout_t *layout)
{
    mpiscope__layout_t *l = layout;
    int rc;

    memset(l, 0, sizeof *l);
    l->type = MPI_BYTE;
    if (!name || strcmp(name, "bytes") == 0)
        rc = make_bytes(l, size_bytes);
    else if (strncmp(name, "vector:", 7) == 0)
        rc = make_vector(l, size_bytes, name + 7);
    else if (strcmp(name, "indexed") == 0)
        rc = make_indexed(l, size_bytes);
    else if (strcmp(name, "struct") == 0)
        rc = make_struct(l, size_bytes);
    else
        rc = MPISCOPE_EINVAL;
    if (!rc)
        rc = measure(l);
    if (rc)
        mpiscope__layout_free(l);
    return rc;
}

void mpiscope__layout_free(mpiscope__layout_t *layout)
{
    if (layout->derived)
        MPI_Type_free(&layout->type);
    layout->derived = 0;
    layout->type = MPI_BYTE;
}
