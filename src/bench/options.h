/* options.h: the command line of mpiscope-bench. The plan comes from a
 * JSON file (--plan) or from flags, which are translated into the same
 * JSON document and read by the same plan reader (src/engine/plan_spec.h). */
#ifndef MPISCOPE_BENCH_OPTIONS_H
#define MPISCOPE_BENCH_OPTIONS_H

#include <stddef.h>
#include "plan_spec.h"

typedef mpiscope__plan_t bench_options_t;

typedef struct bench_command {
    bench_options_t plan;
    int list_ops, help, describe;
} bench_command_t;

/* Parse argv into cmd. On error writes one line to `err` and returns
 * non-zero. The plan is freed with mpiscope__plan_free(&cmd->plan). */
int bench_options_parse(int argc, char **argv, bench_command_t *cmd, char *err, size_t err_size);

void bench_options_usage(void);

#endif
