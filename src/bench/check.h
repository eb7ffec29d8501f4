/* check.h: can this machine be trusted? Every timer and clock
 * synchronisation measured, for `mpiscope check`. */
#ifndef MPISCOPE_BENCH_CHECK_H
#define MPISCOPE_BENCH_CHECK_H

#include "options.h"

/* Measure, then write the document with its "check" section. */
int bench_check(const bench_options_t *o);

#endif
