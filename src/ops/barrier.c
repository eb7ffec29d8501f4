/* barrier.c: MPI_Barrier. */
#include "common.h"

static int barrier_execute(mpiscope_op_ctx_t *ctx)
{
    return mpiscope__ops_mpi(MPI_Barrier(ctx->comm));
}

const mpiscope_op_t mpiscope__op_barrier = {
    .name = "barrier",
    .description = "MPI_Barrier: no rank leaves before all have entered",
    .size_meaning = "not used",
    .flags = 0,
    .options = NULL,
    .initialize = mpiscope__ops_nothing,
    .execute = barrier_execute,
    .finalize = mpiscope__ops_nothing,
};
