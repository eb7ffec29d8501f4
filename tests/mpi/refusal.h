/* refusal.h: which ops must refuse their points on this MPI, for the
 * programs that run every op (ops_check.c, ops_validate.c). */
#ifndef MPISCOPE_TESTS_REFUSAL_H
#define MPISCOPE_TESTS_REFUSAL_H

#include "mpiscope/op.h"

/* An op that needs a part of MPI-4 this library lacks (CMake's feature
 * definitions) must refuse its points; where the library has it, never. */
static inline int refusal_expected(const mpiscope_op_t *op)
{
#ifndef MPISCOPE_HAVE_LARGE_COUNT
    if (op->flags & MPISCOPE_OP_LARGE_COUNT)
        return 1;
#endif
    (void)op;
    return 0;
}

#endif
