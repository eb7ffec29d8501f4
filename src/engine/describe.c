/* describe.c: ops, methods, timers, sync algorithms, element types,
 * reductions, cache modes, stop rules, arrival patterns and plan
 * parameters, from the tables that define them. */
#include <math.h>
#include <stdio.h>
#include "describe.h"
#include "mpiscope/alltoall.h"
#include "mpiscope/version.h"
#include "method.h"
#include "opctx.h"
#include "param_table.h"
#include "plan_spec.h"

static const struct {
    unsigned bit;
    const char *name;
} op_flags[] = {
    {MPISCOPE_OP_USES_SIZE, "size"},
    {MPISCOPE_OP_USES_ROOT, "root"},
    {MPISCOPE_OP_USES_REDUCTION, "reduction"},
    {MPISCOPE_OP_GROUND_TRUTH, "ground_truth"},
    {MPISCOPE_OP_SYNCHRONIZING, "synchronizing"},
    {MPISCOPE_OP_BROADCAST, "broadcast"},
    {MPISCOPE_OP_BANDWIDTH, "bandwidth"},
    {MPISCOPE_OP_PAIRS, "pairs"},
    {MPISCOPE_OP_THREADS, "threads"},
    {MPISCOPE_OP_FILES, "files"},
    {MPISCOPE_OP_LARGE_COUNT, "large_count"},
};

static void bound(mpiscope__json_t *j, const char *key, double v)
{
    if (isinf(v))
        mpiscope__json_raw(j, key, "null");
    else
        mpiscope__json_number(j, key, v);
}

static void op_option(mpiscope__json_t *j, const mpiscope_op_option_t *o)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "name", o->name);
    mpiscope__json_string(j, "type", o->type ? o->type : "text");
    mpiscope__json_string(j, "default", o->default_value);
    mpiscope__json_string(j, "unit", o->unit);
    mpiscope__json_raw(j, "min", "null");
    mpiscope__json_raw(j, "max", "null");
    if (o->choices) {
        mpiscope__json_array(j, "choices");
        for (const char *const *c = o->choices; *c; c++)
            mpiscope__json_string(j, NULL, *c);
        mpiscope__json_end(j);
    } else {
        mpiscope__json_raw(j, "choices", "null");
    }
    mpiscope__json_string(j, "help", o->description);
    mpiscope__json_end(j);
}

