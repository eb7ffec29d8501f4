/* plan_points.c: the points a plan measures, in the order it measures them. */
#include <stdlib.h>
#include "mpiscope/error.h"
#include "plan_spec.h"

static void shuffle(mpiscope__plan_point_t *p, size_t n, unsigned long long seed)
{
    unsigned long long state = seed ? seed : 1;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(mpiscope__xorshift(&state) % i);
        mpiscope__plan_point_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
}

int mpiscope__plan_points(const mpiscope__plan_t *o, mpiscope__plan_point_t **points, size_t *count)
{
    int varied_nprocs = o->n_nprocs > 0;
    int n_values = varied_nprocs ? o->n_nprocs : o->n_sizes;
    size_t max = (size_t)o->n_ops * (size_t)n_values * (size_t)o->n_methods * (size_t)o->n_caches;
    mpiscope__plan_point_t *p = malloc((max ? max : 1) * sizeof *p);
    if (!p)
        return MPISCOPE_ENOMEM;
    size_t n = 0;
    for (int i = 0; i < o->n_ops; i++) {
        const mpiscope_op_t *op = o->op_handles[i];
        int uses_size = (op->flags & MPISCOPE_OP_USES_SIZE) != 0;
        int values = uses_size || varied_nprocs ? n_values : 1;
        for (int v = 0; v < values; v++)
            for (int m = 0; m < o->n_methods; m++)
                for (int c = 0; c < o->n_caches && mpiscope_method_applies_to(o->method_handles[m], op); c++)
                    p[n++] = (mpiscope__plan_point_t){
                        .op = op,
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
