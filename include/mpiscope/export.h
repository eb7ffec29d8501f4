/* mpiscope/export.h: marks the public symbols of libmpiscope.
 * The library is built with hidden visibility: only MPISCOPE_API symbols
 * are exported; internal cross-file functions are named mpiscope__*. */
#ifndef MPISCOPE_EXPORT_H
#define MPISCOPE_EXPORT_H
#if defined(__GNUC__)
#define MPISCOPE_API __attribute__((visibility("default")))
#else
#define MPISCOPE_API
#endif
#endif
