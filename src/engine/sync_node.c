/* sync_node.c: one node, one clock. Ranks of one node (MPI_COMM_TYPE_SHARED)
 * read one counter from one origin (context.c): their offset is 0, not an
 * estimate that can be off by the ping-pong's asymmetry. That is verified
 * once (each rank against its leader); then only the leaders synchronize
 * and each hands its model to its node. */
#include <math.h>
#include <string.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "sync_internal.h"
#include "timer_read.h"

/* Every member against its leader: the linear algorithm on the node (its
 * `fitpoints` steps spread in time), the member's model of the leader's
 * clock (identity on the leader). */
static int verify_node(MPI_Comm node, const mpiscope_sync_params_t *p, double re, mpiscope__clock_model_t *vm,
                       mpiscope__pair_fit_t *vfit)
{
    mpiscope_sync_params_t linear = *p;
    linear.algorithm = MPISCOPE_SYNC_LINEAR;
    return mpiscope__sync_models(node, &linear, re, vm, vfit);
}

/* A shared clock: offset 0 (and drift 0) inside what the check can tell. */
static int looks_shared(const mpiscope__clock_model_t *vm)
{
    return fabs(vm->offset_ns) <= vm->error_ns && (vm->drift_error < 0 || fabs(vm->drift) <= vm->drift_error);
}

/* The leader's model, handed to a member: the member's bound grows by what
 * the verification left open (the offset measured and its own bound). */
static void take_leader_model(const mpiscope__clock_model_t *vm, mpiscope__clock_model_t *model)
{
    model->error_ns += fabs(vm->offset_ns) + vm->error_ns;
    if (vm->drift_error >= 0)
        model->drift_error = fmax(model->drift_error, 0) + fabs(vm->drift) + vm->drift_error;
}

int mpiscope__sync_with_leaders(MPI_Comm comm, const mpiscope_sync_params_t *p, double re,
                                mpiscope__clock_model_t *model, mpiscope__pair_fit_t *fit, double *node_residual_ns,
                                int *nodes, int *shared)
{
    int rank, n, node_rank, node_n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_n);
    int leader = node_rank == 0;
    MPI_Allreduce(&leader, nodes, 1, MPI_INT, MPI_SUM, comm);
    *node_residual_ns = 0;
    *shared = 0;
    if (!p->node_leaders || *nodes == n) {
        MPI_Comm_free(&node);
        return mpiscope__sync_models(comm, p, re, model, fit);
    }
    mpiscope__clock_model_t vm;
    mpiscope__pair_fit_t vfit;
    int ok = verify_node(node, p, re, &vm, &vfit) == 0 && looks_shared(&vm);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) { /* some node's ranks read different clocks: every rank synchronizes */
        MPI_Comm_free(&node);
        int err = mpiscope__sync_models(comm, p, re, model, fit);
        fit->exchanges += vfit.exchanges;
        return err;
    }
    *shared = 1;
    *node_residual_ns = vm.offset_ns;
    MPI_Comm leaders;
    MPI_Comm_split(comm, leader ? 0 : MPI_UNDEFINED, rank, &leaders);
    int err = 0;
    if (leader) {
        err = mpiscope__sync_models(leaders, p, re, model, fit);
        MPI_Comm_free(&leaders);
    } else {
        *fit = vfit;
    }
    double v[MPISCOPE__MODEL_DOUBLES + 1];
    mpiscope__model_pack(model, v);
    v[MPISCOPE__MODEL_DOUBLES] = err;
    MPI_Bcast(v, MPISCOPE__MODEL_DOUBLES + 1, MPI_DOUBLE, 0, node);
    if (!leader) {
        mpiscope__model_unpack(v, model);
        take_leader_model(&vm, model);
        err = (int)v[MPISCOPE__MODEL_DOUBLES];
    }
    MPI_Comm_free(&node);
    return err;
}
