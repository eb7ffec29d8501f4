/* plan.c: expanding the command line into points, and arrival patterns. */
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/measure.h"
#include "plan.h"

static void shuffle(bench_point_t *p, size_t n, unsigned long long seed)
{
    unsigned long long state = seed ? seed : 1;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(mpiscope__xorshift(&state) % i);
        bench_point_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
}

int bench_plan_build(const bench_options_t *o, const mpiscope_op_t *const *ops,
                     bench_point_t **points, size_t *count)
{
    int varied_nprocs = o->n_nprocs > 0;
    int n_values = varied_nprocs ? o->n_nprocs : o->n_sizes;
    size_t max = (size_t)o->n_ops * (size_t)n_values * (size_t)o->n_methods * (size_t)o->n_caches;
    bench_point_t *p = malloc((max ? max : 1) * sizeof *p);
    if (!p)
        return MPISCOPE_ENOMEM;
    size_t n = 0;
    for (int i = 0; i < o->n_ops; i++) {
        int uses_size = (ops[i]->flags & MPISCOPE_OP_USES_SIZE) != 0;
        int values = uses_size || varied_nprocs ? n_values : 1;
        for (int v = 0; v < values; v++)
            for (int m = 0; m < o->n_methods; m++)
                for (int c = 0; c < o->n_caches && mpiscope_method_applies_to(o->method_handles[m], ops[i]); c++)
                    p[n++] = (bench_point_t){
                        .op = ops[i],
                        .size_bytes = varied_nprocs ? o->sizes[0] : (uses_size ? o->sizes[v] : 0),
                        .nprocs = varied_nprocs ? o->nprocs[v] : 0,
                        .method = o->method_handles[m],
                        .cache_cold = o->caches[c],
                    };
    }
    if (o->shuffle_seed)
        shuffle(p, n, o->shuffle_seed);
    *points = p;
    *count = n;
    return 0;
}
