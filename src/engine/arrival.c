/* arrival.c: arrival patterns (when each rank starts after the schedule):
 * their grammar, parsing and per-rank delays. */
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"
#include "plan_spec.h"

const char mpiscope__arrival_grammar[] = "none|late:RANK:US|linear:US|random:US[:SEED]";

static const mpiscope__arrival_pattern_t patterns[] = {
    {"none", "", "every rank starts on the schedule"},
    {"late", "RANK:US", "rank RANK starts US microseconds late, the others on time"},
    {"linear", "US", "rank r starts r x US microseconds late"},
    {"random", "US[:SEED]", "each rank starts a uniform random 0..US microseconds late (seed 1 by default; "
                            "the same on every rank)"},
};

const mpiscope__arrival_pattern_t *mpiscope__arrival_pattern_at(size_t index)
{
    return index < sizeof patterns / sizeof *patterns ? &patterns[index] : NULL;
}

int mpiscope__arrival_parse(const char *s, mpiscope__arrival_t *a)
{
    unsigned long long seed = 1;
    double us = 0;
    int rank = 0, used = 0;
    mpiscope__arrival_kind_t kind;
    if (strcmp(s, "none") == 0)
        kind = MPISCOPE__ARRIVAL_NONE;
    else if (sscanf(s, "late:%d:%lf%n", &rank, &us, &used) == 2 && !s[used] && rank >= 0)
        kind = MPISCOPE__ARRIVAL_LATE;
    else if (sscanf(s, "linear:%lf%n", &us, &used) == 1 && !s[used])
        kind = MPISCOPE__ARRIVAL_LINEAR;
    else if ((sscanf(s, "random:%lf%n", &us, &used) == 1 && !s[used])
             || (sscanf(s, "random:%lf:%llu%n", &us, &seed, &used) == 2 && !s[used]))
        kind = MPISCOPE__ARRIVAL_RANDOM;
    else
        return MPISCOPE_EINVAL;
    if (!(us >= 0 && us <= 1e7))
        return MPISCOPE_EINVAL;
    *a = (mpiscope__arrival_t){.kind = kind, .rank = rank, .us = us, .seed = seed, .text = s};
    return 0;
}

/* xorshift64*: the same sequence on every rank for the same seed. */
unsigned long long mpiscope__xorshift(unsigned long long *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

int mpiscope__arrival_offsets(const mpiscope__arrival_t *a, int nprocs, double *offsets_ns)
{
    unsigned long long state = a->seed ? a->seed : 1;
    for (int r = 0; r < nprocs; r++) {
        switch (a->kind) {
        case MPISCOPE__ARRIVAL_LATE: offsets_ns[r] = r == a->rank ? a->us * 1e3 : 0; break;
        case MPISCOPE__ARRIVAL_LINEAR: offsets_ns[r] = r * a->us * 1e3; break;
        case MPISCOPE__ARRIVAL_RANDOM:
            offsets_ns[r] = (double)(mpiscope__xorshift(&state) >> 11) / 9007199254740992.0 * a->us * 1e3;
            break;
        default: offsets_ns[r] = 0;
        }
    }
    return a->kind == MPISCOPE__ARRIVAL_LATE && a->rank >= nprocs ? MPISCOPE_ERANGE : 0;
}
