/* leaders.h (internal to src/alltoall): the leader schemes' shared state
 * (one_leader, m_leader, plp: leaders.c) and their data movement
 * (leaders_run.c).
 *
 * Node n has M_n ranks, d_n leaders and d_n groups of e_n = M_n / d_n
 * consecutive local ranks; group g's leader is its first rank. Leader index
 * g (0 <= g < D = max d_n) runs one inter-node exchange among the ranks
 * serving index g on every node (their own communicator, rank = node). On
 * node n, index g is served by the leader of group g % d_n: a node with
 * fewer leaders (m_leader on uneven nodes) has one rank serve several
 * indices; for g >= d_n it sends nothing of its own and still receives.
 *
 * The inter-node block from leader (n, g) to node n' holds the blocks of
 * group g of node n for every rank of n', member j's block for local rank t
 * at (j * M_n' + t) * m. With uneven nodes these blocks differ in size: we
 * PAD every one to B = max e_n * max M_n * m bytes, so that the exchange is
 * a plain Alltoall (our Bruck, our ring or MPI_Alltoall) on any node sizes;
 * on equal nodes there is no padding and B is the seed's M*M*m/d. */
#ifndef MPISCOPE_A2A_LEADERS_H
#define MPISCOPE_A2A_LEADERS_H

#include "exchange.h"

/* One leader index this rank serves. */
typedef struct mpiscope__a2a_slot {
    int index;                       /* leader index g */
    MPI_Comm comm;                   /* the ranks serving g, one per node, rank = node */
    unsigned char *sstage, *rstage;  /* nodes * B bytes each: out to / in from every node */
    mpiscope__a2a_bruck_buf_t bruck; /* inter = bruck */
    MPI_Datatype *to_member;         /* p2p: [local_size] what local rank t takes from rstage */
} mpiscope__a2a_slot_t;

typedef struct mpiscope__a2a_leaders {
    int max_leaders;                 /* D */
    int *leaders_of, *group_of;      /* [nodes] d_n and e_n */
    size_t inter_block;              /* B, bytes */
    mpiscope_alltoall_inter_t inter; /* resolved: bruck, pairwise or native */
    int group, member;               /* this rank: its group and its place j in it */
    int leader_local;                /* local rank of its group's leader */
    int *consecutive;                /* [nodes] 1: the node's ranks are consecutive in comm */
    int n_slots;
    mpiscope__a2a_slot_t *slots;
    /* shm */
    MPI_Win win;
    int locked;
    unsigned char **segment; /* [local_size] every local rank's segment (leaders' stages) */
    /* p2p */
    MPI_Datatype from_send;    /* this rank's blocks from send, in [node][local rank] order */
    MPI_Datatype *from_member; /* leader: [group size] where member j's blocks land in sstage */
    MPI_Datatype *into_recv;   /* [D] where index g's blocks land in recv */
    MPI_Request *requests;
} mpiscope__a2a_leaders_t;

/* leaders_run.c: one Alltoall with the state create built. */
int mpiscope__a2a_leaders_run(mpiscope_alltoall_t *a, const void *send, void *recv);

/* leaders_types.c: the p2p hand-over's datatypes (not collective). */
int mpiscope__a2a_leaders_types(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s);
void mpiscope__a2a_leaders_types_free(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s);

/* Which local rank serves leader index g on node n, and in which of its slots. */
static inline int mpiscope__a2a_server(const mpiscope__a2a_leaders_t *s, int n, int g)
{
    return (g % s->leaders_of[n]) * s->group_of[n];
}

static inline int mpiscope__a2a_server_slot(const mpiscope__a2a_leaders_t *s, int n, int g)
{
    return g / s->leaders_of[n];
}

#endif
