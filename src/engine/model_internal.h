/* model_internal.h (internal): the layout of a model (mpiscope/model.h),
 * shared by its constructors (model.c), the Hockney fit
 * (model_hockney_fit.c) and the collective costs (model_collectives.c). */
#ifndef MPISCOPE_MODEL_INTERNAL_H
#define MPISCOPE_MODEL_INTERNAL_H

#include "mpiscope/model.h"

struct mpiscope_model {
    mpiscope_model_kind_t kind;
    double gamma_ns_per_byte;
    double L_ns, o_s_ns, o_r_ns, g_ns, G_ns_per_byte; /* LogGP; PLogP: L_ns */
    size_t n;                                         /* segments (Hockney) or table rows (PLogP) */
    mpiscope_hockney_segment_t *segments;             /* [n], Hockney */
    double *sizes, *o_s, *o_r, *g;                    /* [n] each, PLogP */
};

/* A Hockney model owning `segments` (n >= 1, from malloc; freed on error). */
int mpiscope__model_hockney_adopt(mpiscope_hockney_segment_t *segments, size_t n, mpiscope_model_t **out);

/* T(s) of a valid model (no checks): the formulas of mpiscope/model.h,
 * written as the Python side's, operation for operation. */
double mpiscope__model_time(const mpiscope_model_t *model, double size_bytes);

#endif
