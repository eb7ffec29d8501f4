/* list_ops.c: the operation catalogue as JSON, from the descriptors. */
#include <stdio.h>
#include "list_ops.h"
#include "json.h"

static void write_flags(mpiscope__json_t *j, unsigned flags)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {MPISCOPE_OP_USES_SIZE, "size"},
        {MPISCOPE_OP_USES_ROOT, "root"},
        {MPISCOPE_OP_USES_REDUCTION, "reduction"},
        {MPISCOPE_OP_GROUND_TRUTH, "ground_truth"},
        {MPISCOPE_OP_SYNCHRONIZING, "synchronizing"},
    };
    mpiscope__json_array(j, "flags");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (flags & names[i].bit)
            mpiscope__json_string(j, NULL, names[i].name);
    mpiscope__json_end(j);
}

int bench_list_ops(FILE *out)
{
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_array(&j, NULL);
    for (size_t i = 0; i < mpiscope_op_count(); i++) {
        const mpiscope_op_t *op = mpiscope_op_at(i);
        mpiscope__json_object(&j, NULL);
        mpiscope__json_string(&j, "name", op->name);
        mpiscope__json_string(&j, "description", op->description);
        mpiscope__json_string(&j, "size_meaning", op->size_meaning);
        write_flags(&j, op->flags);
        mpiscope__json_array(&j, "options");
        for (const mpiscope_op_option_t *o = op->options; o && o->name; o++) {
            mpiscope__json_object(&j, NULL);
            mpiscope__json_string(&j, "name", o->name);
            mpiscope__json_string(&j, "default", o->default_value);
            mpiscope__json_string(&j, "unit", o->unit);
            mpiscope__json_string(&j, "description", o->description);
            mpiscope__json_end(&j);
        }
        mpiscope__json_end(&j);
        mpiscope__json_end(&j);
    }
    mpiscope__json_end(&j);
    int ok = !j.failed && fprintf(out, "%s\n", j.buf) > 0;
    mpiscope__json_free(&j);
    return ok ? 0 : 1;
}
