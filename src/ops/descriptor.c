/* descriptor.c: what applies to any operation descriptor, built-in or not. */
#include "opctx.h"

#include <stdio.h>

void mpiscope_op_free(const mpiscope_op_t *op)
{
    if (op && op->free)
        op->free(op);
}

int mpiscope__op_usable(const mpiscope_op_t *op, char *why, size_t size)
{
    if (!op)
        return 0;
    if (op->abi != MPISCOPE_OP_ABI) {
        /* its name may be anywhere in a descriptor of another layout: not read */
        if (why && size)
            snprintf(why, size,
                     "an operation descriptor of layout %u, this libmpiscope reads layout %u "
                     "(MPISCOPE_OP_ABI): rebuild the op against this mpiscope/op.h",
                     op->abi, (unsigned)MPISCOPE_OP_ABI);
        return 0;
    }
    return op->initialize && op->execute;
}
