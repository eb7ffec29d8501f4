/* mpiscope/result.h: the result document (JSON, schema 1.x, see
 * docs/result-schema.md), written by rank 0 of a measurement context.
 *
 * The file on disk is a complete, valid document after every point, with
 * "status": "running" until mpiscope_result_close(). A point is appended
 * in place, by one write over the document's closing part (signals that
 * stop a run wait for it; a failed write puts the closing part back); the
 * whole document is written atomically (temporary file + rename) when
 * anything before the points changed, and at the end. A run that dies
 * keeps every point it finished. */
#ifndef MPISCOPE_RESULT_H
#define MPISCOPE_RESULT_H

#include "mpiscope/export.h"
#include "mpiscope/measure.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPISCOPE_SCHEMA_VERSION "1.13"

enum {
    MPISCOPE_RESULT_FORCE = 1u << 0, /* replace an existing file, once the new
                                        document holds a point (or completes) */
    MPISCOPE_RESULT_RAW = 1u << 1    /* keep every launch's per-rank start/end times */
};

typedef struct mpiscope_result mpiscope_result_t;

/* Collective over the context's communicator: gather the environment
 * (hosts, ranks per node, MPI library, CPU, compiler) and create the file
 * `path` on rank 0 (flags: MPISCOPE_RESULT_*). *out belongs to the caller
 * until mpiscope_result_close() frees it; the context must outlive it.
 * MPISCOPE_EEXIST if the file exists and FORCE is not given, MPISCOPE_EIO
 * if it cannot be written, MPISCOPE_ENOMEM; the same code on every rank. */
MPISCOPE_API int mpiscope_result_open(mpiscope_context_t *ctx, const char *path, unsigned flags,
                                      mpiscope_result_t **out);

/* Add a string to the environment block ("command_line", "launcher",
 * "mpi_implementation", or any other key; a key given again replaces its
 * value). Both strings are copied. Not collective; rank 0's calls count.
 * MPISCOPE_EINVAL (NULL, or more than 32 keys), MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_result_set_meta(mpiscope_result_t *res, const char *key, const char *value);

/* "size" (default) or "nprocs": which parameter the run varies (the
 * report's x axis). Not collective. MPISCOPE_EINVAL for another text. */
MPISCOPE_API int mpiscope_result_set_varied(mpiscope_result_t *res, const char *varied);

/* The timing methods the run uses (top-level "methods"; default: window). */
MPISCOPE_API int mpiscope_result_set_methods(mpiscope_result_t *res, const char *const *names, int n);

/* Mark every point added from now on as measured with more ranks than
 * cores. Not collective. */
MPISCOPE_API void mpiscope_result_set_oversubscribed(mpiscope_result_t *res, int oversubscribed);

/* Add a warning line to the document. Not collective; rank 0's count. */
MPISCOPE_API int mpiscope_result_warn(mpiscope_result_t *res, const char *text);

/* Append a point just measured with mpiscope_context_measure() on the same
 * context (spec and point as given to and filled by it; user-defined ops
 * are written like built-in ones, under op->name) to the file.
 * Collective over the context's communicator (call on every rank, also on
 * ranks outside the point's communicator): rank 0 writes, and its error is
 * returned on every rank, so that no rank goes on alone into the next
 * point. MPISCOPE_EIO (the file could not be written: the previous one, with
 * every earlier point, stays), MPISCOPE_ENOMEM. */
MPISCOPE_API int mpiscope_result_add_point(mpiscope_result_t *res, const mpiscope_op_t *op,
                                           const mpiscope_point_spec_t *spec, const mpiscope_point_result_t *point);

/* Collective: measure the clock residual again (drift over the run), write
 * the final document with status "complete" (failed == 0) or "failed",
 * and free `res` (also on error; do not use it afterwards). With
 * MPISCOPE_RESULT_FORCE, a failed run that added nothing leaves the file
 * that was there before. Returns rank 0's write error on every rank. */
MPISCOPE_API int mpiscope_result_close(mpiscope_result_t *res, int failed);

#ifdef __cplusplus
}
#endif
#endif
