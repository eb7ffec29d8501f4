/* util.h (internal): small helpers shared by the engine's files. */
#ifndef MPISCOPE_UTIL_H
#define MPISCOPE_UTIL_H

/* qsort comparator for doubles, ascending. */
int mpiscope__cmp_double(const void *a, const void *b);

/* The largest |v[i]|, 0 for n == 0. */
double mpiscope__max_abs(const double *v, int n);

#endif
