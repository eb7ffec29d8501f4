/* describe_write.c: the engine's self-descriptions written to a stream
 * (mpiscope/describe.h): the whole description and the op catalogue. */
#include "mpiscope/describe.h"
#include "mpiscope/error.h"
#include "mpiscope/op.h"
#include "describe.h"

/* One line: the document, then a newline. */
static int emit(FILE *out, mpiscope__json_t *j)
{
    int err = j->failed ? MPISCOPE_ENOMEM : fprintf(out, "%s\n", j->buf) < 0 ? MPISCOPE_EIO : 0;
    mpiscope__json_free(j);
    return err;
}

int mpiscope_describe_write(FILE *out, unsigned flags)
{
    if (!out || flags != 0)
        return MPISCOPE_EINVAL;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__describe(&j);
    return emit(out, &j);
}

/* The catalogue's flag names: what an op uses or needs (the describe
 * document lists them all, with broadcast and bandwidth). */
static void write_flags(mpiscope__json_t *j, unsigned flags)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {MPISCOPE_OP_USES_SIZE, "size"},
        {MPISCOPE_OP_USES_ROOT, "root"},
        {MPISCOPE_OP_USES_REDUCTION, "reduction"},
        {MPISCOPE_OP_GROUND_TRUTH, "ground_truth"},
        {MPISCOPE_OP_SYNCHRONIZING, "synchronizing"},
        {MPISCOPE_OP_THREADS, "threads"},
        {MPISCOPE_OP_FILES, "files"},
        {MPISCOPE_OP_LARGE_COUNT, "large_count"},
    };
    mpiscope__json_array(j, "flags");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (flags & names[i].bit)
            mpiscope__json_string(j, NULL, names[i].name);
    mpiscope__json_end(j);
}

static void write_op(mpiscope__json_t *j, const mpiscope_op_t *op)
{
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "name", op->name);
    mpiscope__json_string(j, "description", op->description);
    mpiscope__json_string(j, "size_meaning", op->size_meaning);
    write_flags(j, op->flags);
    mpiscope__json_array(j, "options");
    for (const mpiscope_op_option_t *o = op->options; o && o->name; o++) {
        mpiscope__json_object(j, NULL);
        mpiscope__json_string(j, "name", o->name);
        mpiscope__json_string(j, "default", o->default_value);
        mpiscope__json_string(j, "unit", o->unit);
        mpiscope__json_string(j, "description", o->description);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    mpiscope__json_end(j);
}

int mpiscope_op_catalogue_write(FILE *out, unsigned flags)
{
    if (!out || flags != 0)
        return MPISCOPE_EINVAL;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_array(&j, NULL);
    for (size_t i = 0; i < mpiscope_op_count(); i++)
        write_op(&j, mpiscope_op_at(i));
    mpiscope__json_end(&j);
    return emit(out, &j);
}
