/* mpiscope/error.h: one list of error codes for the whole library.
 *
 * Every mpiscope function that can fail returns int: 0 on success or a
 * negative MPISCOPE_E* code from this list. No errno, no abort(). */
#ifndef MPISCOPE_ERROR_H
#define MPISCOPE_ERROR_H

#include "mpiscope/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message): the single source of codes and their texts. */
#define MPISCOPE_ERRNO_MAP(X)                                                                                          \
    X(EINVAL, -1, "invalid argument")                                                                                  \
    X(ENOMEM, -2, "out of memory")                                                                                     \
    X(ENOOP, -3, "unknown operation")                                                                                  \
    X(ENOTIMER, -4, "timer not available or not trustworthy on this machine")                                          \
    X(EMPI, -5, "an MPI call failed")                                                                                  \
    X(EIO, -6, "cannot read or write a file")                                                                          \
    X(EEXIST, -7, "file exists (use --force to overwrite)")                                                            \
    X(ENOTSUP, -8, "not supported by this MPI library or machine")                                                     \
    X(ETIMEDOUT, -9, "time limit reached")                                                                             \
    X(ERANGE, -10, "value out of range")                                                                               \
    X(EVALIDATE, -11, "a received buffer did not hold the expected data")

enum {
#define MPISCOPE_X_ENUM(name, value, msg) MPISCOPE_##name = (value),
    MPISCOPE_ERRNO_MAP(MPISCOPE_X_ENUM)
#undef MPISCOPE_X_ENUM
        MPISCOPE_OK = 0
};

/* A static, human-readable text for an mpiscope error code (never NULL;
 * "unknown error" for a code not in the list). Not collective. */
MPISCOPE_API const char *mpiscope_strerror(int err);

/* The symbolic name of an error code ("MPISCOPE_EINVAL"), or "MPISCOPE_UNKNOWN". */
MPISCOPE_API const char *mpiscope_err_name(int err);

#ifdef __cplusplus
}
#endif
#endif
