/* result_internal.h (internal): adding pre-encoded JSON to a result
 * document, for the engine's own kinds of points (firstcall_json.c) and
 * sections (check_json.c). Rank 0 writes; other ranks' calls do nothing. */
#ifndef MPISCOPE_RESULT_INTERNAL_H
#define MPISCOPE_RESULT_INTERNAL_H

#include <stddef.h>
#include "mpiscope/result.h"
#include "json.h"

/* Append one encoded JSON object to "points" and rewrite the file.
 * Collective, like mpiscope_result_add_point(). */
int mpiscope__result_add_raw_point(mpiscope_result_t *res, const char *json_object);

/* The JSON object of a point as mpiscope_result_add_point() writes it, from
 * the context's last point (rank 0; other ranks' j is left empty). */
void mpiscope__result_point_json(const mpiscope_result_t *res, const mpiscope_op_t *op,
                                 const mpiscope_point_spec_t *spec, const mpiscope_point_result_t *point,
                                 mpiscope__json_t *j);

/* Add a top-level member "key": json_value (written with the document).
 * MPISCOPE_EINVAL for a key already added (or more than 8 sections). */
int mpiscope__result_set_section(mpiscope_result_t *res, const char *key, const char *json_value);

/* Add the member "key", or replace its value if it is there: for a section
 * written again as it grows (the machine check, part by part). */
int mpiscope__result_update_section(mpiscope_result_t *res, const char *key, const char *json_value);

/* Write the document as it stands, status "running": what is measured so
 * far survives a run stopped before mpiscope_result_close(). Collective. */
int mpiscope__result_write(mpiscope_result_t *res);

/* Whether this rank writes the document (rank 0 of the context). */
int mpiscope__result_is_writer(const mpiscope_result_t *res);

/* Why the last write failed ("rank 0 could not write PATH: No space left
 * on device"), on every rank; "" when none did. Owned by res. */
const char *mpiscope__result_error(const mpiscope_result_t *res);

/* mpiscope_result_close() that also says why it failed (into why, "" when
 * it did not or did not know). */
int mpiscope__result_close(mpiscope_result_t *res, int failed, char *why, size_t why_size);

#endif
