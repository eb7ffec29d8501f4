/* methods.c: the registry of timing methods and what their stage loops share. */
#include <string.h>
#include "mpiscope/error.h"
#include "method.h"
#include "opctx.h"
#include "timer_read.h"

extern const mpiscope__method_t mpiscope__method_window, mpiscope__method_roundtime,
    mpiscope__method_barrier, mpiscope__method_barrier_each, mpiscope__method_none,
    mpiscope__method_root, mpiscope__method_max, mpiscope__method_global,
    mpiscope__method_bcast_supinski;

static const mpiscope__method_t *const methods[] = {
    &mpiscope__method_window,    &mpiscope__method_roundtime, &mpiscope__method_barrier,
    &mpiscope__method_barrier_each, &mpiscope__method_none,   &mpiscope__method_root,
    &mpiscope__method_max,       &mpiscope__method_global,    &mpiscope__method_bcast_supinski,
};
enum { METHOD_COUNT = sizeof methods / sizeof *methods };

const mpiscope__method_t *mpiscope__method_find(const char *name)
{
    if (!name)
        return &mpiscope__method_window;
    for (size_t i = 0; i < METHOD_COUNT; i++)
        if (strcmp(methods[i]->name, name) == 0)
            return methods[i];
    return NULL;
}

size_t mpiscope_method_count(void) { return METHOD_COUNT; }

const char *mpiscope_method_name(size_t index) { return index < METHOD_COUNT ? methods[index]->name : NULL; }

const char *mpiscope_method_description(size_t index)
{
    return index < METHOD_COUNT ? methods[index]->description : NULL;
}

int mpiscope_method_applies(const char *method, const mpiscope_op_t *op)
{
    const mpiscope__method_t *m = mpiscope__method_find(method);
    if (!m || !op)
        return 0;
    return m != &mpiscope__method_bcast_supinski || strcmp(op->name, "bcast") == 0;
}

double mpiscope__global_now(const mpiscope__stage_env_t *env) { return mpiscope__now_ns() + env->offset_ns; }

void mpiscope__spin_until_global(const mpiscope__stage_env_t *env, double t_ns)
{
    mpiscope_timer_spin_until_ns(t_ns - env->offset_ns);
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
    if (env->validation->enabled)
        validate(env, MPISCOPE_VALIDATE_PREPARE);
}

int mpiscope__timed_launch(mpiscope__stage_env_t *env, double *start, double *end, double *done)
{
    double t0 = mpiscope__now_ns();
    int err = env->op->execute(env->op_ctx);
    double t1 = mpiscope__now_ns();
    *start = t0 + env->offset_ns;
    *end = t1 + env->offset_ns;
    *done = env->validation->enabled ? mpiscope__check_launch(env) : *end;
    return err;
}

double mpiscope__check_launch(mpiscope__stage_env_t *env)
{
    if (env->validation->enabled)
        validate(env, MPISCOPE_VALIDATE_CHECK);
    return mpiscope__global_now(env);
}
