/* pairs.h (internal to src/ops): the `pairs` option of the point-to-point
 * and one-sided ops: "A-B[,C-D...]" (each rank in one pair at most) or
 * "all" (rank i with rank i + n/2 for i < n/2; with odd n the last rank
 * idles). A rank in no pair idles: its launches do nothing.
 *
 * The point-to-point ops also take a schedule of rounds, the lists of the
 * rounds separated by ';' ("0-1,2-3;0-2,1-3;0-3,1-2"): launch l of a point
 * runs round l mod R (R rounds), each rank with its partner of that round,
 * so a round-robin of disjoint pairs (`mpiscope health`'s link matrix)
 * is one point whose launches cycle through the rounds. */
#ifndef MPISCOPE_OPS_PAIRS_H
#define MPISCOPE_OPS_PAIRS_H

#include "mpiscope/op.h"

/* This rank's part in every round of the `pairs` option. */
typedef struct mpiscope__pairs {
    int rounds;           /* >= 1 */
    int *peer;            /* [rounds]: the partner, -1 when this rank idles in that round */
    unsigned char *first; /* [rounds]: 1 when this rank is the first of its pair (it starts) */
} mpiscope__pairs_t;

/* Parse the option (every round) for ctx->rank. MPISCOPE_EINVAL for a bad
 * list (the engine's error names the option), MPISCOPE_ENOMEM. */
int mpiscope__pairs_schedule(const mpiscope_op_ctx_t *ctx, mpiscope__pairs_t *pairs);

void mpiscope__pairs_free(mpiscope__pairs_t *pairs);

/* One round only: this rank's partner (*peer, -1: idle) and *first (1: the
 * first rank of its pair, the one that starts). MPISCOPE_EINVAL for a bad
 * list or a schedule of several rounds. */
int mpiscope__pairs_peer(const mpiscope_op_ctx_t *ctx, int *peer, int *first);

#endif
