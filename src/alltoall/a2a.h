/* a2a.h (internal to src/alltoall): what every Alltoall algorithm of the
 * lab implements, and the state mpiscope_alltoall_create builds for it.
 * One algorithm per file; the registry (registry.c) lists them. */
#ifndef MPISCOPE_A2A_H
#define MPISCOPE_A2A_H

#include "mpiscope/alltoall.h"
#include "mpiscope/error.h"

/* The nodes as this run sees them (real or virtual), built once by create. */
typedef struct mpiscope__a2a_nodes {
    int count;          /* number of nodes */
    int node;           /* this rank's node, 0..count-1 (nodes ordered by their lowest rank) */
    int local_rank;     /* rank inside the node */
    int local_size;     /* ranks on this node */
    MPI_Comm node_comm; /* this node's ranks, ordered by rank in comm */
    int *node_of;       /* [nprocs] node of every rank */
    int *local_of;      /* [nprocs] local rank of every rank */
    int *node_size;     /* [count] ranks per node */
    int *node_first;    /* [count] lowest rank of every node (ranks of a node need not be consecutive) */
    int *members;       /* [nprocs] ranks of node n at members[node_offset[n] ...] */
    int *node_offset;   /* [count + 1] */
} mpiscope__a2a_nodes_t;

struct mpiscope_alltoall {
    MPI_Comm comm; /* a duplicate of the user's communicator (owned) */
    int rank, nprocs;
    size_t block; /* bytes per destination */
    mpiscope_alltoall_params_t params;
    const struct mpiscope__a2a_impl *impl;
    mpiscope__a2a_nodes_t nodes; /* filled for leader-based algorithms only */
    int leaders;                 /* what mpiscope_alltoall_leaders() reports */
    void *state;                 /* the algorithm's own */
};

typedef struct mpiscope__a2a_impl {
    mpiscope_alltoall_algorithm_t info;
    /* After the common part of create (comm, rank, nprocs, block, params,
     * nodes for leader-based ones): build a->state. Collective. */
    int (*create)(mpiscope_alltoall_t *a);
    int (*run)(mpiscope_alltoall_t *a, const void *send, void *recv);
    void (*destroy)(mpiscope_alltoall_t *a); /* collective; frees a->state */
} mpiscope__a2a_impl_t;

/* MPI_Win_sync, except under SimGrid SMPI: its simulated ranks share one
 * address space and run one at a time, so the barrier, flush or message
 * next to every call already orders their loads and stores (SMPI 3.32
 * lacks MPI_Win_sync and warns on every call). */
static inline int mpiscope__a2a_win_sync(MPI_Win win)
{
#ifdef MPISCOPE_SMPI
    (void)win;
    return MPI_SUCCESS;
#else
    return MPI_Win_sync(win);
#endif
}

/* The implementations (one per file), listed in registry.c. */
extern const mpiscope__a2a_impl_t mpiscope__a2a_bruck, mpiscope__a2a_pairwise, mpiscope__a2a_linear,
    mpiscope__a2a_one_leader, mpiscope__a2a_m_leader, mpiscope__a2a_plp, mpiscope__a2a_lss;

/* registry.c: the implementation named `name` (any case, '-' for '_'), or NULL. */
const mpiscope__a2a_impl_t *mpiscope__a2a_impl_find(const char *name);

/* nodes.c: build a->nodes from a->comm and a->params.nodes (collective over
 * a->comm), and release it (collective: frees node_comm). */
int mpiscope__a2a_nodes_build(mpiscope_alltoall_t *a);
void mpiscope__a2a_nodes_free(mpiscope__a2a_nodes_t *nodes);

/* plp_rule.c: the seed's rule with M = ranks_per_node for the block size,
 * choosing among the divisors of `common` (the divisor of every node's
 * rank count: M itself when nodes are equal). */
int mpiscope__a2a_plp_choose(int ranks_per_node, int common, size_t block_bytes, size_t size_crit_bytes);

#endif
