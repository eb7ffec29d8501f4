/* fft3d.h (internal to src/alltoall): the forward 3-D FFT of an n^3
 * complex-double grid in slabs over the ranks, the fft3d op's computation
 * (docs/alltoall-fft.md). Planes are split as evenly as possible (the
 * first n % p ranks one more); rank r holds the input planes z in
 * [first[r], first[r+1]) as input[z - first[r]][y][x] and, after the
 * transform, the rows y in the same range as output[y - first[r]][z][x]
 * (the transposed layout, not moved back). The transpose is one Alltoall
 * of uniform blocks of `block` elements (16 B each), padded to
 * ceil(n/p)^2 n. Not collective itself: the caller runs the Alltoall. */
#ifndef MPISCOPE_FFT3D_H
#define MPISCOPE_FFT3D_H

#include "fft.h"

#include <stddef.h>

typedef struct mpiscope__fft3d {
    int n, rank, nprocs;
    int *first;             /* [nprocs + 1] first plane (and first output row) of each rank */
    size_t block;           /* elements per destination of the transpose */
    double complex *input;  /* [planes][n][n] x fastest; never overwritten by the transform */
    double complex *output; /* [rows][n][n] */
    double complex *plane;  /* [n][n] work plane */
    double complex *line;   /* [n] a strided line, gathered */
    mpiscope__fft_t *fft;   /* length n */
} mpiscope__fft3d_t;

/* Allocate everything for rank of nprocs on an n^3 grid (n >= 1). Returns
 * 0, MPISCOPE_ENOMEM or MPISCOPE_ERANGE (sizes overflow). On failure g
 * holds nothing to free beyond what mpiscope__fft3d_free() releases. */
int mpiscope__fft3d_init(mpiscope__fft3d_t *g, int n, int rank, int nprocs);
void mpiscope__fft3d_free(mpiscope__fft3d_t *g);

/* Planes and rows of this rank (the same count). */
int mpiscope__fft3d_planes(const mpiscope__fft3d_t *g);

/* Before the transpose: the 1-D FFTs along x and y of every input plane,
 * packed into send (nprocs blocks): block d holds [z][y - first[d]][x]
 * for d's rows. Allocates nothing. */
void mpiscope__fft3d_local(mpiscope__fft3d_t *g, double complex *send);

/* After it: unpack recv into output and the 1-D FFTs along z. */
void mpiscope__fft3d_finish(mpiscope__fft3d_t *g, const double complex *recv);

#endif
