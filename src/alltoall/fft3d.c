/* fft3d.c: the slab-decomposed forward 3-D FFT of the fft3d op (fft3d.h). */
#include "fft3d.h"
#include "mpiscope/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mpiscope__fft3d_init(mpiscope__fft3d_t *g, int n, int rank, int nprocs)
{
    size_t nn = (size_t)n * (size_t)n, slab = ((size_t)n + (size_t)nprocs - 1) / (size_t)nprocs, planes;
    int rc;

    memset(g, 0, sizeof *g);
    g->n = n;
    g->rank = rank;
    g->nprocs = nprocs;
    if (!(g->first = malloc(((size_t)nprocs + 1) * sizeof *g->first)))
        return MPISCOPE_ENOMEM;
    for (int r = 0; r <= nprocs; r++)
        g->first[r] = r * (n / nprocs) + (r < n % nprocs ? r : n % nprocs);
    planes = (size_t)mpiscope__fft3d_planes(g);
    if (slab && slab * slab > SIZE_MAX / 16 / (size_t)n)
        return MPISCOPE_ERANGE;
    g->block = slab * slab * (size_t)n;
    if (planes && nn > SIZE_MAX / sizeof(double complex) / planes)
        return MPISCOPE_ERANGE;
    g->input = malloc((planes ? planes : 1) * nn * sizeof *g->input);
    g->output = malloc((planes ? planes : 1) * nn * sizeof *g->output);
    g->plane = malloc(nn * sizeof *g->plane);
    g->line = malloc((size_t)n * sizeof *g->line);
    if (!g->input || !g->output || !g->plane || !g->line)
        return MPISCOPE_ENOMEM;
    if ((rc = mpiscope__fft_create((size_t)n, &g->fft)) != 0)
        return rc;
    return 0;
}

void mpiscope__fft3d_free(mpiscope__fft3d_t *g)
{
    free(g->first);
    free(g->input);
    free(g->output);
    free(g->plane);
    free(g->line);
    mpiscope__fft_free(g->fft);
    memset(g, 0, sizeof *g);
}

int mpiscope__fft3d_planes(const mpiscope__fft3d_t *g)
{
    return g->first[g->rank + 1] - g->first[g->rank];
}

/* The line data[0], data[stride], ... of n values, transformed in place. */
static void strided_fft(mpiscope__fft3d_t *g, double complex *data, size_t stride)
{
    size_t n = (size_t)g->n;

    for (size_t i = 0; i < n; i++)
        g->line[i] = data[i * stride];
    mpiscope__fft_run(g->fft, g->line, MPISCOPE__FFT_FORWARD);
    for (size_t i = 0; i < n; i++)
        data[i * stride] = g->line[i];
}

void mpiscope__fft3d_local(mpiscope__fft3d_t *g, double complex *send)
{
    size_t n = (size_t)g->n, nn = n * n, planes = (size_t)mpiscope__fft3d_planes(g);

    for (size_t z = 0; z < planes; z++) {
        memcpy(g->plane, g->input + z * nn, nn * sizeof *g->plane);
        for (size_t y = 0; y < n; y++)
            mpiscope__fft_run(g->fft, g->plane + y * n, MPISCOPE__FFT_FORWARD);
        for (size_t x = 0; x < n; x++)
            strided_fft(g, g->plane + x, n);
        for (int d = 0; d < g->nprocs; d++) {
            size_t rows = (size_t)(g->first[d + 1] - g->first[d]);
            memcpy(send + (size_t)d * g->block + z * rows * n, g->plane + (size_t)g->first[d] * n,
                   rows * n * sizeof *send);
        }
    }
}

void mpiscope__fft3d_finish(mpiscope__fft3d_t *g, const double complex *recv)
{
    size_t n = (size_t)g->n, nn = n * n, rows = (size_t)mpiscope__fft3d_planes(g);

    for (int s = 0; s < g->nprocs; s++) {
        const double complex *from = recv + (size_t)s * g->block;
        size_t planes = (size_t)(g->first[s + 1] - g->first[s]);
        for (size_t z = 0; z < planes; z++)
            for (size_t y = 0; y < rows; y++)
                memcpy(g->output + y * nn + ((size_t)g->first[s] + z) * n, from + (z * rows + y) * n, n * sizeof *from);
    }
    for (size_t y = 0; y < rows; y++)
        for (size_t x = 0; x < n; x++)
            strided_fft(g, g->output + y * nn + x, n);
}
