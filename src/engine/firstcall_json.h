/* firstcall_json.h (internal): a first-call point encoded as JSON, for the
 * result document and for tests on synthetic measurements. */
#ifndef MPISCOPE_FIRSTCALL_JSON_H
#define MPISCOPE_FIRSTCALL_JSON_H

#include "mpiscope/firstcall.h"
#include "json.h"

/* The point of "kind": "firstcall" of fc->ops[index]. */
void mpiscope__firstcall_point_json(const mpiscope_firstcall_t *fc, size_t index, mpiscope__json_t *j);

#endif
