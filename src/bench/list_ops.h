/* list_ops.h: print the operation catalogue as JSON (mpiscope list-ops reads it). */
#ifndef MPISCOPE_BENCH_LIST_OPS_H
#define MPISCOPE_BENCH_LIST_OPS_H
#include <stdio.h>
#include "mpiscope/op.h"
int bench_list_ops(FILE *out);
#endif
