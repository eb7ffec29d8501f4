/* waitpattern.c: the ground-truth operations that check the tool itself
 * (measurement.md section 7). Each rank busy-waits a known time counted
 * from the start of its timed launch (the engine's own clock read,
 * ctx->launch_start_ns), so the true duration of a launch is known: nprocs
 * wait steps for up and down (max over ranks), 0 for null. None of them
 * reads the clock on entry: such a read would be part of the launch, and
 * WaitPatternNull is then exactly the engine's empty timed region (the
 * measurement floor, docs/method.md). */
#include "common.h"
#include "mpiscope/timer.h"

#include <math.h>
#include <stdlib.h>

/* ctx->state: this rank's wait, and what the last launch did (the
 * validate hook checks it waited, in this launch, at least that long). */
typedef struct wait_state {
    double wait_ns;
    double prepared_ns; /* clock when the launch was prepared */
    double start_ns, end_ns;
} wait_state_t;

static int new_state(mpiscope_op_ctx_t *ctx, double wait_ns)
{
    wait_state_t *s = calloc(1, sizeof *s);

    if (!s)
        return MPISCOPE_ENOMEM;
    s->wait_ns = wait_ns;
    ctx->state = s;
    return 0;
}

static int wait_initialize(mpiscope_op_ctx_t *ctx, size_t steps)
{
    const char *text = mpiscope_op_ctx_option(ctx, "unit_us");
    char *end;
    double unit_us = text ? strtod(text, &end) : -1.0;

    if (!text || end == text || *end != '\0' || !isfinite(unit_us) || unit_us < 0.0)
        return MPISCOPE_EINVAL;
    return new_state(ctx, (double)steps * unit_us * 1e3);
}

static int up_initialize(mpiscope_op_ctx_t *ctx)
{
    return wait_initialize(ctx, (size_t)ctx->rank + 1);
}

static int down_initialize(mpiscope_op_ctx_t *ctx)
{
    return wait_initialize(ctx, (size_t)(ctx->nprocs - ctx->rank));
}

static int null_initialize(mpiscope_op_ctx_t *ctx)
{
    return new_state(ctx, 0.0);
}

/* The launch's start: the engine's read, or outside a timed launch our own. */
static double launch_start(const mpiscope_op_ctx_t *ctx)
{
    return isnan(ctx->launch_start_ns) ? mpiscope_timer_now_ns() : ctx->launch_start_ns;
}

static int wait_execute(mpiscope_op_ctx_t *ctx)
{
    wait_state_t *s = ctx->state;
    double start = launch_start(ctx);

    s->end_ns = mpiscope_timer_spin_until_ns(start + s->wait_ns);
    s->start_ns = start;
    return 0;
}

static int null_execute(mpiscope_op_ctx_t *ctx)
{
    wait_state_t *s = ctx->state;

    s->start_ns = s->end_ns = launch_start(ctx);
    return 0;
}

static int wait_finalize(mpiscope_op_ctx_t *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
    return 0;
}

static int wait_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    wait_state_t *s = ctx->state;

    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        s->prepared_ns = mpiscope_timer_now_ns();
        s->start_ns = s->end_ns = -1.0; /* a launch that did not run shows */
        return 0;
    }
    if (s->start_ns < s->prepared_ns)
        return mpiscope_op_ctx_mismatch(ctx, "rank %d: the launch did not run", ctx->rank);
    if (s->end_ns - s->start_ns < s->wait_ns)
        return mpiscope_op_ctx_mismatch(ctx, "rank %d: waited %.0f ns, want at least %.0f ns", ctx->rank,
                                        s->end_ns - s->start_ns, s->wait_ns);
    return 0;
}

static const mpiscope_op_option_t wait_options[] = {
    {.name = "unit_us", .default_value = "1", .unit = "us", .type = "number", .description = "the per-rank wait step"},
    {.name = NULL},
};

const mpiscope_op_t mpiscope__op_waitpattern_up = {
    .abi = MPISCOPE_OP_ABI,
    .name = "waitpattern_up",
    .description = "ground truth: rank i busy-waits (i+1) steps; true time nprocs steps",
    .size_meaning = "not used",
    .flags = MPISCOPE_OP_GROUND_TRUTH,
    .options = wait_options,
    .initialize = up_initialize,
    .execute = wait_execute,
    .finalize = wait_finalize,
    .validate = wait_validate,
};

const mpiscope_op_t mpiscope__op_waitpattern_down = {
    .abi = MPISCOPE_OP_ABI,
    .name = "waitpattern_down",
    .description = "ground truth: rank i busy-waits (nprocs-i) steps; true time nprocs steps",
    .size_meaning = "not used",
    .flags = MPISCOPE_OP_GROUND_TRUTH,
    .options = wait_options,
    .initialize = down_initialize,
    .execute = wait_execute,
    .finalize = wait_finalize,
    .validate = wait_validate,
};

const mpiscope_op_t mpiscope__op_waitpattern_null = {
    .abi = MPISCOPE_OP_ABI,
    .name = "waitpattern_null",
    .description = "ground truth: every rank returns at once; true time 0 (the measurement floor)",
    .size_meaning = "not used",
    .flags = MPISCOPE_OP_GROUND_TRUTH,
    .options = NULL,
    .initialize = null_initialize,
    .execute = null_execute,
    .finalize = wait_finalize,
    .validate = wait_validate,
};
