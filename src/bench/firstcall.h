/* firstcall.h: first call vs second call of each operation (late
 * initialisation, MPIPerf's Table 1). */
#ifndef MPISCOPE_BENCH_FIRSTCALL_H
#define MPISCOPE_BENCH_FIRSTCALL_H

#include "options.h"

/* Measure, then write the document; returns 0 or an MPISCOPE_E* code. */
int bench_firstcall(const bench_options_t *o, const mpiscope_op_t *const *ops);

#endif
