/* method.h (internal): timing methods. Every method runs in stages: rank 0
 * plans a stage and broadcasts it, every rank runs its part (run_stage:
 * the launches, timed on the global clock), rank 0 gathers the times and
 * judges them (what is valid, what the samples are, whether to stop).
 * Stage 0 (k_init launches) is discarded by every method. */
#ifndef MPISCOPE_METHOD_H
#define MPISCOPE_METHOD_H

#include <mpi.h>
#include "mpiscope/measure.h"
#include "samples.h"
#include "sync_math.h"
#include "window.h"

/* Launches in one stage at most: rank 0 gathers every rank's times of a
 * stage, so a method whose natural unit is longer (a bcast-supinski cycle
 * is n-1 launches) spreads it over stages instead of gathering n x n. */
enum { MPISCOPE__STAGE_KMAX = 64 };

/* What rank 0 broadcasts at the start of every stage (doubles only: one
 * MPI_Bcast of sizeof / sizeof(double) of them). */
typedef struct mpiscope__stage_msg {
    double tau_ns;   /* global time of the stage's first launch (scheduled methods) */
    double delta_ns; /* window: slot length */
    double k;        /* launches in the stage, 1..MPISCOPE__STAGE_KMAX */
    double stop;     /* 1: the point is done */
    double first;    /* bcast-supinski: the place in its cycle of the stage's first launch */
} mpiscope__stage_msg_t;

/* Validation bookkeeping of one rank for one point. */
typedef struct mpiscope__validation {
    int enabled;
    size_t checked, failed;
} mpiscope__validation_t;

/* What one rank needs to run a stage. */
typedef struct mpiscope__stage_env {
    const mpiscope_op_t *op;
    mpiscope_op_ctx_t *op_ctx;
    MPI_Comm comm;
    int rank, nprocs, root;
    mpiscope__clock_model_t clock; /* this rank's clock: global = mpiscope__model_global(&clock, local) */
    double arrival_ns;             /* this rank's planned start delay (scheduled methods) */
    double gap_ns;                 /* idle time before a launch (params.gap_ns) */
    double lead_ns;                /* time a small collective decision needs (t_bcast) */
    size_t launch;                 /* launches made so far in this point */
    mpiscope__validation_t *validation;
    /* parts timed by the op: after each timed launch its ctx->part_ns go to
     * stage_parts[stage_launch * n_parts], stage_launch counting the
     * stage's timed launches (run_point gathers them after the stage) */
    double *stage_parts; /* [MPISCOPE__STAGE_KMAX * n_parts], NULL without parts */
    size_t n_parts, stage_launch;
} mpiscope__stage_env_t;

/* Rank 0's state for one point. */
typedef struct mpiscope__method_state {
    const mpiscope_params_t *params;
    mpiscope__samples_t *samples;
    unsigned stage; /* stages judged so far */
    int root;
    const double *arrival_ns; /* [nprocs] planned start delays, or NULL */
    void *data;               /* the method's own (state_create/state_free) */
} mpiscope__method_state_t;

/* A timing method: a const descriptor like an op (mpiscope/op.h), listed
 * once in methods.c. Adding one: its own file, one registry line, its test. */
typedef struct mpiscope_method {
    const char *name;
    const char *description;       /* one line */
    int scheduled;                 /* launches start at planned global times (arrival patterns apply) */
    unsigned op_flags;             /* measures the ops having all these MPISCOPE_OP_* flags (0: every op) */
    int min_nprocs;                /* needs at least this many ranks (0: any) */
    const char *const *parameters; /* the plan parameters it reads (param_table.h), NULL-terminated */
    /* rank 0, optional: the method's own state in st->data (st->samples is
     * ready); 0 or an MPISCOPE_E* code */
    int (*state_create)(mpiscope__method_state_t *st, int nprocs);
    /* rank 0, optional: free st->data (also after a failed state_create) */
    void (*state_free)(mpiscope__method_state_t *st);
    /* every rank, collective, optional: before the first stage (st is rank
     * 0's, NULL elsewhere); the same code on every rank */
    int (*prepare)(mpiscope__stage_env_t *env, mpiscope__method_state_t *st);
    /* optional: the most launches one stage of a point may have (a cold
     * point gets a buffer slot for each); NULL: the larger of k_init and k */
    size_t (*stage_most)(const mpiscope_params_t *p, int nprocs);
    /* rank 0, optional: the window_* fields of the point's result (the
     * document has a window section only for methods with this hook) */
    void (*result)(const mpiscope__method_state_t *st, mpiscope_point_result_t *r);
    /* every rank: run m->k launches, fill start/end (global clock), done
     * (when the rank was through with the launch, its check included) and,
     * for scheduled methods, slot (the planned start of each launch) */
    int (*run_stage)(mpiscope__stage_env_t *env, const mpiscope__stage_msg_t *m, double *start, double *end,
                     double *done, double *slot);
    /* rank 0: the next stage's k (and delta) */
    void (*plan)(mpiscope__method_state_t *st, mpiscope__stage_msg_t *m);
    /* rank 0: judge a finished stage (times [rank * k + l]); 1 when done */
    int (*judge)(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *start, const double *end,
                 const double *done, const double *slot, double elapsed_ns);
} mpiscope__method_t;

/* The method named `name` (NULL: window), or NULL if unknown. */
const mpiscope__method_t *mpiscope__method_find(const char *name);

/* 1 if the method can measure op on nprocs ranks (0: any number). */
int mpiscope__method_fits(const mpiscope__method_t *m, const mpiscope_op_t *op, int nprocs);

/* Shared by the stage loops. Before a launch, and before any wait for its
 * start: its buffers, and the expected data when validating (filling a
 * buffer takes longer than a late start may). */
void mpiscope__prepare_launch(mpiscope__stage_env_t *env);

/* One timed launch (checked after it when validating); start, end and
 * done (through with the check) on the global clock. */
int mpiscope__timed_launch(mpiscope__stage_env_t *env, double *start, double *end, double *done);

/* After a launch timed by the method itself: check what it received;
 * returns the global time when done. */
double mpiscope__check_launch(mpiscope__stage_env_t *env);

/* The global time now. */
double mpiscope__global_now(const mpiscope__stage_env_t *env);

/* Busy-wait until the global time t_ns. */
void mpiscope__spin_until_global(const mpiscope__stage_env_t *env, double t_ns);

/* One-way latency of a small message from every rank to `root`: half the
 * minimum round trip of a few ping-pongs (collective; ack_ns [nprocs]
 * written on every rank). */
int mpiscope__ack_latencies(MPI_Comm comm, int root, double *ack_ns);

#endif
