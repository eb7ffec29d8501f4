/* mpiscope/alltoall.h: the Alltoall lab's algorithms, usable from an
 * application (the MPIBlib form) and measured as ordinary operations
 * (`mpiscope run alltoall_plp --option leaders=2`).
 *
 * Every algorithm exchanges equal blocks of `block_bytes` bytes: block j of
 * `send` goes to rank j, block i of `recv` comes from rank i, exactly as
 * MPI_Alltoall(send, block_bytes, MPI_BYTE, recv, block_bytes, MPI_BYTE,
 * comm). They are written over plain MPI (point-to-point, MPI-3 shared
 * memory windows, MPI-3 RMA) in user space.
 *
 * Nodes: the leader schemes treat groups of ranks as nodes. By default a
 * node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gives (real
 * nodes, and MPICH's MPIR_CVAR_NUM_CLIQUES virtual ones, and SimGrid SMPI's
 * simulated hosts); `nodes = K` instead splits the ranks into K groups of
 * consecutive ranks (the first nprocs % K groups one rank larger), the way
 * MPICH's MPIR_CVAR_CLIQUES_BY_BLOCK does. Ranks per node may differ.
 *
 * Lifecycle: mpiscope_alltoall_create (collective; allocates windows,
 * communicators and staging buffers once), mpiscope_alltoall_run
 * (collective, any number of times, any buffers), mpiscope_alltoall_free
 * (collective). Nothing is allocated in run. */
#ifndef MPISCOPE_ALLTOALL_H
#define MPISCOPE_ALLTOALL_H

#include "mpiscope/export.h"

#include <stddef.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the leaders exchange between nodes (the inter-node phase of the
 * leader schemes). AUTO: our Bruck for an aggregated block of at most
 * size_crit_bytes, our pairwise above it (the seed's rule, whatever MPI
 * library runs underneath); NATIVE: the library's MPI_Alltoall. */
typedef enum mpiscope_alltoall_inter {
    MPISCOPE_ALLTOALL_INTER_AUTO = 0,
    MPISCOPE_ALLTOALL_INTER_BRUCK,
    MPISCOPE_ALLTOALL_INTER_PAIRWISE,
    MPISCOPE_ALLTOALL_INTER_NATIVE
} mpiscope_alltoall_inter_t;

/* How a node's ranks hand their data to the leaders and back. SHM: one
 * MPI-3 shared window per node (MPI_Win_allocate_shared), leaders read and
 * write their node-mates' blocks in place; P2P: messages inside the node
 * (for MPI libraries without shared windows, and to compare). */
typedef enum mpiscope_alltoall_aggregate {
    MPISCOPE_ALLTOALL_AGGREGATE_SHM = 0,
    MPISCOPE_ALLTOALL_AGGREGATE_P2P
} mpiscope_alltoall_aggregate_t;

/* Parameters; MPISCOPE_ALLTOALL_PARAMS_INIT gives every default. Fields an
 * algorithm does not use are ignored. */
typedef struct mpiscope_alltoall_params {
    int nodes;              /* 0: nodes from MPI_COMM_TYPE_SHARED; K >= 1: K virtual nodes */
    int leaders;            /* plp: leaders per node d (must divide every node's rank count);
                                 0: chosen by the seed's rule from size_crit_bytes */
    size_t size_crit_bytes; /* the Bruck/ring switch of the inter-node exchange, bytes per
                                 destination of the exchange (default 8192, the seed's) */
    mpiscope_alltoall_inter_t inter;
    mpiscope_alltoall_aggregate_t aggregate;
    unsigned flags; /* must be 0 */
} mpiscope_alltoall_params_t;
#define MPISCOPE_ALLTOALL_PARAMS_INIT {0, 0, 8192, MPISCOPE_ALLTOALL_INTER_AUTO, MPISCOPE_ALLTOALL_AGGREGATE_SHM, 0u}

/* One algorithm of the registry. */
typedef struct mpiscope_alltoall_algorithm {
    const char *name;        /* "bruck", "pairwise", "linear", "one_leader", "m_leader", "plp", "lss" */
    const char *op_name;     /* the operation measuring it: "alltoall_bruck", ... */
    const char *description; /* one line */
    int leader_based;        /* 1: uses nodes, inter, aggregate (and plp: leaders, size_crit) */
} mpiscope_alltoall_algorithm_t;

/* The registry, in listing order. Not collective; callable before MPI_Init. */
MPISCOPE_API size_t mpiscope_alltoall_algorithm_count(void);
MPISCOPE_API const mpiscope_alltoall_algorithm_t *mpiscope_alltoall_algorithm_at(size_t index);
MPISCOPE_API const mpiscope_alltoall_algorithm_t *mpiscope_alltoall_algorithm_find(const char *name);

/* PLP's rule (the seed's): with M ranks per node and m bytes per
 * destination, if M*M*m <= size_crit every d keeps the inter-node
 * exchange in Bruck, so d = M; otherwise the largest divisor d of M with
 * M*M*m/d > size_crit (the exchange stays in the ring algorithm with as
 * many leaders as possible), and 1 if none. Not collective. */
MPISCOPE_API int mpiscope_alltoall_plp_rule(int ranks_per_node, size_t block_bytes, size_t size_crit_bytes);

typedef struct mpiscope_alltoall mpiscope_alltoall_t;

/* Prepare `algorithm` (a registry name) on `comm` for blocks of
 * `block_bytes` (0 allowed). Collective over comm; every rank passes the
 * same arguments. Returns 0 and *out, or MPISCOPE_EINVAL (unknown name,
 * flags != 0, leaders not dividing a node's ranks, nodes > nprocs),
 * MPISCOPE_ENOMEM, MPISCOPE_ENOTSUP (the library lacks shared windows or
 * RMA the algorithm needs, or aggregate SHM on virtual nodes that span
 * real ones: no window can be shared there), MPISCOPE_ERANGE (a message of
 * the algorithm exceeds MPI's int count of bytes), MPISCOPE_EMPI.
 * Every rank gets the same return value. */
MPISCOPE_API int mpiscope_alltoall_create(MPI_Comm comm, const char *algorithm, size_t block_bytes,
                                          const mpiscope_alltoall_params_t *params, mpiscope_alltoall_t **out);

/* One Alltoall: send and recv each hold nprocs blocks of block_bytes and
 * must not overlap; with block_bytes 0 it is one barrier (nothing moves,
 * but no rank leaves before all have entered), whatever the algorithm.
 * Collective. Leaves no communication pending. Returns 0,
 * MPISCOPE_EINVAL (a2a NULL, or a NULL buffer with block_bytes > 0) or
 * MPISCOPE_EMPI. */
MPISCOPE_API int mpiscope_alltoall_run(mpiscope_alltoall_t *a2a, const void *send, void *recv);

/* What create decided, for results: the leaders per node actually used
 * (plp: the given or rule-chosen d; one_leader 1; m_leader the node's
 * ranks; others 0), the number of nodes, this rank's node (both 0 for the
 * algorithms that do not use nodes). Not collective. */
MPISCOPE_API int mpiscope_alltoall_leaders(const mpiscope_alltoall_t *a2a);
MPISCOPE_API int mpiscope_alltoall_node_count(const mpiscope_alltoall_t *a2a);
MPISCOPE_API int mpiscope_alltoall_node_of_rank(const mpiscope_alltoall_t *a2a);

/* Release everything create made. Collective. NULL is ignored. */
MPISCOPE_API void mpiscope_alltoall_free(mpiscope_alltoall_t *a2a);

#ifdef __cplusplus
}
#endif
#endif
