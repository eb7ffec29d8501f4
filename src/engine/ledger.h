/* ledger.h (internal): the bias ledger's companions of a point (ledger.c). */
#ifndef MPISCOPE_LEDGER_H
#define MPISCOPE_LEDGER_H

#include "mpiscope/measure.h"
#include "json.h"
#include "samples.h"

/* 1 when a point measured with `spec` gets companions: a window point of
 * an op that is not ground truth, not validated. */
int mpiscope__ledger_applies(const mpiscope_op_t *op, const mpiscope_point_spec_t *spec);

/* "series": each valid launch's max over ranks, mean over ranks and the
 * root's own time (net of the floor), and which were first in a stage. */
void mpiscope__ledger_series_json(const mpiscope__samples_t *s, int root, mpiscope__json_t *j);

/* Collective over the context, right after `point` was measured with
 * `spec` (ctx->last still holds its launches): the ledger object
 * {"main": ..., "warm": ..., "barrier_each": ..., "loop": ...} into j on
 * rank 0 (other ranks' j stays an empty object). 0 or an MPISCOPE_E* code. */
int mpiscope__ledger_measure(mpiscope_context_t *ctx, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                             const mpiscope_point_result_t *point, mpiscope__json_t *j);

#endif
