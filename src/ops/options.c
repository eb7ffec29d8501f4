/* options.c: reading op-specific option values (options.h). */
#include "options.h"
#include "opctx.h"
#include "mpiscope/error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mpiscope__option_long(const mpiscope_op_ctx_t *ctx, const char *name, long min, long max, long *out)
{
    const char *text = mpiscope_op_ctx_option(ctx, name);
    char *end;
    long value;

    if (!text)
        return MPISCOPE_EINVAL;
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || value < min || value > max)
        return mpiscope__op_ctx_bad_option(ctx, name);
    *out = value;
    return 0;
}

static int parse_double(const char *text, const char **end_out, double min, double *out)
{
    char *end;
    double value;

    errno = 0;
    value = strtod(text, &end);
    if (errno || end == text || !isfinite(value) || value < min)
        return MPISCOPE_EINVAL;
    *end_out = end;
    *out = value;
    return 0;
}

int mpiscope__option_double(const mpiscope_op_ctx_t *ctx, const char *name, double min, double *out)
{
    const char *text = mpiscope_op_ctx_option(ctx, name), *end;

    if (!text || parse_double(text, &end, min, out) != 0 || *end != '\0')
        return mpiscope__op_ctx_bad_option(ctx, name);
    return 0;
}

int mpiscope__option_choice(const mpiscope_op_ctx_t *ctx, const char *name, const char *const *choices, int *out)
{
    const char *text = mpiscope_op_ctx_option(ctx, name);

    for (int i = 0; text && choices[i]; i++)
        if (strcmp(text, choices[i]) == 0) {
            *out = i;
            return 0;
        }
    return mpiscope__op_ctx_bad_option(ctx, name);
}

/* One "SIZE:US" entry of a per-size list; *matched when SIZE is ours. */
static int size_entry(const char **at, size_t size_bytes, int *matched, double *us)
{
    char *end;
    unsigned long long size;

    errno = 0;
    size = strtoull(*at, &end, 10);
    if (errno || end == *at || *end != ':' || **at == '-')
        return MPISCOPE_EINVAL;
    *at = end + 1;
    if (parse_double(*at, at, 0.0, us) != 0)
        return MPISCOPE_EINVAL;
    *matched = size == size_bytes;
    return 0;
}

int mpiscope__option_compute_ns(const mpiscope_op_ctx_t *ctx, double *out)
{
    const char *text = mpiscope_op_ctx_option(ctx, "compute_us"), *at = text;
    double us = 0.0, entry;
    int matched = 0, ours;

    if (!text)
        return MPISCOPE_EINVAL;
    if (!strchr(text, ':')) {
        if (mpiscope__option_double(ctx, "compute_us", 0.0, &us) != 0)
            return MPISCOPE_EINVAL;
        *out = us * 1e3;
        return 0;
    }
    for (;;) { /* every entry must parse; the one for this size is used */
        if (size_entry(&at, ctx->size_bytes, &ours, &entry) != 0 || (*at != ',' && *at != '\0'))
            return MPISCOPE_EINVAL;
        if (ours) {
            us = entry;
            matched = 1;
        }
        if (*at++ == '\0')
            break;
    }
    if (!matched)
        return MPISCOPE_EINVAL; /* the list has no entry for this size */
    *out = us * 1e3;
    return 0;
}

#define PAIR(name, ...)                                                                                                \
    const mpiscope_op_option_t name[] = {__VA_ARGS__ MPISCOPE__OPT_END};                                               \
    const mpiscope_op_option_t name##_nb[] = {__VA_ARGS__ MPISCOPE__OPT_COMPUTE, MPISCOPE__OPT_TEST, MPISCOPE__OPT_END};
#define DIMS_OPTION                                                                                                    \
    {.name = "dims",                                                                                                   \
     .default_value = "1",                                                                                             \
     .unit = "",                                                                                                       \
     .type = "integer",                                                                                                \
     .description = "dimensions of the Cartesian topology (MPI_Dims_create spreads the ranks)"}
#define PERIODIC_OPTION                                                                                                \
    {.name = "periodic",                                                                                               \
     .default_value = "0",                                                                                             \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = mpiscope__choices_no_yes,                                                                              \
     .description = "1: the Cartesian topology wraps around (Open MPI 5.0.11's nonblocking and "                       \
                    "persistent neighbor alltoalls misplace blocks when a periodic dimension has 1 or "                \
                    "2 ranks: open-mpi/ompi#14430)"}
#define GRAPH_OPTION                                                                                                   \
    {.name = "graph",                                                                                                  \
     .default_value = "",                                                                                              \
     .unit = "path",                                                                                                   \
     .type = "text",                                                                                                   \
     .description = "a graph file (lines 'RANK: DEST DEST ...') instead of the Cartesian topology"}

PAIR(mpiscope__opts_sync, )
PAIR(mpiscope__opts_root_move, MPISCOPE__OPT_ROOT, MPISCOPE__OPT_DATATYPE, )
PAIR(mpiscope__opts_root_move_in_place, MPISCOPE__OPT_ROOT, MPISCOPE__OPT_DATATYPE, MPISCOPE__OPT_IN_PLACE, )
PAIR(mpiscope__opts_move_in_place, MPISCOPE__OPT_DATATYPE, MPISCOPE__OPT_IN_PLACE, )
PAIR(mpiscope__opts_root_reduce, MPISCOPE__OPT_ROOT, MPISCOPE__OPT_DTYPE, MPISCOPE__OPT_REDUCE_OP,
     MPISCOPE__OPT_IN_PLACE, )
PAIR(mpiscope__opts_reduce, MPISCOPE__OPT_DTYPE, MPISCOPE__OPT_REDUCE_OP, MPISCOPE__OPT_IN_PLACE, )
PAIR(mpiscope__opts_neighbor, DIMS_OPTION, PERIODIC_OPTION, GRAPH_OPTION, MPISCOPE__OPT_DATATYPE, )

const mpiscope_op_option_t mpiscope__opts_large_root[] = {MPISCOPE__OPT_ROOT, MPISCOPE__OPT_END};
const mpiscope_op_option_t mpiscope__opts_large_root_in_place[] = {MPISCOPE__OPT_ROOT, MPISCOPE__OPT_IN_PLACE,
                                                                   MPISCOPE__OPT_END};
const mpiscope_op_option_t mpiscope__opts_large_in_place[] = {MPISCOPE__OPT_IN_PLACE, MPISCOPE__OPT_END};
