/* pairs.c: the `pairs` option (pairs.h). */
#include "pairs.h"
#include "mpiscope/error.h"

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

/* "A-B": marks both ranks used; sets the partner if this rank is in it. */
static int parse_pair(const char **at, const mpiscope_op_ctx_t *ctx, char *used, int *peer, int *first)
{
    int a, b;

    if (parse_rank(at, ctx->nprocs, &a) != 0 || *(*at)++ != '-' || parse_rank(at, ctx->nprocs, &b) != 0
        || a == b || used[a]++ || used[b]++)
        return MPISCOPE_EINVAL;
    if (ctx->rank == a || ctx->rank == b) {
        *peer = ctx->rank == a ? b : a;
        *first = ctx->rank == a;
    }
    return 0;
}

static int parse_list(const char *text, const mpiscope_op_ctx_t *ctx, int *peer, int *first)
{
    char *used = calloc((size_t)ctx->nprocs, 1);
    const char *at = text;
    int rc = used ? 0 : MPISCOPE_ENOMEM;

    while (!rc) {
        rc = parse_pair(&at, ctx, used, peer, first);
        if (rc || *at == '\0')
            break;
        if (*at++ != ',')
            rc = MPISCOPE_EINVAL;
    }
    free(used);
    return rc;
}

int mpiscope__pairs_peer(const mpiscope_op_ctx_t *ctx, int *peer, int *first)
{
    const char *text = mpiscope_op_ctx_option(ctx, "pairs");
    int half = ctx->nprocs / 2;

    *peer = -1;
    *first = 0;
    if (!text || !*text)
        return MPISCOPE_EINVAL;
    if (strcmp(text, "all") != 0)
        return parse_list(text, ctx, peer, first);
    if (ctx->rank < 2 * half) {
        *first = ctx->rank < half;
        *peer = *first ? ctx->rank + half : ctx->rank - half;
    }
    return 0;
}
