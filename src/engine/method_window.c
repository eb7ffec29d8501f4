/* method_window.c: the synchronized-window method (MPIPerf): launch l of a
 * stage starts at tau + l * delta on the global clock on every rank. */
#include "mpiscope/error.h"
#include "method.h"
#include "opctx.h"

/* The next launch's buffers (and expected data, when validating) are
 * prepared in the current slot, right after its launch: the window must
 * hold them, and `done` says when the rank was through. */
static int run_stage(mpiscope__stage_env_t *env, const mpiscope__stage_msg_t *m, double *start, double *end,
                     double *done, double *slot)
{
    unsigned k = (unsigned)m->k;
    int err = 0;
    mpiscope__prepare_launch(env);
    for (unsigned l = 0; l < k; l++) {
        slot[l] = m->tau_ns + l * m->delta_ns;
        mpiscope__spin_until_global(env, slot[l] + env->arrival_ns);
        err |= mpiscope__timed_launch(env, &start[l], &end[l], &done[l]);
        if (l + 1 < k) {
            mpiscope__prepare_launch(env);
            done[l] = mpiscope__global_now(env);
        }
    }
    /* The stage's own messages (its verdict, the gather of its times) wait
     * for the end of the last slot, as every launch waits for its own: a
     * rank through with the last launch would send them while the others
     * still receive it (SMPI, 64 ranks, an 8-byte Bcast: the last launch of
     * every stage read 5.8 ns more than the others, all alike). */
    mpiscope__spin_until_global(env, m->tau_ns + k * m->delta_ns + env->arrival_ns);
    return err ? MPISCOPE_EMPI : 0;
}

static void plan(mpiscope__method_state_t *st, mpiscope__stage_msg_t *m)
{
    m->k = ((mpiscope__window_t *)st->data)->plan.k;
    m->delta_ns = ((mpiscope__window_t *)st->data)->plan.delta_ns;
}

static int judge(mpiscope__method_state_t *st, const mpiscope__stage_msg_t *m, const double *start, const double *end,
                 const double *done, const double *slot, double elapsed_ns)
{
    (void)slot;
    return mpiscope__window_feed(st->data, m->tau_ns, start, end, done, elapsed_ns);
}

static int state_create(mpiscope__method_state_t *st, int nprocs)
{
    mpiscope__window_t *w;
    int err = mpiscope__window_create(st->params, st->samples, st->arrival_ns, &w);
    st->data = err ? NULL : w;
    return err;
}

static void state_free(mpiscope__method_state_t *st)
{
    mpiscope__window_destroy(st->data);
    st->data = NULL;
}

static void result(const mpiscope__method_state_t *st, mpiscope_point_result_t *r)
{
    mpiscope__window_result(st->data, r);
}

static const char *const parameters[] = {"k_init", "k", "gamma", "window_min_ns", "window_ns", "invalid_threshold",
                                         NULL};

const mpiscope__method_t mpiscope__method_window = {
    .name = "window",
    .description = "synchronized windows (MPIPerf): every launch starts at the same global moment",
    .scheduled = 1,
    .parameters = parameters,
    .state_create = state_create,
    .state_free = state_free,
    .result = result,
    .run_stage = run_stage,
    .plan = plan,
    .judge = judge,
};
