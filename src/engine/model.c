/* model.c: building, querying and freeing models (mpiscope/model.h). */
#include "model_internal.h"
#include "mpiscope/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static mpiscope_model_t *model_new(mpiscope_model_kind_t kind)
{
    mpiscope_model_t *m = calloc(1, sizeof *m);

    if (m)
        m->kind = kind;
    return m;
}

void mpiscope_model_destroy(mpiscope_model_t *model)
{
    if (!model)
        return;
    free(model->segments);
    free(model->sizes);
    free(model->o_s);
    free(model->o_r);
    free(model->g);
    free(model);
}

int mpiscope__model_hockney_adopt(mpiscope_hockney_segment_t *segments, size_t n, mpiscope_model_t **out)
{
    mpiscope_model_t *m = model_new(MPISCOPE_MODEL_HOCKNEY);

    if (!m) {
        free(segments);
        return MPISCOPE_ENOMEM;
    }
    segments[n - 1].to_bytes = MPISCOPE_MODEL_NO_LIMIT;
    m->segments = segments;
    m->n = n;
    *out = m;
    return 0;
}

int mpiscope_model_create_hockney(const mpiscope_hockney_segment_t *segments, size_t n, mpiscope_model_t **out)
{
    mpiscope_hockney_segment_t *copy;

    if (out)
        *out = NULL;
    if (!out || !segments || n == 0 || n > SIZE_MAX / sizeof *copy)
        return MPISCOPE_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(segments[i].alpha_ns) || !isfinite(segments[i].beta_ns_per_byte)
            || (i + 1 < n && i > 0 && segments[i].to_bytes <= segments[i - 1].to_bytes)
            || (i + 1 < n && segments[i].to_bytes == MPISCOPE_MODEL_NO_LIMIT))
            return MPISCOPE_EINVAL;
    if (!(copy = malloc(n * sizeof *copy)))
        return MPISCOPE_ENOMEM;
    memcpy(copy, segments, n * sizeof *copy);
    return mpiscope__model_hockney_adopt(copy, n, out);
}

int mpiscope_model_create_loggp(double L_ns, double o_s_ns, double o_r_ns, double g_ns, double G_ns_per_byte,
                                mpiscope_model_t **out)
{
    mpiscope_model_t *m;

    if (out)
        *out = NULL;
    if (!out || !isfinite(L_ns) || !isfinite(o_s_ns) || !isfinite(o_r_ns) || !isfinite(g_ns)
        || !isfinite(G_ns_per_byte))
        return MPISCOPE_EINVAL;
    if (!(m = model_new(MPISCOPE_MODEL_LOGGP)))
        return MPISCOPE_ENOMEM;
    m->L_ns = L_ns;
    m->o_s_ns = o_s_ns;
    m->o_r_ns = o_r_ns;
    m->g_ns = g_ns;
    m->G_ns_per_byte = G_ns_per_byte;
    *out = m;
    return 0;
}

static int finite_all(const double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(values[i]))
            return 0;
    return 1;
}

static double *copy_doubles(const double *values, size_t n)
{
    double *copy = malloc(n * sizeof *copy);

    if (copy)
        memcpy(copy, values, n * sizeof *copy);
    return copy;
}

int mpiscope_model_create_plogp(double L_ns, const size_t *sizes_bytes, const double *o_s_ns, const double *o_r_ns,
                                const double *g_ns, size_t n, mpiscope_model_t **out)
{
    mpiscope_model_t *m;

    if (out)
        *out = NULL;
    if (!out || !sizes_bytes || !o_s_ns || !o_r_ns || !g_ns || n == 0 || n > SIZE_MAX / sizeof(double)
        || !isfinite(L_ns) || !finite_all(o_s_ns, n) || !finite_all(o_r_ns, n) || !finite_all(g_ns, n))
        return MPISCOPE_EINVAL;
    for (size_t i = 1; i < n; i++)
        if (sizes_bytes[i] <= sizes_bytes[i - 1])
            return MPISCOPE_EINVAL;
    if (!(m = model_new(MPISCOPE_MODEL_PLOGP)))
        return MPISCOPE_ENOMEM;
    m->L_ns = L_ns;
    m->n = n;
    m->o_s = copy_doubles(o_s_ns, n);
    m->o_r = copy_doubles(o_r_ns, n);
    m->g = copy_doubles(g_ns, n);
    if ((m->sizes = malloc(n * sizeof *m->sizes)) != NULL)
        for (size_t i = 0; i < n; i++)
            m->sizes[i] = (double)sizes_bytes[i];
    if (!m->o_s || !m->o_r || !m->g || !m->sizes) {
        mpiscope_model_destroy(m);
        return MPISCOPE_ENOMEM;
    }
    *out = m;
    return 0;
}

