/* fft.c: the serial mixed-radix FFT of the fft3d mini-app (fft.h).
 *
 * Stockham autosort, decimation in frequency: a stage of radix r on
 * sub-transforms of length len (stride s, len * s == n, m = len / r) reads
 * x[q + s(p + jm)], j < r, and writes y[q + s(rp + k)] = (DFT_r of the a_j)[k]
 * * w_n^(pks), ping-ponging between data and scratch; no bit reversal. */
#include "fft.h"
#include "mpiscope/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FACTORS = 64 };

struct mpiscope__fft {
    size_t n;
    int count;                  /* number of factors */
    size_t factor[MAX_FACTORS]; /* 2s, then 3s, 5s, then other primes ascending */
    double complex *root[2];    /* [n] exp(-2 pi i t / n) (forward), its conjugate (inverse) */
    double complex *scratch;    /* [n] */
};

static void factorize(mpiscope__fft_t *f)
{
    size_t rest = f->n;

    for (size_t d = 2; rest > 1; d++) {
        if (d * d > rest)
            d = rest; /* what is left is prime */
        while (rest % d == 0) {
            f->factor[f->count++] = d;
            rest /= d;
        }
    }
}

int mpiscope__fft_create(size_t n, mpiscope__fft_t **out)
{
    mpiscope__fft_t *f;
    const double two_pi = 6.283185307179586476925286766559;

    *out = NULL;
    if (n == 0)
        return MPISCOPE_EINVAL;
    if (!(f = calloc(1, sizeof *f)))
        return MPISCOPE_ENOMEM;
    f->n = n;
    f->root[0] = malloc(n * sizeof *f->root[0]);
    f->root[1] = malloc(n * sizeof *f->root[1]);
    f->scratch = malloc(n * sizeof *f->scratch);
    if (!f->root[0] || !f->root[1] || !f->scratch) {
        mpiscope__fft_free(f);
        return MPISCOPE_ENOMEM;
    }
    for (size_t t = 0; t < n; t++) {
        double angle = two_pi * (double)t / (double)n;
        f->root[0][t] = CMPLX(cos(angle), -sin(angle));
        f->root[1][t] = CMPLX(cos(angle), sin(angle));
    }
    factorize(f); /* a length below 2^64 has fewer than 64 prime factors */
    *out = f;
    return 0;
}

void mpiscope__fft_free(mpiscope__fft_t *f)
{
    if (!f)
        return;
    free(f->root[0]);
    free(f->root[1]);
    free(f->scratch);
    free(f);
}

size_t mpiscope__fft_length(const mpiscope__fft_t *f)
{
    return f->n;
}

/* DFT of r = 2, 3 or 5 values a[] into b[]. */
static void butterfly(size_t r, const double complex *a, double complex *b, double direction)
{
    if (r == 2) {
        b[0] = a[0] + a[1];
        b[1] = a[0] - a[1];
    } else if (r == 3) {
        const double h = 0.86602540378443864676; /* sin(2 pi / 3) */
        double complex t1 = a[1] + a[2], t2 = a[0] - 0.5 * t1, t3 = direction * h * I * (a[1] - a[2]);
        b[0] = a[0] + t1;
        b[1] = t2 + t3;
        b[2] = t2 - t3;
    } else if (r == 5) {
        const double c1 = 0.30901699437494742410, c2 = -0.80901699437494742410; /* cos 2pi/5, cos 4pi/5 */
        const double s1 = 0.95105651629515357212, s2 = 0.58778525229247312917;  /* sin 2pi/5, sin 4pi/5 */
        double complex t1 = a[1] + a[4], t2 = a[2] + a[3], t3 = a[1] - a[4], t4 = a[2] - a[3];
        double complex u1 = a[0] + c1 * t1 + c2 * t2, v1 = direction * I * (s1 * t3 + s2 * t4);
        double complex u2 = a[0] + c2 * t1 + c1 * t2, v2 = direction * I * (s2 * t3 - s1 * t4);
        b[0] = a[0] + t1 + t2;
        b[1] = u1 + v1;
        b[4] = u1 - v1;
        b[2] = u2 + v2;
        b[3] = u2 - v2;
    }
}

static void stage(const mpiscope__fft_t *f, size_t r, size_t len, size_t s, const double complex *w, double direction,
                  const double complex *x, double complex *y)
{
    size_t m = len / r;
    double complex a[5], b[5];

    for (size_t p = 0; p < m; p++) {
        for (size_t q = 0; q < s; q++) {
            if (r <= 5) {
                for (size_t j = 0; j < r; j++)
                    a[j] = x[q + s * (p + j * m)];
                butterfly(r, a, b, direction);
                for (size_t k = 0; k < r; k++)
                    y[q + s * (r * p + k)] = k ? b[k] * w[p * k * s] : b[0];
            } else { /* a larger prime: y's slots serve as the DFT's output */
                for (size_t k = 0; k < r; k++) {
                    double complex sum = 0;
                    for (size_t j = 0; j < r; j++)
                        sum += x[q + s * (p + j * m)] * w[(j * k % r) * (f->n / r)];
                    y[q + s * (r * p + k)] = sum * w[p * k * s];
                }
            }
        }
    }
}

void mpiscope__fft_run(mpiscope__fft_t *f, double complex *data, int direction)
{
    const double complex *w = f->root[direction == MPISCOPE__FFT_FORWARD ? 0 : 1];
    double complex *x = data, *y = f->scratch, *swap;
    size_t len = f->n, s = 1;

    for (int i = 0; i < f->count; i++) {
        stage(f, f->factor[i], len, s, w, (double)direction, x, y);
        len /= f->factor[i];
        s *= f->factor[i];
        swap = x;
        x = y;
        y = swap;
    }
    if (x != data)
        memcpy(data, x, f->n * sizeof *data);
}
