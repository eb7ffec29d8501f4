/* model_hockney_fit.c: the piecewise Hockney fit (mpiscope/model.h), a
 * port of python/mpiscope/models/hockney.py (fit_line, split_points,
 * fit_hockney, fit_hockney_auto) that keeps its order of operations, so
 * that both sides compute the same doubles: sums left to right (Python's
 * sum()), the same formulas, ties broken the same way. */
#include "model_internal.h"
#include "mpiscope/error.h"

#include <math.h>
#include <stdlib.h>

enum { MAX_POINTS = 1024 }; /* the work grows as n^3, the memory as n^2 */

typedef struct point {
    size_t size;
    double x, t; /* size as a double, time in ns */
} point_t;

/* One segment's least squares: its line, error sum and largest error. */
typedef struct line {
    double sse, alpha, beta, worst;
} line_t;

typedef struct fit {
    const point_t *p; /* sorted */
    size_t n, min_points;
    double *sse; /* [i * (n + 1) + j]: the error of one line over points [i, j); NAN: not yet */
} fit_t;

static int by_size_then_time(const void *a, const void *b)
{
    const point_t *p = a, *q = b;

    if (p->size != q->size)
        return p->size < q->size ? -1 : 1;
    return (p->t > q->t) - (p->t < q->t);
}

/* alpha, beta minimizing sum(((a + b x - t) / t)^2) over [i, j), both >= 0
 * (fit_line). */
static void fit_line(const point_t *p, size_t i, size_t j, double *alpha, double *beta)
{
    double sw = 0.0, sx = 0.0, st = 0.0, sxx = 0.0, sxt = 0.0, det, a, b;

    for (size_t k = i; k < j; k++) {
        double w = 1.0 / (p[k].t * p[k].t);
        sw += w;
        sx += w * p[k].x;
        st += w * p[k].t;
        sxx += w * p[k].x * p[k].x;
        sxt += w * p[k].x * p[k].t;
    }
    det = sw * sxx - sx * sx;
    if (det <= 0) {
        *alpha = st / sw;
        *beta = 0.0;
        return;
    }
    a = (st * sxx - sx * sxt) / det;
    b = (sw * sxt - sx * st) / det;
    if (b < 0) {
        *alpha = st / sw;
        *beta = 0.0;
    } else if (a < 0) {
        *alpha = 0.0;
        *beta = sxx > 0 ? sxt / sxx : 0.0;
    } else {
        *alpha = a;
        *beta = b;
    }
}

static line_t line_over(const point_t *p, size_t i, size_t j)
{
    line_t l = {.sse = 0.0, .worst = -INFINITY};

    fit_line(p, i, j, &l.alpha, &l.beta);
    for (size_t k = i; k < j; k++) {
        double rel = fabs(l.alpha + l.beta * p[k].x - p[k].t) / p[k].t;
        l.sse += rel * rel;
        if (rel > l.worst)
            l.worst = rel;
    }
    return l;
}

static double sse(fit_t *f, size_t i, size_t j)
{
    double *at = &f->sse[i * (f->n + 1) + j];

    if (isnan(*at))
        *at = line_over(f->p, i, j).sse;
    return *at;
}

/* The bounds [0, i1, ..., n] of the best split into k runs (split_points). */
static int split(fit_t *f, size_t k, size_t *bounds)
{
    size_t n = f->n, m = f->min_points, stride = n + 1;
    double *best = malloc((k + 1) * stride * sizeof *best);
    size_t *from = malloc((k + 1) * stride * sizeof *from);

    if (!best || !from) {
        free(best);
        free(from);
        return MPISCOPE_ENOMEM;
    }
    for (size_t j = 0; j < (k + 1) * stride; j++)
        best[j] = NAN; /* NAN: no split of the first j points into c runs */
    best[0] = 0.0;
    for (size_t c = 1; c <= k; c++)
        for (size_t j = c * m; j <= n; j++)
            for (size_t i = (c - 1) * m; i + m <= j; i++) {
                double prev = best[(c - 1) * stride + i], err;
                if (isnan(prev))
                    continue;
                err = prev + sse(f, i, j);
                if (isnan(best[c * stride + j]) || err < best[c * stride + j]) {
                    best[c * stride + j] = err;
                    from[c * stride + j] = i;
                }
            }
    bounds[k] = n;
    for (size_t c = k; c > 0; c--)
        bounds[c - 1] = from[c * stride + bounds[c]];
    free(best);
    free(from);
    return 0;
}

