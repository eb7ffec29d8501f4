/* options.h: the command line of mpiscope-bench. The plan comes from a
 * JSON file (--plan) or from flags, which the library reads as the same
 * JSON document (mpiscope/plan.h). */
#ifndef MPISCOPE_BENCH_OPTIONS_H
#define MPISCOPE_BENCH_OPTIONS_H

#include <stddef.h>
#include "mpiscope/plan.h"

typedef struct bench_command {
    mpiscope_plan_t *plan; /* NULL for --list-ops, --help, --describe and on error */
    int list_ops, help, describe;
    int verify; /* > 0: --verify N, check the plan for N ranks, run nothing */
} bench_command_t;

/* Parse argv into cmd. On error writes one line to `err` and returns
 * non-zero. The plan is freed with mpiscope_plan_free(cmd->plan). */
int bench_options_parse(int argc, char **argv, bench_command_t *cmd, char *err, size_t err_size);

void bench_options_usage(void);

#endif
