/* plan_fields.c: the fields of a plan, each described once and checked in
 * one place, whether it came from a plan file or from command-line flags
 * (which mpiscope-bench translates into the same JSON document). */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mpiscope/error.h"
#include "environment.h"
#include "opctx.h"
#include "param_table.h"
#include "plan_spec.h"

/* Where a bad value sits: field, and the item of a list or map. */
typedef struct where {
    const char *field;
    long index;      /* -1: the field itself */
    const char *key; /* a map's member */
    char *err;
    size_t err_size;
} where_t;

static int bad(const where_t *w, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int bad(const where_t *w, const char *format, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, format);
    vsnprintf(what, sizeof what, format, ap);
    va_end(ap);
    if (w->key)
        snprintf(w->err, w->err_size, "plan field '%s.%s': %s", w->field, w->key, what);
    else if (w->index >= 0)
        snprintf(w->err, w->err_size, "plan field '%s[%ld]': %s", w->field, w->index, what);
    else
        snprintf(w->err, w->err_size, "plan field '%s': %s", w->field, what);
    return MPISCOPE_EINVAL;
}

static int want(const where_t *w, const mpiscope__jv_t *v, mpiscope__jv_type_t type)
{
    return v->type == type
               ? 0
               : bad(w, "must be %s, not %s", mpiscope__jv_type_name(type), mpiscope__jv_type_name(v->type));
}

static int integer_in(const where_t *w, const mpiscope__jv_t *v, double min, double max, unsigned long long *out)
{
    if (want(w, v, MPISCOPE__JV_NUMBER))
        return MPISCOPE_EINVAL;
    if (!v->is_integer || (v->negative && v->integer) || (double)v->integer < min || (double)v->integer > max) {
        if (isinf(max))
            return bad(w, "must be an integer >= %g", min);
        return bad(w, "must be an integer in [%g, %g]", min, max);
    }
    *out = v->integer;
    return 0;
}

/* Each setter checks one field's value and stores it. */
typedef int (*setter_t)(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w);

static int set_ops(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    if (want(w, v, MPISCOPE__JV_ARRAY))
        return MPISCOPE_EINVAL;
    if (v->count == 0 || v->count > MPISCOPE__PLAN_MAX_OPS)
        return bad(w, "must list 1 to %d operations", MPISCOPE__PLAN_MAX_OPS);
    p->n_ops = 0;
    for (const mpiscope__jv_t *item = v->first; item; item = item->next) {
        w->index = p->n_ops;
        if (want(w, item, MPISCOPE__JV_STRING))
            return MPISCOPE_EINVAL;
        p->op_handles[p->n_ops] = mpiscope_op_find(item->string);
        if (!p->op_handles[p->n_ops])
            return bad(w, "unknown operation '%s'", item->string);
        p->ops[p->n_ops++] = item->string;
    }
    return 0;
}

static int set_methods(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    if (want(w, v, MPISCOPE__JV_ARRAY))
        return MPISCOPE_EINVAL;
    if (v->count == 0 || v->count > MPISCOPE__PLAN_MAX_METHODS)
        return bad(w, "must list 1 to %d methods", MPISCOPE__PLAN_MAX_METHODS);
    p->n_methods = 0;
    for (const mpiscope__jv_t *item = v->first; item; item = item->next) {
        w->index = p->n_methods;
        if (want(w, item, MPISCOPE__JV_STRING))
            return MPISCOPE_EINVAL;
        p->method_handles[p->n_methods] = mpiscope_method_find(item->string);
        if (!p->method_handles[p->n_methods])
            return bad(w, "unknown method '%s'", item->string);
        p->methods[p->n_methods++] = item->string;
    }
    return 0;
}

/* sizes and nprocs: integers in the field's range. */
static int set_counts(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    int is_nprocs = strcmp(f->name, "nprocs") == 0, n = 0;
    if (want(w, v, MPISCOPE__JV_ARRAY))
        return MPISCOPE_EINVAL;
    if (v->count == 0 || v->count > MPISCOPE__PLAN_MAX_VALUES)
        return bad(w, "must list 1 to %d values", MPISCOPE__PLAN_MAX_VALUES);
    for (const mpiscope__jv_t *item = v->first; item; item = item->next, n++) {
        unsigned long long x;
        w->index = n;
        if (integer_in(w, item, f->min, f->max, &x))
            return MPISCOPE_EINVAL;
        if (is_nprocs)
            p->nprocs[n] = (int)x;
        else
            p->sizes[n] = (size_t)x;
    }
    *(is_nprocs ? &p->n_nprocs : &p->n_sizes) = n;
    return 0;
}

