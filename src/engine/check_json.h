/* check_json.h (internal): the machine check encoded as JSON, for the
 * result document and for tests on synthetic checks (no MPI needed). */
#ifndef MPISCOPE_CHECK_JSON_H
#define MPISCOPE_CHECK_JSON_H

#include "mpiscope/check.h"
#include "json.h"

/* The value of the document's "check" member: {"timers": [...], "sync": [...]}. */
void mpiscope__check_json(const mpiscope_check_t *check, mpiscope__json_t *j);

#endif
