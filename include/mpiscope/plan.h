/* mpiscope/plan.h: a measurement plan (docs/plan-format.md), read from
 * one JSON document and validated field by field in one place, then run:
 * every point measured and the result document written. This is all
 * `mpiscope-bench` does.
 *
 *   mpiscope_plan_t *plan;
 *   char why[320];
 *   if (mpiscope_plan_read_file("plan.json", 0, &plan, why, sizeof why) == 0) {
 *       mpiscope_plan_run(MPI_COMM_WORLD, plan, NULL, NULL, why, sizeof why); // collective
 *       mpiscope_plan_free(plan);
 *   }
 */
#ifndef MPISCOPE_PLAN_H
#define MPISCOPE_PLAN_H

#include <stddef.h>
#include <mpi.h>
#include "mpiscope/export.h"
#include "mpiscope/measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A validated plan (opaque). Immutable once read; the same plan may be
 * run more than once. */
typedef struct mpiscope_plan mpiscope_plan_t;

/* Read the plan in text[0..len) (one JSON object, RFC 8259, read
 * strictly). flags must be 0. Not collective, needs no MPI. On success 0
 * and *out, which the caller frees with mpiscope_plan_free(). On error
 * *out is NULL and err holds one line ("plan field 'sizes[2]': must be an
 * integer in [0, 1e+15]", "line 1, column 28: expected a member name"):
 * MPISCOPE_EINVAL (bad JSON, a bad field, flags not 0, NULL text or out),
 * MPISCOPE_ENOMEM. err may be NULL (err_size 0). */
MPISCOPE_API int mpiscope_plan_from_json_text(const char *text, size_t len, unsigned flags, mpiscope_plan_t **out,
                                              char *err, size_t err_size);

/* The same from a file (path "-": standard input); parse errors are
 * prefixed with the path. Also MPISCOPE_EIO: the file cannot be opened. */
MPISCOPE_API int mpiscope_plan_read_file(const char *path, unsigned flags, mpiscope_plan_t **out, char *err,
                                         size_t err_size);

/* The same from field texts, as a command line gives them: names[i] is a
 * plan field ("target_rse"; '-' may stand for '_'), values[i] its text.
 * Lists are "a,b,c" (sizes and nprocs in bytes and ranks), numbers are
 * decimal text, a boolean field is true when given (value NULL or
 * "true"; "false" makes it false); "meta" and "op_options" take
 * "KEY=VALUE" and may be repeated (the last value of a key wins); any
 * other repeated field keeps its last value. The texts become the JSON
 * document the reader above checks, so both give the same plan. n_fields
 * may be 0 (then "out" is missing: EINVAL). Errors as above; a field name
 * that is not a plan field and a pair without '=' are MPISCOPE_EINVAL. */
MPISCOPE_API int mpiscope_plan_from_fields(const char *const *names, const char *const *values, size_t n_fields,
                                           unsigned flags, mpiscope_plan_t **out, char *err, size_t err_size);

/* A boolean field of the plan ("progress", "check", "force"...): 0 and
 * *value 0 or 1, or MPISCOPE_EINVAL for a NULL argument or a field that
 * is not a boolean. */
MPISCOPE_API int mpiscope_plan_get_bool(const mpiscope_plan_t *plan, const char *field, int *value);

/* How a program should start MPI for this plan (mpiscope-bench does it
 * before mpiscope_plan_run()): startup 1, the plan measures the start
 * itself: call mpiscope_startup_run() (mpiscope/startup.h) instead of
 * MPI_Init; else init_thread 1: MPI_Init_thread(level) (the plan's
 * "thread_level", or MPI_THREAD_MULTIPLE when one of its ops calls MPI
 * from threads, MPISCOPE_OP_THREADS), or init_thread 0: MPI_Init. Not
 * collective, needs no MPI. Returns 0, or MPISCOPE_EINVAL (NULL argument). */
typedef struct mpiscope_plan_start {
    int startup;
    int init_thread;
    int level; /* MPI_THREAD_* (init_thread, or the start measured with init_thread) */
} mpiscope_plan_start_t;
MPISCOPE_API int mpiscope_plan_start(const mpiscope_plan_t *plan, mpiscope_plan_start_t *out);

/* What mpiscope_plan_run() tells its callback after each measured point
 * (on every rank; the result is complete on every rank). Valid during the
 * call only. */
typedef struct mpiscope_plan_point_report {
    size_t index; /* 0-based, in the order measured */
    size_t total; /* points in the plan */
    const mpiscope_op_t *op;
    const mpiscope_method_t *method;
    size_t size_bytes;                     /* 0 for ops that take no size */
    int nprocs;                            /* ranks taking part */
    const mpiscope_point_result_t *result; /* result->validation_failures > 0: the
                                              run goes on, then returns MPISCOPE_EVALIDATE */
} mpiscope_plan_point_report_t;

typedef void (*mpiscope_plan_point_fn)(const mpiscope_plan_point_report_t *report, void *user);

/* Run the plan on comm and write its result document (plan field "out"):
 * collective over comm; call it after MPI_Init, on the same plan on every
 * rank. A plan with "check": the machine check (mpiscope/check.h); with
 * "firstcall": first against second call of its ops at its first size
 * (mpiscope/firstcall.h), first thing after MPI_Init; otherwise every op
 * x size (or nprocs) x method x cache point, methods and cache modes
 * interleaved innermost, methods that do not apply to an op left out,
 * shuffled with the "shuffle" seed. on_point (may be NULL) is called
 * after each point with user. Returns 0; MPISCOPE_EVALIDATE when a
 * validated point received wrong data (the document is complete and
 * written; err is empty: the callback saw which point); or the first
 * error, with one line in err (the same on every rank where it names no
 * rank-local cause) and the document removed or marked partial:
 * MPISCOPE_EINVAL (NULL plan), MPISCOPE_ERANGE ("nprocs" above the ranks
 * of comm, "late" arrival of a missing rank, a root out of range),
 * MPISCOPE_EEXIST (out exists without "force"), MPISCOPE_EIO,
 * MPISCOPE_ENOMEM, MPISCOPE_ENOTIMER, MPISCOPE_ENOTSUP, MPISCOPE_EMPI, or
 * any other code of mpiscope_context_measure(). */
MPISCOPE_API int mpiscope_plan_run(MPI_Comm comm, const mpiscope_plan_t *plan, mpiscope_plan_point_fn on_point,
                                   void *user, char *err, size_t err_size);

/* Check, without MPI, what only the number of ranks decides: that `plan`
 * can run on `nprocs` ranks (a clock transform's selectors name ranks below
 * nprocs). mpiscope_plan_run() checks the same with the ranks of its comm
 * before it measures. Not collective. Returns 0, or MPISCOPE_EINVAL with
 * one line in err (may be NULL). */
MPISCOPE_API int mpiscope_plan_check(const mpiscope_plan_t *plan, int nprocs, char *err, size_t err_size);

/* Free a plan (NULL: nothing). */
MPISCOPE_API void mpiscope_plan_free(mpiscope_plan_t *plan);

#ifdef __cplusplus
}
#endif

#endif
