/* fft.h (internal to src/alltoall): a serial complex FFT of any length,
 * for the fft3d mini-app (docs/alltoall-fft.md). Mixed radix (Stockham,
 * self-sorting): butterflies of radix 2, 3 and 5, a plain DFT for any
 * other prime factor. Not collective, no MPI. */
#ifndef MPISCOPE_FFT_H
#define MPISCOPE_FFT_H

#include <complex.h>
#include <stddef.h>

typedef struct mpiscope__fft mpiscope__fft_t;

enum { MPISCOPE__FFT_FORWARD = -1, MPISCOPE__FFT_INVERSE = 1 };

/* A transform of length n >= 1: twiddles and scratch allocated here, once.
 * Returns 0, MPISCOPE_EINVAL (n == 0) or MPISCOPE_ENOMEM. */
int mpiscope__fft_create(size_t n, mpiscope__fft_t **out);

/* In place on n contiguous values: X[k] = sum_j x[j] exp(direction 2 pi i jk / n),
 * direction MPISCOPE__FFT_FORWARD or _INVERSE; unnormalized (inverse of
 * forward gives n x). Allocates nothing; uses the plan's scratch, so one
 * plan serves one thread at a time. */
void mpiscope__fft_run(mpiscope__fft_t *fft, double complex *data, int direction);

size_t mpiscope__fft_length(const mpiscope__fft_t *fft);

void mpiscope__fft_free(mpiscope__fft_t *fft); /* NULL is ignored */

#endif
