/* plan_spec.h (internal): the plan mpiscope-bench runs, read from one JSON
 * document (docs/plan-format.md) and validated field by field in one
 * place; the command-line flags are translated into that document. */
#ifndef MPISCOPE_PLAN_SPEC_H
#define MPISCOPE_PLAN_SPEC_H

#include <stddef.h>
#include "mpiscope/measure.h"
#include "mpiscope/plan.h"
#include "json_read.h"

enum {
    MPISCOPE__PLAN_MAX_OPS = 128,
    MPISCOPE__PLAN_MAX_VALUES = 1024,
    MPISCOPE__PLAN_MAX_META = 16,
    MPISCOPE__PLAN_MAX_OPTS = 16,
    MPISCOPE__PLAN_MAX_METHODS = 16
};

typedef enum mpiscope__arrival_kind {
    MPISCOPE__ARRIVAL_NONE = 0,
    MPISCOPE__ARRIVAL_LATE,
    MPISCOPE__ARRIVAL_LINEAR,
    MPISCOPE__ARRIVAL_RANDOM
} mpiscope__arrival_kind_t;

typedef struct mpiscope__arrival {
    mpiscope__arrival_kind_t kind;
    int rank;                /* late */
    double us;               /* delay, microseconds */
    unsigned long long seed; /* random */
    const char *text;        /* as given */
} mpiscope__arrival_t;

/* One arrival pattern of the grammar (listed by --describe). */
typedef struct mpiscope__arrival_pattern {
    const char *name, *parameters, *description;
    const char *members[3]; /* the object form's members besides "kind"; NULL-terminated */
} mpiscope__arrival_pattern_t;

extern const char mpiscope__arrival_grammar[];
const mpiscope__arrival_pattern_t *mpiscope__arrival_pattern_at(size_t index); /* NULL past the end */

/* "none" | "late:RANK:US" | "linear:US" | "random:US[:SEED]"; 0 or MPISCOPE_EINVAL. */
int mpiscope__arrival_parse(const char *text, mpiscope__arrival_t *out);

/* The object form {"kind": "late", "rank": 1, "us": 50}: 0, or
 * MPISCOPE_EINVAL with the member at fault in *where and why in `why`. */
int mpiscope__arrival_from_object(const mpiscope__jv_t *object, mpiscope__arrival_t *out, const char **where, char *why,
                                  size_t why_size);

/* xorshift64*: the next number of the sequence of *state (shuffles, random arrival). */
unsigned long long mpiscope__xorshift(unsigned long long *state);

/* Start delay of every rank (ns); MPISCOPE_ERANGE when late names a rank >= nprocs. */
int mpiscope__arrival_offsets(const mpiscope__arrival_t *a, int nprocs, double *offsets_ns);

/* What the floor (WaitPatternNull's median, measured first in every run)
 * does to the points: only reported, or subtracted from every launch time. */
typedef enum mpiscope__floor_mode { MPISCOPE__FLOOR_REPORT = 0, MPISCOPE__FLOOR_SUBTRACT } mpiscope__floor_mode_t;
extern const char *const mpiscope__floor_modes[]; /* "report", "subtract", NULL */

/* The public mpiscope_plan_t (mpiscope/plan.h) is this structure. */
typedef struct mpiscope_plan {
    mpiscope_params_t params;
    const char *ops[MPISCOPE__PLAN_MAX_OPS];
    const mpiscope_op_t *op_handles[MPISCOPE__PLAN_MAX_OPS]; /* ops[], looked up once */
    int n_ops;
    size_t sizes[MPISCOPE__PLAN_MAX_VALUES];
    int n_sizes;
    int nprocs[MPISCOPE__PLAN_MAX_VALUES]; /* varied number of processes, if given */
    int n_nprocs;
    int root;
    const char *dtype, *reduce_op;
    const char *methods[MPISCOPE__PLAN_MAX_METHODS];
    const mpiscope_method_t *method_handles[MPISCOPE__PLAN_MAX_METHODS]; /* methods[], looked up once */
    int n_methods;
    int caches[2]; /* cache modes: 1 cold, 0 warm */
    int n_caches;
    unsigned long long shuffle_seed; /* 0: plan order */
    int ranks;                       /* ranks the launcher was asked for (0: any) */
    mpiscope__arrival_t arrival;
    double drift_seconds; /* check: wait before measuring the drift */
    const char *opt_names[MPISCOPE__PLAN_MAX_OPTS], *opt_values[MPISCOPE__PLAN_MAX_OPTS];
    int n_opts; /* op-specific options */
    const char *meta_keys[MPISCOPE__PLAN_MAX_META], *meta_values[MPISCOPE__PLAN_MAX_META];
    int n_meta;
    const char *out;
    const char *thread_level; /* "" (the ops decide), "single" ... "multiple" */
    const char *startup;      /* "" or how MPI starts when the start is measured:
                                              "init", "init_thread", "session" */
    int force, raw, oversubscribed, progress, validate, resync, firstcall, check;
    int ledger; /* measure each window point's bias-ledger companions */
    mpiscope__floor_mode_t floor;
    mpiscope__jv_t *doc; /* the document the strings point into */
} mpiscope__plan_t;

