/* registry.c: the one list of built-in operations. Adding an operation:
 * its own file, one line here, and its test. */
#include "common.h"

#include <ctype.h>

/* X(name): the descriptor mpiscope__op_<name>, in listing order. */
#define MPISCOPE_BUILTIN_OPS(X)                                                                \
    X(barrier)                                                                                 \
    X(bcast)                                                                                   \
    X(gather)                                                                                  \
    X(gatherv)                                                                                 \
    X(scatter)                                                                                 \
    X(scatterv)                                                                                \
    X(allgather)                                                                               \
    X(allgatherv)                                                                              \
    X(alltoall)                                                                                \
    X(alltoallv)                                                                               \
    X(alltoallw)                                                                               \
    X(reduce)                                                                                  \
    X(allreduce)                                                                               \
    X(reduce_scatter)                                                                          \
    X(reduce_scatter_block)                                                                    \
    X(scan)                                                                                    \
    X(exscan)                                                                                  \
    X(waitpattern_up)                                                                          \
    X(waitpattern_down)                                                                        \
    X(waitpattern_null)

#define MPISCOPE_X_DECLARE(name) extern const mpiscope_op_t mpiscope__op_##name;
MPISCOPE_BUILTIN_OPS(MPISCOPE_X_DECLARE)
#undef MPISCOPE_X_DECLARE

static const mpiscope_op_t *const builtin_ops[] = {
#define MPISCOPE_X_ADDRESS(name) &mpiscope__op_##name,
    MPISCOPE_BUILTIN_OPS(MPISCOPE_X_ADDRESS)
#undef MPISCOPE_X_ADDRESS
};

size_t mpiscope_op_count(void)
{
    return sizeof builtin_ops / sizeof *builtin_ops;
}

const mpiscope_op_t *mpiscope_op_at(size_t index)
{
    return index < mpiscope_op_count() ? builtin_ops[index] : NULL;
}

/* Names are lower case with '_'; users may type any case and '-'. */
static int normalized(char c)
{
    return c == '-' ? '_' : tolower((unsigned char)c);
}

static int is_named(const mpiscope_op_t *op, const char *given)
{
    const char *name = op->name;

    while (*given && normalized(*given) == *name) {
        given++;
        name++;
    }
    return *given == '\0' && *name == '\0';
}

const mpiscope_op_t *mpiscope_op_find(const char *name)
{
    for (size_t i = 0; name && i < mpiscope_op_count(); i++)
        if (is_named(builtin_ops[i], name))
            return builtin_ops[i];
    return NULL;
}