static void ops(mpiscope__json_t *j)
{
    mpiscope__json_array(j, "ops");
    for (size_t i = 0; i < mpiscope_op_count(); i++) {
        const mpiscope_op_t *op = mpiscope_op_at(i);
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", op->name);
        mpiscope__json_string(j, "description", op->description);
        mpiscope__json_string(j, "size_meaning", op->size_meaning);
        mpiscope__json_array(j, "flags");
        for (size_t f = 0; f < sizeof op_flags / sizeof *op_flags; f++)
            if (op->flags & op_flags[f].bit)
                mpiscope__json_string(j, NULL, op_flags[f].name);
        mpiscope__json_end(j);
        mpiscope__json_bool(j, "bandwidth", (op->flags & MPISCOPE_OP_BANDWIDTH) != 0);
        mpiscope__json_array(j, "options");
        for (const mpiscope_op_option_t *o = op->options; o && o->name; o++)
            op_option(j, o);
        mpiscope__json_end(j);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

/* The Alltoall lab's algorithms and the ops that measure them. */
static void alltoall_algorithms(mpiscope__json_t *j)
{
    mpiscope__json_array(j, "alltoall_algorithms");
    for (size_t i = 0; i < mpiscope_alltoall_algorithm_count(); i++) {
        const mpiscope_alltoall_algorithm_t *a = mpiscope_alltoall_algorithm_at(i);
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", a->name);
        mpiscope__json_string(j, "op", a->op_name);
        mpiscope__json_string(j, "description", a->description);
        mpiscope__json_bool(j, "leader_based", a->leader_based);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

/* A measurement parameter in the shape of an op option. */
static void param(mpiscope__json_t *j, const mpiscope__param_t *d, const mpiscope_params_t *defaults)
{
    static const char *const types[] = {"integer", "number", "choice"};
    double v = mpiscope__param_get(d, defaults);
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "name", d->name);
    mpiscope__json_string(j, "type", types[d->type]);
    if (d->type == MPISCOPE__PARAM_CHOICE) {
        mpiscope__json_string(j, "default", d->choice_name((unsigned)v));
        mpiscope__json_string(j, "unit", d->unit);
        mpiscope__json_raw(j, "min", "null");
        mpiscope__json_raw(j, "max", "null");
        mpiscope__json_array(j, "choices");
        for (unsigned c = 0; d->choice_name(c); c++)
            mpiscope__json_string(j, NULL, d->choice_name(c));
        mpiscope__json_end(j);
    } else {
        mpiscope__json_number(j, "default", v);
        mpiscope__json_string(j, "unit", d->unit);
        bound(j, "min", d->min);
        bound(j, "max", d->max);
        mpiscope__json_raw(j, "choices", "null");
        mpiscope__json_bool(j, "min_exclusive", d->min_open);
        mpiscope__json_bool(j, "max_exclusive", d->max_open);
        if (d->power_of_two)
            mpiscope__json_bool(j, "power_of_two", 1);
    }
    mpiscope__json_string(j, "help", d->help);
    mpiscope__json_end(j);
}

static void applies_to(mpiscope__json_t *j, const mpiscope__method_t *m)
{
    if (!m->op_flags) {
        mpiscope__json_string(j, "applies_to", "all");
        return;
    }
    mpiscope__json_array(j, "applies_to");
    for (size_t i = 0; i < mpiscope_op_count(); i++)
        if (mpiscope__method_fits(m, mpiscope_op_at(i), 0))
            mpiscope__json_string(j, NULL, mpiscope_op_at(i)->name);
    mpiscope__json_end(j);
}

static void methods(mpiscope__json_t *j, const mpiscope_params_t *defaults)
{
    mpiscope__json_array(j, "methods");
    for (size_t i = 0; i < mpiscope_method_count(); i++) {
        const mpiscope__method_t *m = mpiscope_method_at(i);
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", m->name);
        mpiscope__json_string(j, "description", m->description);
        mpiscope__json_bool(j, "scheduled", m->scheduled);
        applies_to(j, m);
        mpiscope__json_integer(j, "min_nprocs", m->min_nprocs > 1 ? m->min_nprocs : 1);
        mpiscope__json_array(j, "parameters");
        for (const char *const *name = m->parameters; name && *name; name++)
            param(j, mpiscope__param_find(*name), defaults);
        mpiscope__json_end(j);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

/* A CHOICE parameter's names and their lines: timers, sync, stop rules. */
static void choices(mpiscope__json_t *j, const char *key, const char *param_name)
{
    const mpiscope__param_t *d = mpiscope__param_find(param_name);
    mpiscope__json_array(j, key);
    for (unsigned c = 0; d->choice_name(c); c++) {
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", d->choice_name(c));
        mpiscope__json_string(j, "description", d->choice_help(c));
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

static void types_and_reductions(mpiscope__json_t *j)
{
    size_t bytes;
    const char *name;
    mpiscope__json_array(j, "element_types");
    for (size_t i = 0; (name = mpiscope__dtype_at(i, &bytes)); i++) {
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", name);
        mpiscope__json_integer(j, "size_bytes", (long long)bytes);
        mpiscope__json_string(j, "kind", mpiscope__dtype_kind_name_at(i));
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    mpiscope__json_array(j, "reductions");
    for (size_t i = 0; (name = mpiscope__reduce_op_at(i)); i++) {
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", name);
        mpiscope__json_array(j, "kinds"); /* the element kinds it takes */
        const char *kind;
        for (size_t k = 0; (kind = mpiscope__reduce_op_kind_at(i, k)); k++)
            mpiscope__json_string(j, NULL, kind);
        mpiscope__json_end(j);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

static void cache_and_arrival(mpiscope__json_t *j)
{
    const char *name, *description;
    mpiscope__json_array(j, "cache");
    for (size_t i = 0; (name = mpiscope__cache_mode_at(i, &description)); i++) {
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", name);
        mpiscope__json_string(j, "description", description);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    mpiscope__json_object(j, "arrival");
    mpiscope__json_string(j, "grammar", mpiscope__arrival_grammar);
    mpiscope__json_array(j, "patterns");
    const mpiscope__arrival_pattern_t *a;
    for (size_t i = 0; (a = mpiscope__arrival_pattern_at(i)); i++) {
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", a->name);
        mpiscope__json_string(j, "parameters", a->parameters);
        mpiscope__json_string(j, "description", a->description);
        mpiscope__json_array(j, "members"); /* of the object form, besides "kind" */
        for (const char *const *m = a->members; *m; m++)
            mpiscope__json_string(j, NULL, *m);
        mpiscope__json_end(j);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    mpiscope__json_end(j);
}

/* Every field of the plan: its own, then the measurement parameters. */
static void plan_parameters(mpiscope__json_t *j, const mpiscope_params_t *defaults)
{
    mpiscope__json_array(j, "plan_parameters");
    for (size_t i = 0; i < mpiscope__plan_field_count(); i++) {
        const mpiscope__plan_field_t *f = mpiscope__plan_field_at(i);
        if (f->kind == MPISCOPE__FIELD_PARAM) {
            param(j, mpiscope__param_find(f->name), defaults);
            continue;
        }
        int ranged = f->kind == MPISCOPE__FIELD_INTEGER || f->kind == MPISCOPE__FIELD_NUMBER
                     || (f->kind == MPISCOPE__FIELD_LIST && f->max > 0);
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", f->name);
        mpiscope__json_string(j, "type", f->type);
        mpiscope__json_raw(j, "default", f->default_text ? f->default_text : "null");
        mpiscope__json_string(j, "unit", f->unit);
        if (ranged) {
            bound(j, "min", f->min);
            bound(j, "max", f->max);
        } else {
            mpiscope__json_raw(j, "min", "null");
            mpiscope__json_raw(j, "max", "null");
        }
        if (f->choices) {
            mpiscope__json_array(j, "choices");
            for (const char *const *c = f->choices; *c; c++)
                mpiscope__json_string(j, NULL, *c);
            mpiscope__json_end(j);
        } else {
            mpiscope__json_raw(j, "choices", "null");
        }
        mpiscope__json_string(j, "help", f->help);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
}

void mpiscope__describe(mpiscope__json_t *j)
{
    mpiscope_params_t defaults;
    mpiscope_params_default(&defaults);
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "describe_version", MPISCOPE_DESCRIBE_VERSION);
    mpiscope__json_string(j, "mpiscope_version", MPISCOPE_VERSION_STRING);
    ops(j);
    alltoall_algorithms(j);
    methods(j, &defaults);
    choices(j, "timers", "timer");
    choices(j, "sync", "sync");
    types_and_reductions(j);
    cache_and_arrival(j);
    choices(j, "stop_rules", "stop");
    plan_parameters(j, &defaults);
    mpiscope__json_end(j);
}
