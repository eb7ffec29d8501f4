/* point_json.h (internal): one measurement point as a JSON object. */
#ifndef MPISCOPE_POINT_JSON_H
#define MPISCOPE_POINT_JSON_H

#include "context.h"
#include "json.h"

/* Writes the point object (statistics, window bookkeeping, per-rank times
 * and, if the context keeps them, raw launches) into j. Rank 0 only. */
void mpiscope__point_json(const mpiscope_context_t *ctx, const mpiscope_op_t *op, const mpiscope_point_spec_t *spec,
                          const mpiscope_point_result_t *point, int oversubscribed, mpiscope__json_t *j);

#endif
