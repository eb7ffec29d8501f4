/* nodes.c: the nodes the leader schemes see. Real ones from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (their ranks need not be
 * consecutive), or K virtual nodes of consecutive ranks, the first
 * nprocs % K one rank larger (MPICH's MPIR_CVAR_CLIQUES_BY_BLOCK split). */
#include <stdlib.h>
#include "a2a.h"
#include "gather.h"

/* Every rank's node by the lowest rank of its node: nodes numbered in the
 * order of their lowest rank. first_of[r] is the lowest rank of r's node. */
static void number_nodes(mpiscope__a2a_nodes_t *n, const int *first_of, int nprocs)
{
    n->count = 0;
    for (int r = 0; r < nprocs; r++) {
        if (first_of[r] == r) {
            n->node_of[r] = n->count;
            n->node_first[n->count++] = r;
        } else {
            n->node_of[r] = n->node_of[first_of[r]]; /* first_of[r] < r: numbered already */
        }
    }
}

static int real_nodes(mpiscope_alltoall_t *a, int *first_of)
{
    mpiscope__a2a_nodes_t *n = &a->nodes;
    int first;

    if (MPI_Comm_split_type(a->comm, MPI_COMM_TYPE_SHARED, a->rank, MPI_INFO_NULL, &n->node_comm) != MPI_SUCCESS
        || MPI_Allreduce(&a->rank, &first, 1, MPI_INT, MPI_MIN, n->node_comm) != MPI_SUCCESS
        || mpiscope__allgather(&first, 1, MPI_INT, first_of, a->comm) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    return 0;
}

static int virtual_nodes(mpiscope_alltoall_t *a, int *first_of)
{
    int k = a->params.nodes, q = a->nprocs / k, big = a->nprocs % k, node = 0;

    for (int r = 0, start = 0; r < a->nprocs; r++) {
        int size = q + (node < big);
        if (r == start + size) {
            start = r;
            node++;
        }
        first_of[r] = start;
    }
    node = a->rank < big * (q + 1) ? a->rank / (q + 1) : big + (a->rank - big * (q + 1)) / q;
    return MPI_Comm_split(a->comm, node, a->rank, &a->nodes.node_comm) == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

static int allocate(mpiscope__a2a_nodes_t *n, int nprocs)
{
    size_t p = (size_t)nprocs;

    n->node_of = malloc(p * sizeof(int));
    n->local_of = malloc(p * sizeof(int));
    n->node_size = calloc(p, sizeof(int));
    n->node_first = malloc(p * sizeof(int));
    n->members = malloc(p * sizeof(int));
    n->node_offset = calloc(p + 1, sizeof(int));
    return n->node_of && n->local_of && n->node_size && n->node_first && n->members && n->node_offset ? 0
                                                                                                      : MPISCOPE_ENOMEM;
}

/* Sizes, offsets, members in rank order, local ranks. */
static void fill(mpiscope__a2a_nodes_t *n, int rank, int nprocs)
{
    for (int r = 0; r < nprocs; r++)
        n->local_of[r] = n->node_size[n->node_of[r]]++;
    for (int i = 0; i < n->count; i++)
        n->node_offset[i + 1] = n->node_offset[i] + n->node_size[i];
    for (int r = 0; r < nprocs; r++)
        n->members[n->node_offset[n->node_of[r]] + n->local_of[r]] = r;
    n->node = n->node_of[rank];
    n->local_rank = n->local_of[rank];
    n->local_size = n->node_size[n->node];
}

int mpiscope__a2a_nodes_build(mpiscope_alltoall_t *a)
{
    mpiscope__a2a_nodes_t *n = &a->nodes;
    int *first_of = malloc((size_t)a->nprocs * sizeof *first_of), rc;

    n->node_comm = MPI_COMM_NULL;
    rc = first_of ? allocate(n, a->nprocs) : MPISCOPE_ENOMEM;
    /* every rank allocates alike: agree before the collective calls */
    if (MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, a->comm) != MPI_SUCCESS)
        rc = MPISCOPE_EMPI;
    if (!rc)
        rc = a->params.nodes == 0 ? real_nodes(a, first_of) : virtual_nodes(a, first_of);
    if (!rc) {
        number_nodes(n, first_of, a->nprocs);
        fill(n, a->rank, a->nprocs);
    }
    free(first_of);
    return rc;
}

void mpiscope__a2a_nodes_free(mpiscope__a2a_nodes_t *n)
{
    if (n->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&n->node_comm);
    free(n->node_of);
    free(n->local_of);
    free(n->node_size);
    free(n->node_first);
    free(n->members);
    free(n->node_offset);
    *n = (mpiscope__a2a_nodes_t){.node_comm = MPI_COMM_NULL};
}
