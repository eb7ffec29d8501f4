/* method_supinski.c: the Bcast-specific method of de Supinski and Karonis
 * (1999), which needs no global clock: the root broadcasts, one chosen
 * rank answers with an acknowledgment, and the root's time from the
 * broadcast to the acknowledgment, minus the acknowledgment's one-way
 * latency, is how long the broadcast took to reach that rank. A cycle
 * visits every non-root rank; its sample is the maximum over them. A stage
 * holds whole cycles while they fit in MPISCOPE__STAGE_KMAX launches, and
 * a part of one cycle beyond 65 ranks (rank 0 gathers every rank's times
 * of a stage: a whole cycle would be n x (n-1) of them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "method.h"
#include "opctx.h"
#include "timer_read.h"

enum { ACK_TAG = 7412, PINGS = 20 };

int mpiscope__ack_latencies(MPI_Comm comm, int root, double *ack_ns)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    char byte = 0;
    for (int peer = 0; peer < n; peer++) {
        if (peer == root)
            continue;
        double best = INFINITY;
        for (int i = 0; i < PINGS; i++) {
            if (rank == root) {
                double t0 = mpiscope__now_ns();
                MPI_Send(&byte, 1, MPI_CHAR, peer, ACK_TAG, comm);
                MPI_Recv(&byte, 1, MPI_CHAR, peer, ACK_TAG, comm, MPI_STATUS_IGNORE);
                best = fmin(best, mpiscope__now_ns() - t0);
            } else if (rank == peer) {
                MPI_Recv(&byte, 1, MPI_CHAR, root, ACK_TAG, comm, MPI_STATUS_IGNORE);
                MPI_Send(&byte, 1, MPI_CHAR, root, ACK_TAG, comm);
            }
        }
        if (rank == root)
            ack_ns[peer] = best / 2;
    }
    if (rank == root)
        ack_ns[root] = 0;
    MPI_Bcast(ack_ns, n, MPI_DOUBLE, root, comm); /* rank 0 judges, the root measured */
    return 0;
}

/* Rank 0's state (st->data): double[nprocs + 2], every rank's
 * acknowledgment latency, then where the next stage starts in the cycle
 * and the cycle's maximum so far. */
typedef struct supinski {
    double *ack_ns, *next, *cycle_max_ns;
} supinski_t;

static supinski_t state_of(const mpiscope__method_state_t *st)
{
    double *d = st->data;
    int n = st->samples->nprocs;
    return (supinski_t){.ack_ns = d, .next = d + n, .cycle_max_ns = d + n + 1};
}

/* The rank that acknowledges the l-th launch of a cycle: the non-root ranks in turn. */
static int target_of(unsigned l, int root, int n)
{
    int t = (int)(l % (unsigned)(n - 1));
    return t >= root ? t + 1 : t;
}

static int run_stage(mpiscope__stage_env_t *env, const mpiscope__stage_msg_t *m, double *start, double *end,
                     double *done, double *slot)
{
    unsigned k = (unsigned)m->k;
    char ack = 1;
    int err = 0;
    for (unsigned l = 0; l < k; l++) {
        int target = target_of((unsigned)m->first + l, env->root, env->nprocs);
        slot[l] = NAN;
        mpiscope__prepare_launch(env);
        MPI_Barrier(env->comm);
        double t0 = mpiscope__now_ns();
        env->op_ctx->launch_start_ns = t0;
        err |= env->op->execute(env->op_ctx);
        if (env->rank == env->root)
            MPI_Recv(&ack, 1, MPI_CHAR, target, ACK_TAG, env->comm, MPI_STATUS_IGNORE);
        else if (env->rank == target)
            MPI_Send(&ack, 1, MPI_CHAR, env->root, ACK_TAG, env->comm);
        double t1 = mpiscope__now_ns();
        start[l] = mpiscope__model_global(&env->clock, t0);
        end[l] = mpiscope__model_global(&env->clock, t1);
        done[l] = mpiscope__check_launch(env);
    }
    return err ? MPISCOPE_EMPI : 0;
}

/* Launches of a stage that wants `want`: whole cycles over the `leaves`
 * non-root ranks while one fits in a stage, else `want` of the cycle, up
 * to its end (`left` launches away). */
