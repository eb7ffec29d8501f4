/* layout.h (internal to src/ops): how one message sits in memory, from the
 * `datatype` option of the data-movement ops:
 *   bytes          contiguous MPI_BYTE (the default)
 *   vector:STRIDE  8-byte elements, STRIDE elements apart (MPI_Type_vector)
 *   indexed        units of 4 blocks of 1, 2, 3, 2 8-byte elements with
 *                  gaps (MPI_Type_indexed): 64 data bytes in 88
 *   struct         units {int32; double; char[4]} with padding
 *                  (MPI_Type_create_struct): 16 data bytes in 24
 * A message carries size_bytes of data rounded down to whole elements or
 * units (at least one when size_bytes > 0). */
#ifndef MPISCOPE_OPS_LAYOUT_H
#define MPISCOPE_OPS_LAYOUT_H

#include <stddef.h>
#include <mpi.h>

enum { MPISCOPE__LAYOUT_MAX_PIECES = 4 };

typedef struct mpiscope__layout {
    MPI_Datatype type; /* a message is `count` of this */
    int count;
    int derived;          /* 1: `type` was built here and is freed by mpiscope__layout_free */
    size_t payload_bytes; /* data bytes of one message */
    size_t span_bytes;    /* buffer bytes one message spans: count x extent of type */
    /* The memory view, for writing and checking data: `units` units,
     * `unit_extent` bytes apart, each made of `n_pieces` (offset, length)
     * pieces of data; every other byte of the span is a gap MPI never touches. */
    size_t units, unit_extent, n_pieces;
    size_t piece_offset[MPISCOPE__LAYOUT_MAX_PIECES];
    size_t piece_length[MPISCOPE__LAYOUT_MAX_PIECES];
} mpiscope__layout_t;

/* Build the layout `name` for messages of size_bytes. Not collective.
 * MPISCOPE_EINVAL for an unknown name or stride, MPISCOPE_ERANGE if a
 * message does not fit MPI's int counts, MPISCOPE_EMPI. */
int mpiscope__layout_create(const char *name, size_t size_bytes, mpiscope__layout_t *layout);

/* Contiguous bytes of any size, for the large-count (_c) calls, whose
 * count is an MPI_Count kept by the caller: `count` is then 0. Not
 * collective, cannot fail. */
void mpiscope__layout_large_bytes(size_t size_bytes, mpiscope__layout_t *layout);

/* Free the derived type, if any (safe on a zeroed or failed layout). */
void mpiscope__layout_free(mpiscope__layout_t *layout);

#endif
