/* fft_check.c: the serial FFT of the fft3d mini-app (src/alltoall/fft.c)
 * against a naive DFT on lengths 1..64 and a few larger ones (primes,
 * 120, 480), forward and inverse, and inverse(forward(x)) == n x. Prints
 * one line per failing length; exit 1 on any failure. */
#include "fft.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const size_t extra_lengths[] = {97, 120, 121, 125, 128, 143, 180, 240, 243, 480};

static double next_uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 9007199254740992.0 - 0.5;
}

static void naive(const double complex *x, double complex *out, size_t n, int direction)
{
    const double two_pi = 6.283185307179586476925286766559;

    for (size_t k = 0; k < n; k++) {
        double complex sum = 0;
        for (size_t j = 0; j < n; j++) {
            double angle = two_pi * (double)(j * k % n) / (double)n;
            sum += x[j] * CMPLX(cos(angle), direction * sin(angle));
        }
        out[k] = sum;
    }
}

/* max |a - b| / max |b| */
static double relative_error(const double complex *a, const double complex *b, size_t n, double scale)
{
    double diff = 0, norm = 0;

    for (size_t i = 0; i < n; i++) {
        diff = fmax(diff, cabs(a[i] - scale * b[i]));
        norm = fmax(norm, cabs(scale * b[i]));
    }
    return norm > 0 ? diff / norm : diff;
}

static int check_length(size_t n)
{
    double complex *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *want = malloc(n * sizeof *want);
    mpiscope__fft_t *fft = NULL;
    uint64_t state = n;
    int failures = 0;
    const int directions[] = {MPISCOPE__FFT_FORWARD, MPISCOPE__FFT_INVERSE};

    if (!x || !y || !want || mpiscope__fft_create(n, &fft) != 0 || mpiscope__fft_length(fft) != n) {
        printf("n=%zu: setup failed\n", n);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = CMPLX(next_uniform(&state), next_uniform(&state));
    for (int d = 0; d < 2; d++) {
        double error;
        for (size_t i = 0; i < n; i++)
            y[i] = x[i];
        mpiscope__fft_run(fft, y, directions[d]);
        naive(x, want, n, directions[d]);
        if ((error = relative_error(y, want, n, 1.0)) > 1e-12) {
            printf("n=%zu %s: relative error %.3g vs the naive DFT\n", n, d ? "inverse" : "forward", error);
            failures++;
        }
    }
    for (size_t i = 0; i < n; i++)
        y[i] = x[i];
    mpiscope__fft_run(fft, y, MPISCOPE__FFT_FORWARD);
    mpiscope__fft_run(fft, y, MPISCOPE__FFT_INVERSE);
    if (relative_error(y, x, n, (double)n) > 1e-12) {
        printf("n=%zu: inverse(forward(x)) != n x\n", n);
        failures++;
    }
    mpiscope__fft_free(fft);
    free(x);
    free(y);
    free(want);
    return failures;
}

int main(void)
{
    int failures = 0, lengths = 0;
    mpiscope__fft_t *none;

    for (size_t n = 1; n <= 64; n++, lengths++)
        failures += check_length(n);
    for (size_t i = 0; i < sizeof extra_lengths / sizeof *extra_lengths; i++, lengths++)
        failures += check_length(extra_lengths[i]);
    if (mpiscope__fft_create(0, &none) == 0 || none) {
        printf("n=0 accepted\n");
        failures++;
    }
    printf("fft_check: %d lengths: %s (%d failures)\n", lengths, failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