static unsigned stage_k(unsigned want, unsigned leaves, unsigned left)
{
    unsigned cycles = (want + leaves - 1) / leaves;
    if (cycles * leaves > MPISCOPE__STAGE_KMAX)
        cycles = MPISCOPE__STAGE_KMAX / leaves;
    return cycles ? cycles * leaves : (want < left ? want : left);
}

/* Stage 0 wants k_init launches (k when k_init is 0, like the loops). */
static unsigned wanted(const mpiscope_params_t *p, unsigned stage)
{
    return stage == 0 && p->k_init ? p->k_init : p->k;
}

/* Stage 0 is discarded: the first measured cycle starts at its beginning. */
static void plan(mpiscope__method_state_t *st, mpiscope__stage_msg_t *m)
{
    supinski_t s = state_of(st);
    unsigned leaves = (unsigned)st->samples->nprocs - 1;
    m->k = stage_k(wanted(st->params, st->stage), leaves, leaves - (unsigned)*s.next);
    m->first = *s.next;
    m->delta_ns = 0;
}

/* A cold point's buffer slots: the longer of stage 0 and the others. */
static size_t stage_most(const mpiscope_params_t *p, int nprocs)
{
    unsigned leaves = (unsigned)nprocs - 1, first = stage_k(wanted(p, 0), leaves, leaves),
             later = stage_k(wanted(p, 1), leaves, leaves);
    return first > later ? first : later;
}

static int judge(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *start, const double *end,
                 const double *done, const double *slot, double elapsed_ns)
{
    supinski_t s = state_of(st);
    unsigned k = (unsigned)m->k, leaves = (unsigned)st->samples->nprocs - 1, first = (unsigned)m->first;
    size_t root = (size_t)st->root;
    if (st->stage++ == 0) {
        *s.next = 0;
        *s.cycle_max_ns = 0;
    } else {
        for (unsigned l = 0; l < k; l++) {
            mpiscope__launch_t launch = {.start_ns = start + l,
                                         .end_ns = end + l,
                                         .stride = k,
                                         .in_stage = l,
                                         .slot_ns = NAN,
                                         .flags = 0,
                                         .launch = st->samples->stage_first_launch + l};
            mpiscope__samples_add_launch(st->samples, &launch);
            int target = target_of(first + l, st->root, st->samples->nprocs);
            double reach = end[root * k + l] - start[root * k + l] - s.ack_ns[target];
            *s.cycle_max_ns = fmax(*s.cycle_max_ns, reach);
            if ((first + l + 1) % leaves == 0) {
                mpiscope__samples_add_sample(st->samples, *s.cycle_max_ns);
                *s.cycle_max_ns = 0;
            }
        }
        *s.next = (first + k) % leaves;
    }
    return mpiscope__samples_stop(st->samples, elapsed_ns) != MPISCOPE_STOPPED_NOT && st->stage > 1;
}

static int state_create(mpiscope__method_state_t *st, int nprocs)
{
    st->data = calloc((size_t)nprocs + 2, sizeof(double));
    return st->data ? 0 : MPISCOPE_ENOMEM;
}

static void state_free(mpiscope__method_state_t *st)
{
    free(st->data);
    st->data = NULL;
}

static int prepare(mpiscope__stage_env_t *env, mpiscope__method_state_t *st)
{
    double *ack = calloc((size_t)env->nprocs, sizeof *ack);
    int err = ack ? 0 : MPISCOPE_ENOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, env->comm);
    if (!err)
        err = mpiscope__ack_latencies(env->comm, env->root, ack);
    if (!err && st)
        memcpy(st->data, ack, (size_t)env->nprocs * sizeof *ack);
    free(ack);
    return err;
}

static const char *const parameters[] = {"k_init", "k", NULL};

const mpiscope__method_t mpiscope__method_bcast_supinski = {
    .name = "bcast-supinski",
    .description = "Bcast only (de Supinski & Karonis): root-to-rank acknowledgments, no global clock",
    .op_flags = MPISCOPE_OP_BROADCAST,
    .min_nprocs = 2,
    .parameters = parameters,
    .state_create = state_create,
    .state_free = state_free,
    .prepare = prepare,
    .stage_most = stage_most,
    .run_stage = run_stage,
    .plan = plan,
    .judge = judge,
};
