/* waitpattern.c: the ground-truth operations that check the tool itself
 * (measurement.md section 7). Each rank busy-waits a known time measured
 * from its own entry, so the true duration of a launch is known: nprocs
 * wait steps for up and down (max over ranks), 0 for null. */
#include "common.h"
#include "mpiscope/timer.h"

#include <math.h>
#include <stdlib.h>

/* ctx->state: this rank's wait, ns. */
static int wait_initialize(mpiscope_op_ctx_t *ctx, size_t steps)
{
    const char *text = mpiscope_op_ctx_option(ctx, "unit_us");
    char *end;
    double unit_us = text ? strtod(text, &end) : -1.0;
    double *wait_ns;

    if (!text || end == text || *end != '\0' || !isfinite(unit_us) || unit_us < 0.0)
        return MPISCOPE_EINVAL;
    if (!(wait_ns = malloc(sizeof *wait_ns)))
        return MPISCOPE_ENOMEM;
    *wait_ns = (double)steps * unit_us * 1e3;
    ctx->state = wait_ns;
    return 0;
}

static int up_initialize(mpiscope_op_ctx_t *ctx)
{
    return wait_initialize(ctx, (size_t)ctx->rank + 1);
}

static int down_initialize(mpiscope_op_ctx_t *ctx)
{
    return wait_initialize(ctx, (size_t)(ctx->nprocs - ctx->rank));
}

static int wait_execute(mpiscope_op_ctx_t *ctx)
{
    const double *wait_ns = ctx->state;
    mpiscope_timer_spin_until_ns(mpiscope_timer_now_ns() + *wait_ns);
    return 0;
}

static int wait_finalize(mpiscope_op_ctx_t *ctx)
{
    free(ctx->state);
    ctx->state = NULL;
    return 0;
}

static int null_execute(mpiscope_op_ctx_t *ctx)
{
    (void)ctx;
    (void)mpiscope_timer_now_ns();
    return 0;
}

static const mpiscope_op_option_t wait_options[] = {
    {.name = "unit_us", .default_value = "1", .unit = "us", .description = "the per-rank wait step"},
    {.name = NULL},
};

const mpiscope_op_t mpiscope__op_waitpattern_up = {
    .name = "waitpattern_up",
    .description = "ground truth: rank i busy-waits (i+1) steps; true time nprocs steps",
    .size_meaning = "not used",
    .flags = MPISCOPE_OP_GROUND_TRUTH,
    .options = wait_options,
    .initialize = up_initialize,
    .execute = wait_execute,
    .finalize = wait_finalize,
};

const mpiscope_op_t mpiscope__op_waitpattern_down = {
    .name = "waitpattern_down",
    .description = "ground truth: rank i busy-waits (nprocs-i) steps; true time nprocs steps",
    .size_meaning = "not used",
    .flags = MPISCOPE_OP_GROUND_TRUTH,
    .options = wait_options,
    .initialize = down_initialize,
    .execute = wait_execute,
    .finalize = wait_finalize,
};

const mpiscope_op_t mpiscope__op_waitpattern_null = {
    .name = "waitpattern_null",
    .description = "ground truth: every rank reads the clock once; true time 0",
    .size_meaning = "not used",
    .flags = MPISCOPE_OP_GROUND_TRUTH,
    .options = NULL,
    .initialize = mpiscope__ops_nothing,
    .execute = null_execute,
    .finalize = mpiscope__ops_nothing,
};
