/* pairs.c: the `pairs` option (pairs.h). */
#include "pairs.h"
#include "mpiscope/error.h"
#include "opctx.h"

#include <stdlib.h>
#include <string.h>

static int parse_rank(const char **at, int nprocs, int *rank)
{
    char *end;
    long value = strtol(*at, &end, 10);

    if (end == *at || **at == '-' || **at == '+' || value < 0 || value >= nprocs)
        return MPISCOPE_EINVAL;
    *rank = (int)value;
    *at = end;
    return 0;
}

/* "A-B" of round `round`: marks both ranks used in it (stamp = round + 1);
 * sets this rank's partner if it is in the pair. */
static int parse_pair(const char **at, const mpiscope_op_ctx_t *ctx, int *stamp, int round, mpiscope__pairs_t *s)
{
    int a, b;

    if (parse_rank(at, ctx->nprocs, &a) != 0 || *(*at)++ != '-' || parse_rank(at, ctx->nprocs, &b) != 0 || a == b
        || stamp[a] == round + 1 || stamp[b] == round + 1)
        return MPISCOPE_EINVAL;
    stamp[a] = stamp[b] = round + 1;
    if (ctx->rank == a || ctx->rank == b) {
        s->peer[round] = ctx->rank == a ? b : a;
        s->first[round] = ctx->rank == a;
    }
    return 0;
}

/* The rounds of "A-B,C-D;E-F,...": a stamp per rank instead of a cleared
 * array per round keeps the parse linear in the text. */
static int parse_rounds(const char *text, const mpiscope_op_ctx_t *ctx, mpiscope__pairs_t *s)
{
    int *stamp = calloc((size_t)ctx->nprocs, sizeof *stamp);
    const char *at = text;
    int rc = stamp ? 0 : MPISCOPE_ENOMEM, round = 0;

    while (!rc) {
        rc = parse_pair(&at, ctx, stamp, round, s);
        if (rc || *at == '\0')
            break;
        if (*at == ';')
            round++;
        else if (*at != ',')
            rc = MPISCOPE_EINVAL;
        at++;
    }
    free(stamp);
    return rc;
}

static int allocate(mpiscope__pairs_t *s, int rounds)
{
    s->rounds = rounds;
    s->peer = malloc((size_t)rounds * sizeof *s->peer);
    s->first = calloc((size_t)rounds, 1);
    if (!s->peer || !s->first)
        return MPISCOPE_ENOMEM;
    for (int r = 0; r < rounds; r++)
        s->peer[r] = -1;
    return 0;
}

int mpiscope__pairs_schedule(const mpiscope_op_ctx_t *ctx, mpiscope__pairs_t *s)
{
    const char *text = mpiscope_op_ctx_option(ctx, "pairs");
    int half = ctx->nprocs / 2, rounds = 1, rc;

    memset(s, 0, sizeof *s);
    if (!text || !*text)
        return mpiscope__op_ctx_bad_option(ctx, "pairs");
    for (const char *c = text; *c; c++)
        rounds += *c == ';';
    if ((rc = allocate(s, rounds)) != 0)
        return rc;
    if (strcmp(text, "all") != 0)
        return parse_rounds(text, ctx, s) ? mpiscope__op_ctx_bad_option(ctx, "pairs") : 0;
    if (ctx->rank < 2 * half) {
        s->first[0] = ctx->rank < half;
        s->peer[0] = s->first[0] ? ctx->rank + half : ctx->rank - half;
    }
    return 0;
}

void mpiscope__pairs_free(mpiscope__pairs_t *s)
{
    free(s->peer);
    free(s->first);
    memset(s, 0, sizeof *s);
}

int mpiscope__pairs_peer(const mpiscope_op_ctx_t *ctx, int *peer, int *first)
{
    mpiscope__pairs_t s;
    int rc = mpiscope__pairs_schedule(ctx, &s);

    if (!rc && s.rounds != 1)
        rc = mpiscope__op_ctx_bad_option_why(ctx, "pairs", "rounds (;) are for the point-to-point ops");
    *peer = rc ? -1 : s.peer[0];
    *first = rc ? 0 : s.first[0];
    mpiscope__pairs_free(&s);
    return rc;
}
