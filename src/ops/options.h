/* options.h (internal to src/ops): the op-specific options the families
 * share (as descriptor entries), and reading option values in initialize
 * hooks. A value that does not parse is MPISCOPE_EINVAL. */
#ifndef MPISCOPE_OPS_OPTIONS_H
#define MPISCOPE_OPS_OPTIONS_H

#include "mpiscope/op.h"

/* Set with the engine's own parameters (--root, --dtype, --reduce-op). */
/* The accepted values of the choice options (the hooks parse with them too). */
extern const char *const mpiscope__choices_no_yes[];   /* "0", "1" */
extern const char *const mpiscope__choices_p2p_mode[]; /* blocking, nonblocking, synchronous, persistent */
extern const char *const mpiscope__choices_rma_sync[]; /* fence, pscw, lock, lock_all */
extern const char *const mpiscope__choices_rma_win[];  /* create, allocate, dynamic */

#define MPISCOPE__OPT_ROOT                                                                                             \
    {.name = "root",                                                                                                   \
     .default_value = "0",                                                                                             \
     .unit = "rank",                                                                                                   \
     .type = "integer",                                                                                                \
     .description = "rank of the root (set with --root)"}
#define MPISCOPE__OPT_DTYPE                                                                                            \
    {.name = "dtype",                                                                                                  \
     .default_value = "double",                                                                                        \
     .unit = "",                                                                                                       \
     .type = "name",                                                                                                   \
     .description = "element type (set with --dtype): double, float, int, long, byte, int64_t, ..."}
#define MPISCOPE__OPT_REDUCE_OP                                                                                        \
    {.name = "op",                                                                                                     \
     .default_value = "sum",                                                                                           \
     .unit = "",                                                                                                       \
     .type = "name",                                                                                                   \
     .description = "reduction (set with --reduce-op): sum, prod, min, max, band, bor, bxor, land, lor, lxor"}
/* The ops' own. */
#define MPISCOPE__OPT_DATATYPE                                                                                         \
    {.name = "datatype",                                                                                               \
     .default_value = "bytes",                                                                                         \
     .unit = "",                                                                                                       \
     .type = "text",                                                                                                   \
     .description = "message layout: bytes, vector:STRIDE (8-byte elements STRIDE apart), indexed, struct"}
#define MPISCOPE__OPT_IN_PLACE                                                                                         \
    {.name = "in_place",                                                                                               \
     .default_value = "0",                                                                                             \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = mpiscope__choices_no_yes,                                                                              \
     .description = "1: MPI_IN_PLACE where the standard allows it"}
#define MPISCOPE__OPT_COMPUTE                                                                                          \
    {.name = "compute_us",                                                                                             \
     .default_value = "0",                                                                                             \
     .unit = "us",                                                                                                     \
     .type = "text",                                                                                                   \
     .description = "busy computation between start and wait, testing the request; US for every "                      \
                    "size or SIZE:US,SIZE:US,... per size in bytes (mpiscope overlap sets it)"}
#define MPISCOPE__OPT_TEST                                                                                             \
    {.name = "test_us",                                                                                                \
     .default_value = "10",                                                                                            \
     .unit = "us",                                                                                                     \
     .type = "number",                                                                                                 \
     .description = "MPI_Test every this long during compute_us (0: never)"}
#define MPISCOPE__OPT_MODE(dflt)                                                                                       \
    {.name = "mode",                                                                                                   \
     .default_value = dflt,                                                                                            \
     .unit = "",                                                                                                       \
     .type = "choice",                                                                                                 \
     .choices = mpiscope__choices_p2p_mode,                                                                            \
     .description = "blocking (Send/Recv, Sendrecv), nonblocking (Isend/Irecv + Waitall), "                            \
                    "synchronous (Issend), persistent (Send_init/Recv_init once, Startall + Waitall)"}
#define MPISCOPE__OPT_PAIRS(dflt)                                                                                      \
    {.name = "pairs",                                                                                                  \
     .default_value = dflt,                                                                                            \
     .unit = "ranks",                                                                                                  \
     .type = "text",                                                                                                   \
     .description = "who talks to whom: A-B[,C-D...] or all (rank i with i+n/2); other ranks idle; "                   \
                    "point-to-point ops: rounds A-B,...;C-D,... (launch l runs round l mod rounds)"}
#define MPISCOPE__OPT_WINDOW                                                                                           \
    {.name = "window",                                                                                                 \
     .default_value = "64",                                                                                            \
     .unit = "messages",                                                                                               \
     .type = "integer",                                                                                                \
     .description = "messages in flight per launch and direction"}
#define MPISCOPE__OPT_END {.name = NULL}

/* The option as an integer in [min, max]. */
int mpiscope__option_long(const mpiscope_op_ctx_t *ctx, const char *name, long min, long max, long *out);

/* The option as a finite number >= min. */
int mpiscope__option_double(const mpiscope_op_ctx_t *ctx, const char *name, double min, double *out);

/* The option as the index of one of `choices` (a NULL-terminated list). */
int mpiscope__option_choice(const mpiscope_op_ctx_t *ctx, const char *name, const char *const *choices, int *out);

/* compute_us: "US" or "SIZE:US,..." for ctx->size_bytes, in ns. */
int mpiscope__option_compute_ns(const mpiscope_op_ctx_t *ctx, double *out);

/* The large-count collectives' (contiguous bytes: no datatype option). */
extern const mpiscope_op_option_t mpiscope__opts_large_root[];          /* root */
extern const mpiscope_op_option_t mpiscope__opts_large_root_in_place[]; /* root, in_place */
extern const mpiscope_op_option_t mpiscope__opts_large_in_place[];      /* in_place */

/* The option lists of the collective family: NAME without and NAME_nb
 * with compute_us and test_us (nonblocking and persistent forms). */
#define MPISCOPE__OPTION_PAIR_DECLARE(name) extern const mpiscope_op_option_t name[], name##_nb[];
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_sync)               /* (none) */
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_root_move)          /* root, datatype */
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_root_move_in_place) /* root, datatype, in_place */
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_move_in_place)      /* datatype, in_place */
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_root_reduce)        /* root, dtype, op, in_place */
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_reduce)             /* dtype, op, in_place */
MPISCOPE__OPTION_PAIR_DECLARE(mpiscope__opts_neighbor)           /* dims, periodic, graph, datatype */

#endif
