/* model_collectives.c: collective costs by name from a model's T(s) and
 * gamma (mpiscope/model.h). The table is the one of
 * python/mpiscope/models/collectives.py: the same names, formulas and
 * order of operations, so both sides give the same doubles. */
#include "model_internal.h"
#include "mpiscope/error.h"

#include <math.h>
#include <string.h>

typedef double (*cost_t)(const mpiscope_model_t *m, int p, double s);

static double t(const mpiscope_model_t *m, double s)
{
    return mpiscope__model_time(m, s);
}

/* ceil(log2 p) for p >= 1. */
static int ceil_log2(int p)
{
    int steps = 0;

    while ((1L << steps) < p)
        steps++;
    return steps;
}

/* floor(log2 p) for p >= 1. */
static int floor_log2(int p)
{
    int steps = 0;

    while ((1L << (steps + 1)) <= p)
        steps++;
    return steps;
}

static double linear(const mpiscope_model_t *m, int p, double s)
{
    return (p - 1) * t(m, s);
}

static double binomial(const mpiscope_model_t *m, int p, double s)
{
    return ceil_log2(p) * t(m, s);
}

static double bruck(const mpiscope_model_t *m, int p, double s)
{
    return ceil_log2(p) * t(m, (double)((p + 1) / 2) * s);
}

/* The two extra steps of a non-power-of-two p: the excess ranks hand their
 * vector to a partner (which reduces it) and get the result back. */
static double extra(const mpiscope_model_t *m, int p, double s)
{
    return p == 1 << floor_log2(p) ? 0.0 : 2 * t(m, s) + s * m->gamma_ns_per_byte;
}

static double recursive_doubling(const mpiscope_model_t *m, int p, double s)
{
    return floor_log2(p) * (t(m, s) + s * m->gamma_ns_per_byte) + extra(m, p, s);
}

static double rabenseifner(const mpiscope_model_t *m, int p, double s)
{
    int steps = floor_log2(p), q = 1 << steps;
    double halving = 0.0;

    for (int k = 1; k <= steps; k++)
        halving += t(m, s / ldexp(1.0, k));
    return 2 * halving + (double)(q - 1) / q * s * m->gamma_ns_per_byte + extra(m, p, s);
}

static double dissemination(const mpiscope_model_t *m, int p, double s)
{
    return ceil_log2(p) * t(m, 0.0);
}

static const struct {
    const char *name, *formula;
    cost_t cost;
} collectives[] = {
    {"bcast:linear", "(p-1) T(s)", linear},
    {"bcast:binomial", "ceil(log2 p) T(s)", binomial},
    {"scatter:linear", "(p-1) T(s)", linear},
    {"gather:linear", "(p-1) T(s)", linear},
    {"alltoall:bruck", "ceil(log2 p) T(ceil(p/2) s)", bruck},
    {"alltoall:pairwise", "(p-1) T(s)", linear},
    {"alltoall:linear", "(p-1) T(s)  (single port: overlap not modeled)", linear},
    {"allreduce:recursive_doubling", "log2 q (T(s) + s gamma) [+ 2 T(s) + s gamma if p != q], q = 2^floor(log2 p)",
     recursive_doubling},
    {"allreduce:rabenseifner", "2 sum_k=1..log2 q T(s/2^k) + (q-1)/q s gamma [+ 2 T(s) + s gamma if p != q]",
     rabenseifner},
    {"allgather:ring", "(p-1) T(s)", linear},
    {"barrier:dissemination", "ceil(log2 p) T(0)", dissemination},
};
enum { N_COLLECTIVES = sizeof collectives / sizeof *collectives };

size_t mpiscope_model_collective_count(void)
{
    return N_COLLECTIVES;
}

const char *mpiscope_model_collective_name(size_t index)
{
    return index < N_COLLECTIVES ? collectives[index].name : NULL;
}

const char *mpiscope_model_collective_formula(size_t index)
{
    return index < N_COLLECTIVES ? collectives[index].formula : NULL;
}

int mpiscope_model_predict(const mpiscope_model_t *model, const char *collective, int nprocs, double size_bytes,
                           double *time_ns)
{
    if (!model || !collective || !time_ns || nprocs < 1 || !isfinite(size_bytes) || size_bytes < 0.0)
        return MPISCOPE_EINVAL;
    for (size_t i = 0; i < N_COLLECTIVES; i++)
        if (strcmp(collectives[i].name, collective) == 0) {
            *time_ns = nprocs < 2 ? 0.0 : collectives[i].cost(model, nprocs, size_bytes);
            return 0;
        }
    return MPISCOPE_ENOOP;
}