static const char *const cache_modes[][2] = {
    {"cold", "rotate buffers over a region larger than the last-level cache: every launch starts cold"},
    {"warm", "one buffer pair for every launch: data stays in cache"},
};

const char *mpiscope__cache_mode_at(size_t index, const char **description)
{
    if (index >= sizeof cache_modes / sizeof *cache_modes)
        return NULL;
    *description = cache_modes[index][1];
    return cache_modes[index][0];
}

static int set_cache(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    if (want(w, v, MPISCOPE__JV_ARRAY))
        return MPISCOPE_EINVAL;
    if (v->count == 0 || v->count > 2)
        return bad(w, "must list 1 or 2 cache modes");
    p->n_caches = 0;
    for (const mpiscope__jv_t *item = v->first; item; item = item->next) {
        w->index = p->n_caches;
        if (want(w, item, MPISCOPE__JV_STRING))
            return MPISCOPE_EINVAL;
        if (strcmp(item->string, "cold") != 0 && strcmp(item->string, "warm") != 0)
            return bad(w, "must be cold or warm, not '%s'", item->string);
        p->caches[p->n_caches++] = strcmp(item->string, "cold") == 0;
    }
    p->params.cache_cold = p->caches[0];
    return 0;
}

/* Map values are text; numbers and booleans are written as the text the
 * op would have been given on a command line. */
static int map_text(mpiscope__jv_t *item, where_t *w)
{
    char text[64];
    if (item->type == MPISCOPE__JV_STRING)
        return 0;
    if (item->type == MPISCOPE__JV_NUMBER && item->is_integer)
        snprintf(text, sizeof text, "%s%llu", item->negative ? "-" : "", item->integer);
    else if (item->type == MPISCOPE__JV_NUMBER)
        snprintf(text, sizeof text, "%.17g", item->number);
    else if (item->type == MPISCOPE__JV_BOOL)
        snprintf(text, sizeof text, "%d", item->boolean);
    else
        return bad(w, "must be a string, a number or a boolean, not %s", mpiscope__jv_type_name(item->type));
    item->string = malloc(strlen(text) + 1);
    if (!item->string)
        return bad(w, "out of memory");
    strcpy(item->string, text);
    return 0;
}

static int set_map(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    int meta = strcmp(f->name, "meta") == 0;
    int max = meta ? MPISCOPE__PLAN_MAX_META : MPISCOPE__PLAN_MAX_OPTS, n = 0;
    const char **keys = meta ? p->meta_keys : p->opt_names, **values = meta ? p->meta_values : p->opt_values;
    if (want(w, v, MPISCOPE__JV_OBJECT))
        return MPISCOPE_EINVAL;
    if (v->count > (size_t)max)
        return bad(w, "at most %d entries", max);
    for (mpiscope__jv_t *item = v->first; item; item = item->next, n++) {
        w->key = item->key;
        if (!item->key[0])
            return bad(w, "empty name");
        if (map_text(item, w))
            return MPISCOPE_EINVAL;
        keys[n] = item->key;
        values[n] = item->string;
    }
    w->key = NULL;
    *(meta ? &p->n_meta : &p->n_opts) = n;
    return 0;
}

const char *const mpiscope__floor_modes[] = {"report", "subtract", NULL};

