/* plan.h: the points a bench run measures, in the order it measures them. */
#ifndef MPISCOPE_BENCH_PLAN_H
#define MPISCOPE_BENCH_PLAN_H

#include <stddef.h>
#include "mpiscope/measure.h"
#include "options.h"

typedef struct bench_point {
    const mpiscope_op_t *op;
    size_t size_bytes;
    int nprocs;          /* 0: all ranks */
    const mpiscope_method_t *method;
    int cache_cold;
} bench_point_t;

/* Every op x value (size, or number of processes) x method x cache mode
 * (leaving out methods that do not apply to an op, e.g. bcast-supinski),
 * methods and cache modes interleaved innermost so that they are compared
 * under the same conditions; shuffled when o->shuffle_seed is set. The
 * same on every rank. *points is freed by the caller. */
int bench_plan_build(const bench_options_t *o, const mpiscope_op_t *const *ops,
                     bench_point_t **points, size_t *count);

#endif