int mpiscope_model_set_gamma(mpiscope_model_t *model, double gamma_ns_per_byte)
{
    if (!model || !isfinite(gamma_ns_per_byte) || gamma_ns_per_byte < 0.0)
        return MPISCOPE_EINVAL;
    model->gamma_ns_per_byte = gamma_ns_per_byte;
    return 0;
}

double mpiscope_model_gamma(const mpiscope_model_t *model)
{
    return model ? model->gamma_ns_per_byte : NAN;
}

mpiscope_model_kind_t mpiscope_model_kind(const mpiscope_model_t *model)
{
    return model ? model->kind : (mpiscope_model_kind_t)0;
}

/* Linear interpolation in a table, its end segments extended (Python's
 * models.plogp.interpolate: bisect_right, then the same arithmetic). */
static double interpolate(const double *sizes, const double *values, size_t n, double x)
{
    size_t right = 0, i;

    if (n == 1)
        return values[0];
    while (right < n && sizes[right] <= x)
        right++;
    i = right == 0 ? 0 : right - 1;
    if (i > n - 2)
        i = n - 2;
    return values[i] + (values[i + 1] - values[i]) * (x - sizes[i]) / (sizes[i + 1] - sizes[i]);
}

static const mpiscope_hockney_segment_t *segment_for(const mpiscope_model_t *m, double size_bytes)
{
    for (size_t i = 0; i + 1 < m->n; i++)
        if (size_bytes <= (double)m->segments[i].to_bytes)
            return &m->segments[i];
    return &m->segments[m->n - 1];
}

static double plogp_g(const mpiscope_model_t *m, double size_bytes)
{
    return fmax(interpolate(m->sizes, m->g, m->n, size_bytes), 0.0);
}

double mpiscope__model_time(const mpiscope_model_t *m, double size_bytes)
{
    const mpiscope_hockney_segment_t *seg;

    switch (m->kind) {
    case MPISCOPE_MODEL_HOCKNEY:
        seg = segment_for(m, size_bytes);
        return seg->alpha_ns + seg->beta_ns_per_byte * size_bytes;
    case MPISCOPE_MODEL_LOGGP:
        return m->L_ns + 2 * ((m->o_s_ns + m->o_r_ns) / 2) + fmax(size_bytes - 1, 0.0) * m->G_ns_per_byte;
    default:
        return m->L_ns + plogp_g(m, size_bytes);
    }
}

static int size_ok(double size_bytes)
{
    return isfinite(size_bytes) && size_bytes >= 0.0;
}

int mpiscope_model_time(const mpiscope_model_t *model, double size_bytes, double *time_ns)
{
    if (!model || !time_ns || !size_ok(size_bytes))
        return MPISCOPE_EINVAL;
    *time_ns = mpiscope__model_time(model, size_bytes);
    return 0;
}

size_t mpiscope_model_segment_count(const mpiscope_model_t *model)
{
    return model && model->kind == MPISCOPE_MODEL_HOCKNEY ? model->n : 0;
}

int mpiscope_model_segment(const mpiscope_model_t *model, size_t index, mpiscope_hockney_segment_t *out)
{
    if (!out || index >= mpiscope_model_segment_count(model))
        return MPISCOPE_EINVAL;
    *out = model->segments[index];
    return 0;
}

static void put(double *out, double value)
{
    if (out)
        *out = value;
}

int mpiscope_model_logp_params(const mpiscope_model_t *model, double size_bytes, double *L_ns, double *o_s_ns,
                               double *o_r_ns, double *g_ns, double *G_ns_per_byte)
{
    int plogp = model && model->kind == MPISCOPE_MODEL_PLOGP;

    if (!model || model->kind == MPISCOPE_MODEL_HOCKNEY || !size_ok(size_bytes))
        return MPISCOPE_EINVAL;
    put(L_ns, model->L_ns);
    put(o_s_ns, plogp ? interpolate(model->sizes, model->o_s, model->n, size_bytes) : model->o_s_ns);
    put(o_r_ns, plogp ? interpolate(model->sizes, model->o_r, model->n, size_bytes) : model->o_r_ns);
    put(g_ns, plogp ? plogp_g(model, size_bytes) : model->g_ns);
    put(G_ns_per_byte, plogp ? 0.0 : model->G_ns_per_byte);
    return 0;
}