static int set_string(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    if (want(w, v, MPISCOPE__JV_STRING))
        return MPISCOPE_EINVAL;
    const char *s = v->string;
    if (f->choices) {
        int i = 0;
        while (f->choices[i] && strcmp(s, f->choices[i]) != 0)
            i++;
        if (!f->choices[i] && !(!s[0] && strcmp(f->default_text, "\"\"") == 0)) {
            char list[128] = "";
            for (int k = 0; f->choices[k]; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", f->choices[k]);
            return bad(w, "'%s' is not one of: %s", s, list);
        }
        if (strcmp(f->name, "floor") == 0)
            p->floor = (mpiscope__floor_mode_t)i;
        else if (strcmp(f->name, "thread_level") == 0)
            p->thread_level = s;
        else
            p->startup = s;
        return 0;
    }
    if (strcmp(f->name, "out") == 0) {
        if (!s[0])
            return bad(w, "must not be empty");
        p->out = s;
    } else if (strcmp(f->name, "dtype") == 0) {
        MPI_Datatype t;
        size_t bytes;
        if (mpiscope__dtype_parse(s, &t, &bytes, NULL))
            return bad(w, "unknown element type '%s'", s);
        p->dtype = s;
    } else {
        MPI_Op op;
        if (mpiscope__reduce_op_parse(s, &op, NULL))
            return bad(w, "unknown reduction '%s'", s);
        p->reduce_op = s;
    }
    return 0;
}

/* An injected clock transform (mpiscope/timer.h): checked here for rank 0,
 * so a bad spec fails the plan, not the run. */
static int set_clock_transform(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v,
                               where_t *w)
{
    if (want(w, v, MPISCOPE__JV_STRING))
        return MPISCOPE_EINVAL;
    char why[160];
    mpiscope_clock_transform_t tf;
    if (strlen(v->string) >= sizeof p->params.sync.clock_transform)
        return bad(w, "longer than %zu characters", sizeof p->params.sync.clock_transform - 1);
    if (mpiscope_clock_transform_parse(v->string, 0, &tf, why, sizeof why))
        return bad(w, "%s", why);
    snprintf(p->params.sync.clock_transform, sizeof p->params.sync.clock_transform, "%s", v->string);
    return 0;
}

/* The string form "late:1:50", or the object {"kind": "late", "rank": 1, "us": 50}. */
static int set_arrival(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    if (v->type == MPISCOPE__JV_OBJECT) {
        char why[160];
        if (mpiscope__arrival_from_object(v, &p->arrival, &w->key, why, sizeof why))
            return bad(w, "%s", why);
        return 0;
    }
    if (v->type != MPISCOPE__JV_STRING)
        return bad(w, "must be a string or an object, not %s", mpiscope__jv_type_name(v->type));
    if (mpiscope__arrival_parse(v->string, &p->arrival))
        return bad(w, "'%s' is not %s (US at most 1e7)", v->string, mpiscope__arrival_grammar);
    return 0;
}

static int set_scalar(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    unsigned long long x;
    if (strcmp(f->name, "root") == 0) {
        if (integer_in(w, v, f->min, f->max, &x))
            return MPISCOPE_EINVAL;
        p->root = (int)x;
    } else if (strcmp(f->name, "shuffle") == 0) {
        if (integer_in(w, v, f->min, f->max, &x))
            return MPISCOPE_EINVAL;
        p->shuffle_seed = x;
    } else if (strcmp(f->name, "ranks") == 0) {
        if (integer_in(w, v, f->min, f->max, &x))
            return MPISCOPE_EINVAL;
        p->ranks = (int)x;
    } else {
        if (want(w, v, MPISCOPE__JV_NUMBER))
            return MPISCOPE_EINVAL;
        if (!(v->number >= f->min && v->number <= f->max))
            return bad(w, "must be a number in [%g, %g]", f->min, f->max);
        p->drift_seconds = v->number;
    }
    return 0;
}

int *mpiscope__plan_bool(mpiscope__plan_t *p, const char *name)
{
    static const struct {
        const char *name;
        size_t at;
    } flags[] = {
        {"force", offsetof(mpiscope__plan_t, force)},
        {"raw", offsetof(mpiscope__plan_t, raw)},
        {"validate", offsetof(mpiscope__plan_t, validate)},
        {"resync", offsetof(mpiscope__plan_t, resync)},
        {"oversubscribed", offsetof(mpiscope__plan_t, oversubscribed)},
        {"progress", offsetof(mpiscope__plan_t, progress)},
        {"firstcall", offsetof(mpiscope__plan_t, firstcall)},
        {"check", offsetof(mpiscope__plan_t, check)},
        {"ledger", offsetof(mpiscope__plan_t, ledger)},
    };
    for (size_t i = 0; name && i < sizeof flags / sizeof *flags; i++)
        if (strcmp(flags[i].name, name) == 0)
            return (int *)(void *)((char *)p + flags[i].at);
    return NULL;
}

static int set_bool(mpiscope__plan_t *p, const mpiscope__plan_field_t *f, const mpiscope__jv_t *v, where_t *w)
{
    if (want(w, v, MPISCOPE__JV_BOOL))
        return MPISCOPE_EINVAL;
    *mpiscope__plan_bool(p, f->name) = v->boolean;
    return 0;
}

typedef struct field_entry {
    mpiscope__plan_field_t field;
    setter_t set;
} field_entry_t;

#define F(nm, k, ty, dflt, un, lo, hi, fn, hlp)                                                                        \
    {{.name = nm, .kind = k, .type = ty, .default_text = dflt, .unit = un, .min = lo, .max = hi, .help = hlp}, fn}
#define CHOICES(nm, list, dflt, fn, hlp)                                                                               \
    {{.name = nm,                                                                                                      \
      .kind = MPISCOPE__FIELD_STRING,                                                                                  \
      .type = "choice",                                                                                                \
      .default_text = dflt,                                                                                            \
      .unit = "",                                                                                                      \
      .help = hlp,                                                                                                     \
      .choices = list},                                                                                                \
     fn}
static const char *const thread_levels[] = {"single", "funneled", "serialized", "multiple", NULL};
static const char *const startups[] = {"init", "init_thread", "session", NULL};
static const field_entry_t fields[] = {
    F("ops", MPISCOPE__FIELD_LIST, "array of operation names", NULL, "", 0, 0, set_ops,
      "the operations to measure (required unless check)"),
    F("sizes", MPISCOPE__FIELD_LIST, "array of integers", "[1024]", "bytes", 0, 1e15, set_counts,
      "message sizes (ops that use a size)"),
    F("nprocs", MPISCOPE__FIELD_LIST, "array of integers", NULL, "ranks", 1, 1 << 30, set_counts,
      "vary the number of processes instead of the size (the first size is used)"),
    F("methods", MPISCOPE__FIELD_LIST, "array of method names", "[\"window\"]", "", 0, 0, set_methods,
      "timing methods, interleaved per point (flag --method)"),
    F("cache", MPISCOPE__FIELD_LIST, "array of cache modes", "[\"cold\"]", "", 0, 0, set_cache,
      "cache modes, interleaved per point"),
    F("root", MPISCOPE__FIELD_INTEGER, "integer", "0", "rank", 0, 1 << 30, set_scalar,
      "root rank of the ops that have one"),
    F("dtype", MPISCOPE__FIELD_STRING, "element type", "\"double\"", "", 0, 0, set_string,
      "element type of reductions (element_types)"),
    F("reduce_op", MPISCOPE__FIELD_STRING, "reduction", "\"sum\"", "", 0, 0, set_string,
      "reduction of reductions (reductions)"),
    F("op_options", MPISCOPE__FIELD_MAP, "object of name: value", "{}", "", 0, 0, set_map,
      "op-specific options (each op's options; flag --op-option NAME=VALUE)"),
    F("arrival", MPISCOPE__FIELD_STRING, "arrival pattern", "\"none\"", "", 0, 0, set_arrival,
      "when each rank starts after the schedule (scheduled methods only)"),
    F("clock_transform", MPISCOPE__FIELD_STRING, "clock transform", "\"\"", "", 0, 0, set_clock_transform,
      "inject a per-rank clock offset (ns), drift (ppm) and jitter (ns) to test clock sync: "
      "SELECTOR:KEY=VALUE,...;... with SELECTOR all, N, N-M or random (seed=S)"),
    F("shuffle", MPISCOPE__FIELD_INTEGER, "integer", "0", "", 0, 9007199254740991.0, set_scalar,
      "seed of a shuffled point order (0: plan order)"),
    F("ranks", MPISCOPE__FIELD_INTEGER, "integer", "0", "ranks", 0, INT_MAX, set_scalar,
      "the ranks the launcher was asked to start (0: any): a run with another number stops at "
      "once, on every rank (srun without PMI starts one MPI job per task)"),
    F("drift_seconds", MPISCOPE__FIELD_NUMBER, "number", "2", "s", 0, 1e6, set_scalar,
      "check: wait before measuring the clock drift"),
    F("meta", MPISCOPE__FIELD_MAP, "object of name: value", "{}", "", 0, 0, set_map,
      "environment entries of the result document (flag --meta KEY=VALUE)"),
    F("out", MPISCOPE__FIELD_STRING, "string", NULL, "path", 0, 0, set_string,
      "the result document to write (required)"),
    CHOICES("thread_level", thread_levels, "\"\"", set_string,
            "the MPI thread level to ask for: single, funneled, serialized or multiple (MPI_Init_thread); "
            "\"\": multiple when an op calls MPI from threads, else MPI_Init. The level granted is in "
            "the result (environment.thread_level) and an op that needs more refuses the point"),
    CHOICES("startup", startups, "\"\"", set_string,
            "measure how MPI starts instead (mpiscope startup): init (MPI_Init), init_thread "
            "(MPI_Init_thread at thread_level), session (MPI_Session_init, a group from mpi://WORLD, "
            "MPI_Comm_create_from_group); then each rank's first and second round trip to every peer"),
    F("force", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool, "overwrite an existing result"),
    F("raw", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool, "keep every launch's raw times"),
    F("validate", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool,
      "check every received buffer (timings then not comparable)"),
    F("resync", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool,
      "synchronize the clocks again before every point"),
    F("oversubscribed", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool,
      "more ranks than cores (recorded, warned)"),
    F("progress", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool,
      "print a progress line per point on stdout"),
    F("firstcall", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool,
      "measure the first call against the second instead"),
    F("check", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool, "run the machine check instead"),
    CHOICES("floor", mpiscope__floor_modes, "\"report\"", set_string,
            "the measurement floor (WaitPatternNull's median, measured first): report it, or "
            "subtract it from every launch time (intervals then include its own)"),
    F("ledger", MPISCOPE__FIELD_BOOL, "boolean", "false", "", 0, 0, set_bool,
      "after each window point, its bias-ledger companions: window warm, barrier-each warm and "
      "back-to-back warm, with per-launch series (mpiscope explain)"),
};
#undef F
#undef CHOICES
enum { FIELD_COUNT = sizeof fields / sizeof *fields };

/* The measurement parameters follow the plan's own fields. */
size_t mpiscope__plan_field_count(void)
{
    return FIELD_COUNT + mpiscope__param_count();
}

static int same_name(const char *given, const char *name)
{
    for (; *given && *name; given++, name++)
        if (*given != *name && !(*given == '-' && *name == '_'))
            return 0;
    return *given == *name;
}

const mpiscope__plan_field_t *mpiscope__plan_field_at(size_t index)
{
    static mpiscope__plan_field_t param_fields[64];
    if (index < FIELD_COUNT)
        return &fields[index].field;
    const mpiscope__param_t *d = mpiscope__param_at(index - FIELD_COUNT);
    if (!d || index - FIELD_COUNT >= sizeof param_fields / sizeof *param_fields)
        return NULL;
    mpiscope__plan_field_t *f = &param_fields[index - FIELD_COUNT];
    *f = (mpiscope__plan_field_t){
        .name = d->name, .kind = MPISCOPE__FIELD_PARAM, .unit = d->unit, .min = d->min, .max = d->max, .help = d->help};
    return f;
}

const mpiscope__plan_field_t *mpiscope__plan_field_find(const char *name)
{
    for (size_t i = 0; i < mpiscope__plan_field_count(); i++)
        if (same_name(name, mpiscope__plan_field_at(i)->name))
            return mpiscope__plan_field_at(i);
    return NULL;
}

void mpiscope__plan_default(mpiscope__plan_t *p)
{
    memset(p, 0, sizeof *p);
    mpiscope_params_default(&p->params);
    p->sizes[0] = 1024;
    p->n_sizes = 1;
    p->methods[0] = "window";
    p->method_handles[0] = mpiscope_method_find(NULL);
    p->n_methods = 1;
    p->caches[0] = 1;
    p->n_caches = 1;
    p->arrival = (mpiscope__arrival_t){.kind = MPISCOPE__ARRIVAL_NONE, .seed = 1, .text = "none"};
    p->drift_seconds = 2;
}

static int set_param(mpiscope__plan_t *p, const mpiscope__param_t *d, const mpiscope__jv_t *v, where_t *w)
{
    char why[160];
    if (d->type == MPISCOPE__PARAM_CHOICE) {
        if (want(w, v, MPISCOPE__JV_STRING))
            return MPISCOPE_EINVAL;
        return mpiscope__param_set_choice(d, &p->params, v->string, why, sizeof why) ? bad(w, "%s", why) : 0;
    }
    if (want(w, v, MPISCOPE__JV_NUMBER))
        return MPISCOPE_EINVAL;
    return mpiscope__param_set(d, &p->params, v->number, why, sizeof why) ? bad(w, "%s", why) : 0;
}

static int set_field(mpiscope__plan_t *p, const mpiscope__jv_t *member, char *err, size_t err_size)
{
    where_t w = {.field = member->key, .index = -1, .err = err, .err_size = err_size};
    for (size_t i = 0; i < FIELD_COUNT; i++)
        if (strcmp(fields[i].field.name, member->key) == 0)
            return fields[i].set(p, &fields[i].field, member, &w);
    const mpiscope__param_t *d = mpiscope__param_find(member->key);
    if (d && strcmp(d->name, member->key) == 0)
        return set_param(p, d, member, &w);
    return bad(&w, "unknown field");
}

/* "'bxor' does not apply to element type 'double' (it takes integer, byte)" */
static int reduction_refused(const where_t *w, const char *reduce_op, const char *dtype)
{
    char kinds[80] = "";
    const char *canonical = NULL, *name, *kind;
    MPI_Op op;
    mpiscope__reduce_op_parse(reduce_op, &op, &canonical);
    for (size_t i = 0; canonical && (name = mpiscope__reduce_op_at(i)); i++)
        for (size_t k = 0; strcasecmp(name, canonical + 4) == 0 && (kind = mpiscope__reduce_op_kind_at(i, k)); k++)
            snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k ? ", " : "", kind);
    return bad(w, "'%s' does not apply to element type '%s' (it takes %s)", reduce_op, dtype, kinds);
}

