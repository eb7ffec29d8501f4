/* clock_transform.c: the grammar of injected clock transforms
 * (mpiscope_clock_transform_parse), so sync is tested against a known truth. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"

static int fail(char *why, unsigned long len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return MPISCOPE_EINVAL;
}

/* splitmix64: a rank's draw depends on the seed and the rank only. */
static double uniform_pm1(uint64_t seed, int rank, int which)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)rank * 0xBF58476D1CE4E5B9ULL + (uint64_t)which;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* "all", "N", "N-M" or "random": does it select `rank`? With nprocs > 0,
 * a rank the selector names must be one of a run of nprocs ranks. */
static int selects(const char *sel, size_t len, int rank, int nprocs, int *random, char *why, unsigned long why_len)
{
    char text[64];
    if (len == 0 || len >= sizeof text)
        return fail(why, why_len, "clock transform: bad selector '%.*s'", (int)len, sel);
    memcpy(text, sel, len);
    text[len] = 0;
    *random = strcmp(text, "random") == 0;
    if (*random || strcmp(text, "all") == 0)
        return 1;
    char *end;
    long lo = strtol(text, &end, 10), hi = lo;
    if (end != text && *end == '-')
        hi = strtol(end + 1, &end, 10);
    if (end == text || *end || lo < 0 || hi < lo)
        return fail(why, why_len, "clock transform: bad selector '%s' (all, N, N-M or random)", text);
    if (nprocs > 0 && hi >= nprocs)
        return fail(why, why_len, "clock transform: selector '%s' names rank %ld of a %d-rank run", text, hi, nprocs);
    return rank >= lo && rank <= hi;
}

/* KEY=VALUE[,KEY=VALUE...] of one item (up to ';'). */
static int read_values(const char *p, const char *stop, double v[3], int given[3], double *seed, char *why,
                       unsigned long why_len)
{
    static const char *const keys[] = {"offset", "drift", "jitter", "seed"};
    while (p < stop) {
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        if (!eq)
            return fail(why, why_len, "clock transform: expected KEY=VALUE in '%.*s'", (int)(stop - p), p);
        size_t klen = (size_t)(eq - p);
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (strlen(keys[i]) == klen && strncmp(p, keys[i], klen) == 0)
                k = i;
        if (k < 0)
            return fail(why, why_len, "clock transform: unknown key '%.*s' (offset, drift, jitter, seed)", (int)klen,
                        p);
        char *end;
        double x = strtod(eq + 1, &end);
        if (end == eq + 1 || (end < stop && *end != ',') || !isfinite(x))
            return fail(why, why_len, "clock transform: bad number for %s", keys[k]);
        if ((k == 2 && x < 0) || (k == 1 && x <= -1e6) || (k == 3 && x < 0))
            return fail(why, why_len, "clock transform: %s out of range", keys[k]);
        if (k == 3)
            *seed = x;
        else {
            v[k] = x;
            given[k] = 1;
        }
        p = end < stop ? end + 1 : stop;
    }
    return 0;
}

static int parse(const char *spec, int rank, int nprocs, mpiscope_clock_transform_t *out, char *why,
                 unsigned long why_len)
{
    if (!out || rank < 0)
        return fail(why, why_len, "clock transform: bad arguments");
    *out = (mpiscope_clock_transform_t){0};
    const char *p = spec ? spec : "";
    while (*p) {
        const char *end = strchr(p, ';'), *colon;
        if (!end)
            end = p + strlen(p);
        colon = memchr(p, ':', (size_t)(end - p));
        if (end == p) {
            p = *end ? end + 1 : end;
            continue;
        }
        if (!colon)
            return fail(why, why_len, "clock transform: expected SELECTOR:KEY=VALUE in '%.*s'", (int)(end - p), p);
        int random = 0;
        int hit = selects(p, (size_t)(colon - p), rank, nprocs, &random, why, why_len);
        if (hit < 0)
            return hit;
        double v[3] = {0, 0, 0}, seed = 1;
        int given[3] = {0, 0, 0};
        int err = read_values(colon + 1, end, v, given, &seed, why, why_len);
        if (err)
            return err;
        if (hit) {
            if (random) {
                v[0] *= uniform_pm1((uint64_t)seed, rank, 0);
                v[1] *= uniform_pm1((uint64_t)seed, rank, 1);
            }
            if (given[0])
                out->offset_ns = v[0];
            if (given[1])
                out->drift_ppm = v[1];
            if (given[2])
                out->jitter_ns = v[2];
        }
        p = *end ? end + 1 : end;
    }
    return 0;
}

int mpiscope_clock_transform_parse(const char *spec, int rank, mpiscope_clock_transform_t *out, char *why,
                                   unsigned long why_len)
{
    return parse(spec, rank, 0, out, why, why_len);
}

int mpiscope_clock_transform_check(const char *spec, int nprocs, char *why, unsigned long why_len)
{
    mpiscope_clock_transform_t tf;
    if (nprocs < 1)
        return fail(why, why_len, "clock transform: bad arguments");
    return parse(spec, 0, nprocs, &tf, why, why_len);
}
