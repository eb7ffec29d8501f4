/* pairs.h (internal to src/ops): the `pairs` option of the point-to-point
 * and one-sided ops: "A-B[,C-D...]" (each rank in one pair at most) or
 * "all" (rank i with rank i + n/2 for i < n/2; with odd n the last rank
 * idles). A rank in no pair idles: its launches do nothing. */
#ifndef MPISCOPE_OPS_PAIRS_H
#define MPISCOPE_OPS_PAIRS_H

#include "mpiscope/op.h"

/* This rank's partner: *peer (-1: idle) and *first (1: the first rank of
 * its pair, the one that starts). MPISCOPE_EINVAL for a bad list. */
int mpiscope__pairs_peer(const mpiscope_op_ctx_t *ctx, int *peer, int *first);

#endif