/* What no single field says. */
static int check_whole(mpiscope__plan_t *p, int gave_max_launches, char *err, size_t err_size)
{
    where_t w = {.index = -1, .err = err, .err_size = err_size};
    if (p->n_ops == 0 && !p->check && !(p->startup && p->startup[0]))
        return w.field = "ops", bad(&w, "required (unless check is true or startup is set)");
    if (p->startup && p->startup[0] && (p->check || p->firstcall || p->n_ops))
        return w.field = "startup", bad(&w, "measures the start alone: no ops, check or firstcall with it");
    if (!p->out)
        return w.field = "out", bad(&w, "required");
    const char *dtype = p->dtype ? p->dtype : "double", *reduce_op = p->reduce_op ? p->reduce_op : "sum";
    for (int i = 0; i < p->n_ops; i++)
        if ((p->op_handles[i]->flags & MPISCOPE_OP_USES_REDUCTION) && !mpiscope__reduce_op_allows(reduce_op, dtype))
            return w.field = "reduce_op", reduction_refused(&w, reduce_op, dtype);
    if (p->params.stop_rule == MPISCOPE_STOP_COUNT && !gave_max_launches && p->params.max_launches == 1000)
        p->params.max_launches = 100; /* the seed's count rule: 100 launches in all */
    if (mpiscope_params_check(&p->params) != 0) {
        snprintf(err, err_size, "plan: the measurement parameters are inconsistent");
        return MPISCOPE_EINVAL;
    }
    return 0;
}