/* The kinds of plan fields. */
typedef enum mpiscope__field_kind {
    MPISCOPE__FIELD_PARAM, /* a measurement parameter (param_table.h) */
    MPISCOPE__FIELD_INTEGER,
    MPISCOPE__FIELD_NUMBER,
    MPISCOPE__FIELD_BOOL,
    MPISCOPE__FIELD_STRING,
    MPISCOPE__FIELD_LIST, /* array of names or integers */
    MPISCOPE__FIELD_MAP   /* object of name: text */
} mpiscope__field_kind_t;

typedef struct mpiscope__plan_field {
    const char *name; /* "sizes"; its flag is --sizes ('_' -> '-') */
    mpiscope__field_kind_t kind;
    const char *type;         /* for --describe: "integer", "number", "boolean", "string",
                                     "choice", "array of integers", ... */
    const char *default_text; /* for --describe; NULL: none */
    const char *unit;
    double min, max; /* INTEGER, NUMBER, list of integers; max INFINITY: unbounded */
    const char *help;
    const char *const *choices; /* a string field with these values only (NULL-terminated), and ""
                                     where that is its default; or NULL */
} mpiscope__plan_field_t;

size_t mpiscope__plan_field_count(void);
const mpiscope__plan_field_t *mpiscope__plan_field_at(size_t index);
const mpiscope__plan_field_t *mpiscope__plan_field_find(const char *name); /* '-' matches '_' */

/* The cache modes ("cold", "warm") with one line each; NULL past the end. */
const char *mpiscope__cache_mode_at(size_t index, const char **description);

/* The defaults of every field. */
void mpiscope__plan_default(mpiscope__plan_t *plan);

/* Take a parsed plan document (the plan owns it from then on, also on
 * error): every field checked, then the whole plan. 0, or MPISCOPE_EINVAL
 * with "plan field 'sizes[2]': must be an integer >= 0" (or another one
 * line) in err. */
int mpiscope__plan_from_json(mpiscope__plan_t *plan, mpiscope__jv_t *doc, char *err, size_t err_size);

/* Read a plan file (path "-": stdin) into plan. Errors as above, the
 * parse errors prefixed with the path. */
int mpiscope__plan_read_file(mpiscope__plan_t *plan, const char *path, char *err, size_t err_size);

void mpiscope__plan_free(mpiscope__plan_t *plan);

/* The boolean field `name` of the plan ("force", "check"...), or NULL. */
int *mpiscope__plan_bool(mpiscope__plan_t *plan, const char *name);

/* Field texts (mpiscope_plan_from_fields()) as a JSON plan document in the
 * field table's order: 0 and *json (malloc'd, *len bytes), or
 * MPISCOPE_EINVAL / MPISCOPE_ENOMEM with one line in err. */
int mpiscope__plan_json_from_fields(const char *const *names, const char *const *values, size_t n, char **json,
                                    size_t *len, char *err, size_t err_size);

/* One point of a plan. */
typedef struct mpiscope__plan_point {
    const mpiscope_op_t *op;
    size_t size_bytes;
    int nprocs; /* 0: all ranks */
    const mpiscope_method_t *method;
    int cache_cold;
} mpiscope__plan_point_t;

/* Every op x value (size, or number of processes) x method x cache mode
 * (leaving out methods that do not apply to an op, e.g. bcast-supinski),
 * methods and cache modes interleaved innermost so that they are compared
 * under the same conditions; shuffled when plan->shuffle_seed is set. The
 * same on every rank. 0 and *points (the caller frees it), or
 * MPISCOPE_ENOMEM. */
int mpiscope__plan_points(const mpiscope__plan_t *plan, mpiscope__plan_point_t **points, size_t *count);

/* Run a plan (mpiscope_plan_run()): the "check" and "firstcall" forms. */
int mpiscope__plan_run_check(MPI_Comm comm, const mpiscope__plan_t *plan, char *err, size_t err_size);
int mpiscope__plan_run_firstcall(MPI_Comm comm, const mpiscope__plan_t *plan, char *err, size_t err_size);

#endif
