/* check.h: always-on assertions for the C unit tests; each prints both values. */
#ifndef MPISCOPE_TEST_CHECK_H
#define MPISCOPE_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                                   \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                                             \
    do {                                                                                                               \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                                          \
        if (va_ != vb_) {                                                                                              \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, va_, vb_);           \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_NEAR(a, b, tol)                                                                                          \
    do {                                                                                                               \
        double va_ = (a), vb_ = (b);                                                                                   \
        if (!(fabs(va_ - vb_) <= (tol) * fmax(1.0, fabs(vb_)))) {                                                      \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.17g vs %.17g (tol %g)\n", __FILE__, __LINE__, #a, #b, va_, vb_,  \
                    (double)(tol));                                                                                    \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_DONE()                                                                                                   \
    do {                                                                                                               \
        if (check_failures) {                                                                                          \
            fprintf(stderr, "%d check(s) failed\n", check_failures);                                                   \
            return 1;                                                                                                  \
        }                                                                                                              \
        return 0;                                                                                                      \
    } while (0)

#endif