int mpiscope__plan_from_json(mpiscope__plan_t *p, mpiscope__jv_t *doc, char *err, size_t err_size)
{
    p->doc = doc;
    if (!doc || doc->type != MPISCOPE__JV_OBJECT) {
        snprintf(err, err_size, "a plan is a JSON object");
        return MPISCOPE_EINVAL;
    }
    for (const mpiscope__jv_t *m = doc->first; m; m = m->next) {
        int rc = set_field(p, m, err, err_size);
        if (rc)
            return rc;
    }
    return check_whole(p, mpiscope__jv_get(doc, "max_launches") != NULL, err, err_size);
}

int mpiscope__plan_read_file(mpiscope__plan_t *p, const char *path, char *err, size_t err_size)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open the plan", path);
        return MPISCOPE_EIO;
    }
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            char *grown = realloc(text, cap = 2 * (len + n));
            if (!grown) {
                free(text);
                if (f != stdin)
                    fclose(f);
                return MPISCOPE_ENOMEM;
            }
            text = grown;
        }
        memcpy(text + len, chunk, n);
        len += n;
    }
    if (f != stdin)
        fclose(f);
    mpiscope__jv_t *doc;
    char why[200];
    int rc = mpiscope__json_parse(text ? text : "", len, &doc, why, sizeof why);
    free(text);
    if (rc) {
        snprintf(err, err_size, "%s: %s", path, why);
        return rc;
    }
    return mpiscope__plan_from_json(p, doc, err, err_size);
}

void mpiscope__plan_free(mpiscope__plan_t *p)
{
    mpiscope__jv_free(p->doc);
    p->doc = NULL;
}
