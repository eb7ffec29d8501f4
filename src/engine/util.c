/* util.c: small helpers shared by the engine's files. */
#include "util.h"

int mpiscope__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
