/* mpiscope/describe.h: the engine describes itself, as JSON written from
 * the tables that define it, so that front ends build their choices,
 * defaults and help from it instead of keeping lists of their own.
 * Not collective; callable before MPI_Init. */
#ifndef MPISCOPE_DESCRIBE_H
#define MPISCOPE_DESCRIBE_H

#include <stdio.h>
#include "mpiscope/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the description (`mpiscope-bench --describe`: every op with its
 * typed options, every method with the ops it applies to and its
 * parameters, timers, sync algorithms, element types, reductions, cache
 * modes, stop rules, the arrival grammar, and every plan parameter with
 * its default, range and unit; docs/plan-format.md) to `out` as one line
 * of JSON followed by a newline. `flags` must be 0. Returns 0,
 * MPISCOPE_EINVAL (out NULL, flags not 0), MPISCOPE_ENOMEM, or
 * MPISCOPE_EIO (the write failed). */
MPISCOPE_API int mpiscope_describe_write(FILE *out, unsigned flags);

/* Write the catalogue of built-in operations (`mpiscope-bench
 * --list-ops`, read by `mpiscope list-ops`): a JSON array of {name,
 * description, size_meaning, flags, options: [{name, default, unit,
 * description}]}, one line and a newline. `flags` must be 0. Returns as
 * mpiscope_describe_write(). */
MPISCOPE_API int mpiscope_op_catalogue_write(FILE *out, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
