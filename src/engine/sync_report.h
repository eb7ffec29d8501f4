/* sync_report.h (internal): what a synchronization achieved, for the check
 * and for result documents (the same figures in both). */
#ifndef MPISCOPE_SYNC_REPORT_H
#define MPISCOPE_SYNC_REPORT_H

#include "mpiscope/check.h"
#include "mpiscope/sync.h"
#include "json.h"

/* Rank 0: the accuracy fields of *out (exchanges, fitpoints, hops, nodes,
 * worst bounds, the drift fitted, and against an injected truth the worst
 * misses and whether every estimate is within its bound). */
void mpiscope__check_sync_accuracy(const mpiscope_clock_sync_t *sync, mpiscope_check_sync_t *out);

/* Rank 0: the model fields of an open "clock_sync" object: per-rank drift,
 * reference time, error bounds, hops, node residuals, and the injected
 * transform with its truth (docs/result-schema.md). */
void mpiscope__sync_json_fields(mpiscope__json_t *j, const mpiscope_clock_sync_t *sync,
                                const mpiscope_sync_params_t *params);

#endif
