/* descriptor.c: what applies to any operation descriptor, built-in or not. */
#include "mpiscope/op.h"

void mpiscope_op_free(const mpiscope_op_t *op)
{
    if (op && op->free)
        op->free(op);
}
