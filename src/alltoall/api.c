/* api.c: the public lifecycle of mpiscope/alltoall.h around the
 * implementations: check the arguments, duplicate the communicator, build
 * the nodes for the leader schemes, then the algorithm's own create. */
#include <stdlib.h>
#include "a2a.h"

static int params_valid(const mpiscope_alltoall_params_t *p, int nprocs)
{
    return p->flags == 0 && p->nodes >= 0 && p->nodes <= nprocs && p->leaders >= 0
           && p->inter >= MPISCOPE_ALLTOALL_INTER_AUTO && p->inter <= MPISCOPE_ALLTOALL_INTER_NATIVE
           && p->aggregate >= MPISCOPE_ALLTOALL_AGGREGATE_SHM && p->aggregate <= MPISCOPE_ALLTOALL_AGGREGATE_P2P;
}

/* Free what create made; `created`: the implementation's create ran. */
static void release(mpiscope_alltoall_t *a, int created)
{
    if (created)
        a->impl->destroy(a);
    if (a->impl->info.leader_based)
        mpiscope__a2a_nodes_free(&a->nodes);
    if (a->comm != MPI_COMM_NULL)
        MPI_Comm_free(&a->comm);
    free(a);
}

/* Our duplicate returns errors instead of aborting (communicators split
 * from it inherit that). */
static int setup_comm(mpiscope_alltoall_t *a, MPI_Comm comm)
{
    if (MPI_Comm_dup(comm, &a->comm) != MPI_SUCCESS) {
        a->comm = MPI_COMM_NULL;
        return MPISCOPE_EMPI;
    }
    if (MPI_Comm_set_errhandler(a->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS
        || MPI_Comm_rank(a->comm, &a->rank) != MPI_SUCCESS || MPI_Comm_size(a->comm, &a->nprocs) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return 0;
}

int mpiscope_alltoall_create(MPI_Comm comm, const char *algorithm, size_t block_bytes,
                             const mpiscope_alltoall_params_t *params, mpiscope_alltoall_t **out)
{
    static const mpiscope_alltoall_params_t defaults = MPISCOPE_ALLTOALL_PARAMS_INIT;
    const mpiscope__a2a_impl_t *impl = mpiscope__a2a_impl_find(algorithm);
    mpiscope_alltoall_t *a;
    int nprocs, rc, created = 0;

    if (!out)
        return MPISCOPE_EINVAL;
    *out = NULL;
    if (comm == MPI_COMM_NULL || !impl || MPI_Comm_size(comm, &nprocs) != MPI_SUCCESS
        || !params_valid(params ? params : &defaults, nprocs))
        return MPISCOPE_EINVAL;
    if (!(a = calloc(1, sizeof *a)))
        return MPISCOPE_ENOMEM; /* the others fail in their own allocation or in MPI */
    a->impl = impl;
    a->block = block_bytes;
    a->params = params ? *params : defaults;
    a->nodes.node_comm = MPI_COMM_NULL;
    rc = setup_comm(a, comm);
    if (!rc && impl->info.leader_based)
        rc = mpiscope__a2a_nodes_build(a);
    if (!rc) {
        created = 1;
        rc = impl->create(a);
    }
    /* one verdict for all ranks, so that all keep or all release */
    if (a->comm != MPI_COMM_NULL && MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, a->comm) != MPI_SUCCESS)
        rc = MPISCOPE_EMPI;
    if (rc) {
        release(a, created);
        return rc;
    }
    *out = a;
    return 0;
}

int mpiscope_alltoall_run(mpiscope_alltoall_t *a2a, const void *send, void *recv)
{
    if (!a2a || (a2a->block && (!send || !recv)))
        return MPISCOPE_EINVAL;
    if (a2a->block == 0) /* nothing moves; still no rank leaves before all have entered */
        return MPI_Barrier(a2a->comm) == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
    return a2a->impl->run(a2a, send, recv);
}

void mpiscope_alltoall_free(mpiscope_alltoall_t *a2a)
{
    if (a2a)
        release(a2a, 1);
}

int mpiscope_alltoall_leaders(const mpiscope_alltoall_t *a2a)
{
    return a2a ? a2a->leaders : 0;
}

int mpiscope_alltoall_node_count(const mpiscope_alltoall_t *a2a)
{
    return a2a && a2a->impl->info.leader_based ? a2a->nodes.count : 0;
}

int mpiscope_alltoall_node_of_rank(const mpiscope_alltoall_t *a2a)
{
    return a2a && a2a->impl->info.leader_based ? a2a->nodes.node : 0;
}