/* The model of k runs (fit_hockney); *got: the number of segments made. */
static int fit_segments(fit_t *f, int segments, mpiscope_model_t **out, size_t *got)
{
    size_t k = f->n / f->min_points, bounds[MAX_POINTS + 1];
    mpiscope_hockney_segment_t *segs;
    int rc;

    if ((size_t)segments < k)
        k = (size_t)segments;
    if (k < 1)
        k = 1;
    if ((rc = split(f, k, bounds)) != 0)
        return rc;
    if (!(segs = malloc(k * sizeof *segs)))
        return MPISCOPE_ENOMEM;
    for (size_t s = 0; s < k; s++) {
        size_t i = bounds[s], j = bounds[s + 1];
        line_t l = line_over(f->p, i, j);
        segs[s] = (mpiscope_hockney_segment_t){
            .from_bytes = f->p[i].size,
            .to_bytes = f->p[j - 1].size,
            .alpha_ns = l.alpha,
            .beta_ns_per_byte = l.beta,
            .points = j - i,
            .max_rel_error = l.worst,
        };
    }
    *got = k;
    return mpiscope__model_hockney_adopt(segs, k, out);
}

static double worst_error(const mpiscope_model_t *m)
{
    double worst = -INFINITY;

    for (size_t s = 0; s < m->n; s++)
        if (m->segments[s].max_rel_error > worst)
            worst = m->segments[s].max_rel_error;
    return worst;
}

/* n ln(SSE/n + 1e-12) + 3k ln n over the points as given (fit_hockney_auto). */
static double bic(const mpiscope_model_t *m, const size_t *sizes, const double *times, size_t n_given, size_t n,
                  size_t k)
{
    double sum = 0.0;

    for (size_t i = 0; i < n_given; i++)
        if (times[i] > 0) {
            double r = (mpiscope__model_time(m, (double)sizes[i]) - times[i]) / times[i];
            sum += r * r;
        }
    return (double)n * log(sum / (double)n + 1e-12) + (double)(3 * k) * log((double)n);
}

/* segments == 0: the fewest segments within tolerance, else the least BIC. */
static int fit_auto(fit_t *f, const mpiscope_hockney_fit_options_t *o, const size_t *sizes, const double *times,
                    size_t n_given, mpiscope_model_t **out)
{
    mpiscope_model_t *chosen = NULL;
    double chosen_score = 0.0;

    for (int count = 1; count <= o->max_segments; count++) {
        mpiscope_model_t *m;
        size_t got;
        double score;
        int rc = fit_segments(f, count, &m, &got);
        if (rc) {
            mpiscope_model_destroy(chosen);
            return rc;
        }
        if (got < (size_t)count) { /* not enough points for more */
            mpiscope_model_destroy(m);
            break;
        }
        if (worst_error(m) <= o->tolerance) {
            mpiscope_model_destroy(chosen);
            *out = m;
            return 0;
        }
        score = bic(m, sizes, times, n_given, f->n, (size_t)count);
        if (!chosen || score < chosen_score) {
            mpiscope_model_destroy(chosen);
            chosen = m;
            chosen_score = score;
        } else
            mpiscope_model_destroy(m);
    }
    *out = chosen;
    return 0;
}

static int options_ok(const mpiscope_hockney_fit_options_t *o)
{
    return o->segments >= 0 && o->min_points >= 1 && (o->segments > 0 || o->max_segments >= 1) && !isnan(o->tolerance)
           && o->tolerance >= 0.0;
}

int mpiscope_model_fit_hockney(const size_t *sizes_bytes, const double *times_ns, size_t n,
                               const mpiscope_hockney_fit_options_t *options, mpiscope_model_t **out)
{
    static const mpiscope_hockney_fit_options_t defaults = MPISCOPE_HOCKNEY_FIT_OPTIONS_INIT;
    const mpiscope_hockney_fit_options_t *o = options ? options : &defaults;
    fit_t f = {.min_points = o->min_points};
    point_t *p;
    int rc;

    if (out)
        *out = NULL;
    if (!out || (n > 0 && (!sizes_bytes || !times_ns)) || !options_ok(o))
        return MPISCOPE_EINVAL;
    if (n > MAX_POINTS)
        return MPISCOPE_ERANGE;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(times_ns[i]))
            return MPISCOPE_EINVAL;
        f.n += times_ns[i] > 0;
    }
    if (f.n < 2 || f.n < f.min_points)
        return MPISCOPE_EINVAL;
    if (!(p = malloc(f.n * sizeof *p)) || !(f.sse = malloc(f.n * (f.n + 1) * sizeof *f.sse))) {
        free(p);
        return MPISCOPE_ENOMEM;
    }
    for (size_t i = 0, k = 0; i < n; i++)
        if (times_ns[i] > 0)
            p[k++] = (point_t){.size = sizes_bytes[i], .x = (double)sizes_bytes[i], .t = times_ns[i]};
    qsort(p, f.n, sizeof *p, by_size_then_time);
    for (size_t i = 0; i < f.n * (f.n + 1); i++)
        f.sse[i] = NAN;
    f.p = p;
    if (o->segments > 0) {
        size_t got;
        rc = fit_segments(&f, o->segments, out, &got);
    } else
        rc = fit_auto(&f, o, sizes_bytes, times_ns, n, out);
    free(f.sse);
    free(p);
    return rc;
}
