/* options.h: the command line of mpiscope-bench (the plan it runs). */
#ifndef MPISCOPE_BENCH_OPTIONS_H
#define MPISCOPE_BENCH_OPTIONS_H

#include <stddef.h>
#include "mpiscope/measure.h"

enum { BENCH_MAX_OPS = 128, BENCH_MAX_VALUES = 1024, BENCH_MAX_META = 16, BENCH_MAX_OPTS = 16,
       BENCH_MAX_METHODS = 16 };

typedef enum bench_arrival {
    BENCH_ARRIVAL_NONE = 0, BENCH_ARRIVAL_LATE, BENCH_ARRIVAL_LINEAR, BENCH_ARRIVAL_RANDOM
} bench_arrival_t;

typedef struct bench_options {
    mpiscope_params_t params;
    const char *ops[BENCH_MAX_OPS];
    int n_ops;
    size_t sizes[BENCH_MAX_VALUES];
    int n_sizes;
    int nprocs[BENCH_MAX_VALUES];     /* varied number of processes, if given */
    int n_nprocs;
    int root;
    const char *dtype, *reduce_op;
    const char *methods[BENCH_MAX_METHODS];
    const mpiscope_method_t *method_handles[BENCH_MAX_METHODS]; /* methods[], looked up once */
    int n_methods;
    int caches[2];                    /* cache modes: 1 cold, 0 warm */
    int n_caches;
    unsigned long long shuffle_seed;  /* 0: plan order */
    bench_arrival_t arrival;
    int arrival_rank;
    double arrival_us;
    unsigned long long arrival_seed;
    const char *arrival_text;
    double drift_seconds;             /* --check: wait before measuring the drift */
    const char *opt_names[BENCH_MAX_OPTS], *opt_values[BENCH_MAX_OPTS];
    int n_opts;                       /* op-specific --op-option name=value */
    const char *meta_keys[BENCH_MAX_META], *meta_values[BENCH_MAX_META];
    int n_meta;
    const char *out;
    int force, raw, oversubscribed, progress, list_ops, help, validate, resync, firstcall, check;
} bench_options_t;

/* Parse argv (modifies the strings it splits). On error writes one line to
 * `err` and returns non-zero. */
int bench_options_parse(int argc, char **argv, bench_options_t *o, char *err, size_t err_size);

void bench_options_usage(void);

#endif
