/* methods.c: the registry of timing methods and what their stage loops share. */
#include <string.h>
#include "mpiscope/error.h"
#include "method.h"
#include "opctx.h"
#include "timer_read.h"

/* X(name): the descriptor mpiscope__method_<name>, in listing order (the
 * order `mpiscope methods` runs them), one line each. */
#define MPISCOPE_METHODS(X)                                                                                            \
    X(window)                                                                                                          \
    X(roundtime)                                                                                                       \
    X(barrier)                                                                                                         \
    X(barrier_each)                                                                                                    \
    X(none)                                                                                                            \
    X(root)                                                                                                            \
    X(max)                                                                                                             \
    X(global)                                                                                                          \
    X(bcast_supinski)

#define MPISCOPE_X_DECLARE(name) extern const mpiscope__method_t mpiscope__method_##name;
MPISCOPE_METHODS(MPISCOPE_X_DECLARE)
#undef MPISCOPE_X_DECLARE

static const mpiscope__method_t *const methods[] = {
#define MPISCOPE_X_ADDRESS(name) &mpiscope__method_##name,
    MPISCOPE_METHODS(MPISCOPE_X_ADDRESS)
#undef MPISCOPE_X_ADDRESS
};
enum { METHOD_COUNT = sizeof methods / sizeof *methods };

const mpiscope__method_t *mpiscope__method_find(const char *name)
{
    if (!name)
        return methods[0];
    for (size_t i = 0; i < METHOD_COUNT; i++)
        if (strcmp(methods[i]->name, name) == 0)
            return methods[i];
    return NULL;
}

int mpiscope__method_fits(const mpiscope__method_t *m, const mpiscope_op_t *op, int nprocs)
{
    if (!m || !op || (op->flags & m->op_flags) != m->op_flags)
        return 0;
    return nprocs <= 0 || nprocs >= m->min_nprocs;
}

const mpiscope_method_t *mpiscope_method_find(const char *name)
{
    return mpiscope__method_find(name);
}

const mpiscope_method_t *mpiscope_method_at(size_t index)
{
    return index < METHOD_COUNT ? methods[index] : NULL;
}

const char *mpiscope_method_get_name(const mpiscope_method_t *m)
{
    return m ? m->name : NULL;
}

int mpiscope_method_applies_to(const mpiscope_method_t *m, const mpiscope_op_t *op)
{
    return mpiscope__method_fits(m, op, 0);
}

size_t mpiscope_method_count(void)
{
    return METHOD_COUNT;
}

const char *mpiscope_method_name(size_t index)
{
    return index < METHOD_COUNT ? methods[index]->name : NULL;
}

const char *mpiscope_method_description(size_t index)
{
    return index < METHOD_COUNT ? methods[index]->description : NULL;
}

int mpiscope_method_applies(const char *method, const mpiscope_op_t *op)
{
    return mpiscope__method_fits(mpiscope__method_find(method), op, 0);
}

double mpiscope__global_now(const mpiscope__stage_env_t *env)
{
    return mpiscope__model_global(&env->clock, mpiscope__now_ns());
}

void mpiscope__spin_until_global(const mpiscope__stage_env_t *env, double t_ns)
{
    mpiscope_timer_spin_until_ns(mpiscope__model_local(&env->clock, t_ns));
}

/* Fill before, check after: outside the two clock reads. */
static void validate(mpiscope__stage_env_t *env, int phase)
{
    int err = env->op->validate(env->op_ctx, phase);
    if (phase == MPISCOPE_VALIDATE_CHECK) {
        env->validation->checked++;
        env->validation->failed += err != 0;
    }
}

void mpiscope__prepare_launch(mpiscope__stage_env_t *env)
{
    mpiscope__op_ctx_select_buffers(env->op_ctx, env->launch++);
    if (env->n_parts)
        mpiscope__op_ctx_reset_parts(env->op_ctx);
    if (env->validation->enabled)
        validate(env, MPISCOPE_VALIDATE_PREPARE);
}

int mpiscope__timed_launch(mpiscope__stage_env_t *env, double *start, double *end, double *done)
{
    double t0 = mpiscope__now_ns();
    env->op_ctx->launch_start_ns = t0;
    int err = env->op->execute(env->op_ctx);
    double t1 = mpiscope__now_ns();
    if (env->n_parts && env->stage_launch < MPISCOPE__STAGE_KMAX)
        memcpy(env->stage_parts + env->stage_launch * env->n_parts, env->op_ctx->part_ns,
               env->n_parts * sizeof(double));
    env->stage_launch++;
    *start = mpiscope__model_global(&env->clock, t0);
    *end = mpiscope__model_global(&env->clock, t1);
    *done = env->validation->enabled ? mpiscope__check_launch(env) : *end;
    return err;
}

double mpiscope__check_launch(mpiscope__stage_env_t *env)
{
    if (env->validation->enabled)
        validate(env, MPISCOPE_VALIDATE_CHECK);
    return mpiscope__global_now(env);
}
