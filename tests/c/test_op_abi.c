/* test_op_abi.c: the descriptor layout check (MPISCOPE_OP_ABI), on one rank
 * (MPI singleton): every built-in says this header's layout, a descriptor
 * of another layout is refused with a line saying so by both engines that
 * run ops, and the same descriptor with the right layout is measured. */
#include <string.h>
#include "check.h"
#include "mpiscope/mpiscope.h"

static void test_builtins_have_this_layout(void)
{
    CHECK(mpiscope_op_count() > 0);
    for (size_t i = 0; i < mpiscope_op_count(); i++)
        CHECK_INT_EQ(mpiscope_op_at(i)->abi, MPISCOPE_OP_ABI);
}

static void test_other_layout_refused(mpiscope_context_t *ctx)
{
    mpiscope_op_t op = *mpiscope_op_find("waitpattern_null");
    mpiscope_point_spec_t spec = MPISCOPE_POINT_SPEC_INIT;
    mpiscope_point_result_t r;
    op.abi = MPISCOPE_OP_ABI + 1;
    CHECK_INT_EQ(mpiscope_context_measure(ctx, &op, &spec, &r), MPISCOPE_EINVAL);
    CHECK(strstr(mpiscope_context_last_error(ctx), "rebuild the op") != NULL);
    const mpiscope_op_t *ops[] = {&op};
    mpiscope_firstcall_t *fc = NULL;
    CHECK_INT_EQ(mpiscope_firstcall_run(MPI_COMM_WORLD, NULL, ops, 1, &spec, &fc), MPISCOPE_EINVAL);
    CHECK(fc == NULL);

    op.abi = MPISCOPE_OP_ABI;
    CHECK_INT_EQ(mpiscope_context_measure(ctx, &op, &spec, &r), 0);
    CHECK(r.launches_total > 0);
    CHECK(strcmp(mpiscope_context_last_error(ctx), "") == 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_builtins_have_this_layout();
    mpiscope_context_t *ctx;
    CHECK_INT_EQ(mpiscope_context_create(MPI_COMM_WORLD, NULL, &ctx), 0);
    test_other_layout_refused(ctx);
    mpiscope_context_destroy(ctx);
    MPI_Finalize();
    CHECK_DONE();
}
