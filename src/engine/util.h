/* util.h (internal): small helpers shared by the engine's files. */
#ifndef MPISCOPE_UTIL_H
#define MPISCOPE_UTIL_H

/* qsort comparator for doubles, ascending. */
int mpiscope__cmp_double(const void *a, const void *b);

#endif
