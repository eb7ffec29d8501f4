/* describe.h (internal): the engine's description of itself, one JSON
 * document built from its tables (`mpiscope-bench --describe`). */
#ifndef MPISCOPE_DESCRIBE_INTERNAL_H
#define MPISCOPE_DESCRIBE_INTERNAL_H

#include "json.h"

#define MPISCOPE_DESCRIBE_VERSION "1.0"

/* Write the document into j (docs/plan-format.md lists its sections). */
void mpiscope__describe(mpiscope__json_t *j);

#endif
