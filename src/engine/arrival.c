/* arrival.c: arrival patterns (when each rank starts after the schedule):
 * their grammar, parsing and per-rank delays. */
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"
#include "plan_spec.h"

const char mpiscope__arrival_grammar[] = "none|late:RANK:US|linear:US|random:US[:SEED]";

/* members: the object form's members besides "kind" ("seed" optional). */
static const mpiscope__arrival_pattern_t patterns[] = {
    {"none", "", "every rank starts on the schedule", {NULL}},
    {"late", "RANK:US", "rank RANK starts US microseconds late, the others on time", {"rank", "us"}},
    {"linear", "US", "rank r starts r x US microseconds late", {"us"}},
    {"random",
     "US[:SEED]",
     "each rank starts a uniform random 0..US microseconds late (seed 1 by default; "
     "the same on every rank)",
     {"us", "seed"}},
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

static int object_bad(const char *member, const char **where, char *why, size_t size, const char *what)
{
    *where = member;
    snprintf(why, size, "%s", what);
    return MPISCOPE_EINVAL;
}

/* One member's value: rank and seed integers >= 0, us a number in [0, 1e7]. */
static int member_value(const mpiscope__jv_t *m, mpiscope__arrival_t *a, const char **where, char *why, size_t size)
{
    int is_us = strcmp(m->key, "us") == 0;
    if (m->type != MPISCOPE__JV_NUMBER)
        return object_bad(m->key, where, why, size,
                          is_us ? "must be a number in [0, 1e+07]" : "must be an integer >= 0");
    if (is_us) {
        if (!(m->number >= 0 && m->number <= 1e7))
            return object_bad(m->key, where, why, size, "must be a number in [0, 1e+07]");
        a->us = m->number;
    } else if (!m->is_integer || m->negative || (m->key[0] == 'r' && m->integer > 1u << 30)) {
        return object_bad(m->key, where, why, size,
                          m->key[0] == 'r' ? "must be an integer in [0, 1073741824]" : "must be an integer >= 0");
    } else if (m->key[0] == 'r') {
        a->rank = (int)m->integer;
    } else {
        a->seed = m->integer;
    }
    return 0;
}

int mpiscope__arrival_from_object(const mpiscope__jv_t *o, mpiscope__arrival_t *out, const char **where, char *why,
                                  size_t why_size)
{
    const mpiscope__jv_t *kind = mpiscope__jv_get(o, "kind");
    const mpiscope__arrival_pattern_t *pattern = NULL;
    if (!kind || kind->type != MPISCOPE__JV_STRING)
        return object_bad("kind", where, why, why_size, "required: one of none, late, linear, random");
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++)
        if (strcmp(patterns[i].name, kind->string) == 0)
            pattern = &patterns[i];
    if (!pattern)
        return object_bad("kind", where, why, why_size, "must be one of none, late, linear, random");
    mpiscope__arrival_t a = {.kind = (mpiscope__arrival_kind_t)(pattern - patterns), .seed = 1, .text = pattern->name};
    for (const char *const *name = pattern->members; *name; name++)
        if (strcmp(*name, "seed") != 0 && !mpiscope__jv_get(o, *name))
            return object_bad(*name, where, why, why_size, "required");
    for (const mpiscope__jv_t *m = o->first; m; m = m->next) {
        int known = strcmp(m->key, "kind") == 0;
        for (const char *const *name = pattern->members; *name; name++)
            known |= strcmp(*name, m->key) == 0;
        if (!known) {
            snprintf(why, why_size, "not a member of a %s arrival", pattern->name);
            *where = m->key;
            return MPISCOPE_EINVAL;
        }
        if (strcmp(m->key, "kind") != 0 && member_value(m, &a, where, why, why_size))
            return MPISCOPE_EINVAL;
    }
    *out = a;
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
        case MPISCOPE__ARRIVAL_LATE:
            offsets_ns[r] = r == a->rank ? a->us * 1e3 : 0;
            break;
        case MPISCOPE__ARRIVAL_LINEAR:
            offsets_ns[r] = r * a->us * 1e3;
            break;
        case MPISCOPE__ARRIVAL_RANDOM:
            offsets_ns[r] = (double)(mpiscope__xorshift(&state) >> 11) / 9007199254740992.0 * a->us * 1e3;
            break;
        default:
            offsets_ns[r] = 0;
        }
    }
    return a->kind == MPISCOPE__ARRIVAL_LATE && a->rank >= nprocs ? MPISCOPE_ERANGE : 0;
}
