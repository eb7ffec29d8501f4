/* leaders_run.c: one Alltoall of the leader schemes (leaders.h): every
 * rank hands the blocks it sends to its group's leader, packed by
 * destination node; the ranks serving each leader index exchange between
 * nodes; every rank takes the blocks meant for it from each index's
 * received stage. shm: loads and stores in the node's shared window,
 * fenced by MPI_Win_sync + node barrier; p2p: messages on the node's
 * communicator with datatypes built by create. */
#include "leaders.h"

/* Pack this rank's blocks for every node into its leader's send stage:
 * member j's block for local rank t of node n at n*B + (j*M_n + t)*m. */
static void pack(const mpiscope_alltoall_t *a, const mpiscope__a2a_leaders_t *s, const unsigned char *send,
                 unsigned char *stage)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t m = a->block;

    for (int n = 0; n < nd->count; n++) {
        const int *members = nd->members + nd->node_offset[n];
        size_t size = (size_t)nd->node_size[n];
        unsigned char *to = stage + (size_t)n * s->inter_block + (size_t)s->member * size * m;
        if (s->consecutive[n]) {
            mpiscope__a2a_copy(to, send + (size_t)members[0] * m, size * m);
            continue;
        }
        for (size_t t = 0; t < size; t++)
            mpiscope__a2a_copy(to + t * m, send + (size_t)members[t] * m, m);
    }
}

/* Take this rank's blocks from every leader index's receive stage: from
 * group g of node n, member j, at n*B + (j*M + t)*m. */
static void unpack(const mpiscope_alltoall_t *a, const mpiscope__a2a_leaders_t *s, unsigned char *recv)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t m = a->block, stage = (size_t)nd->count * s->inter_block;
    size_t mine = (size_t)nd->local_rank, here = (size_t)nd->local_size;

    for (int g = 0; g < s->max_leaders; g++) {
        const unsigned char *rstage = s->segment[mpiscope__a2a_server(s, nd->node, g)]
                                      + (2 * (size_t)mpiscope__a2a_server_slot(s, nd->node, g) + 1) * stage;
        for (int n = 0; n < nd->count; n++) {
            if (g >= s->leaders_of[n])
                continue; /* node n has no group g */
            const int *group = nd->members + nd->node_offset[n] + g * s->group_of[n];
            for (int j = 0; j < s->group_of[n]; j++)
                mpiscope__a2a_copy(recv + (size_t)group[j] * m,
                                   rstage + (size_t)n * s->inter_block + ((size_t)j * here + mine) * m, m);
        }
    }
}

/* Every slot's inter-node exchange (rank in its communicator = node). */
static int exchange(const mpiscope_alltoall_t *a, const mpiscope__a2a_leaders_t *s)
{
    int nodes = a->nodes.count, node = a->nodes.node, rc = 0;
    size_t b = s->inter_block;

    for (int i = 0; !rc && i < s->n_slots; i++) {
        const mpiscope__a2a_slot_t *sl = &s->slots[i];
        if (s->inter == MPISCOPE_ALLTOALL_INTER_BRUCK)
            rc = mpiscope__a2a_bruck_exchange(sl->comm, node, nodes, b, sl->sstage, sl->rstage, &sl->bruck);
        else if (s->inter == MPISCOPE_ALLTOALL_INTER_PAIRWISE)
            rc = mpiscope__a2a_pairwise_exchange(sl->comm, node, nodes, b, sl->sstage, sl->rstage);
        else
            rc = mpiscope__a2a_mpi(MPI_Alltoall(sl->sstage, (int)b, MPI_BYTE, sl->rstage, (int)b, MPI_BYTE, sl->comm));
    }
    return rc;
}

/* Stores before it are visible to the node's ranks after it. */
static int node_fence(const mpiscope_alltoall_t *a, const mpiscope__a2a_leaders_t *s)
{
    int rc = mpiscope__a2a_win_sync(s->win);
    rc |= MPI_Barrier(a->nodes.node_comm);
    rc |= mpiscope__a2a_win_sync(s->win);
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

/* The leader's stages are written only between fences that every rank of
 * the node passes, so one run's reads end before the next run's writes. */
static int run_shm(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s, const void *send, void *recv)
{
    int rc;

    pack(a, s, send, s->segment[s->leader_local]); /* slot 0's send stage opens the segment */
    if ((rc = node_fence(a, s)) != 0 || (rc = exchange(a, s)) != 0 || (rc = node_fence(a, s)) != 0)
        return rc;
    unpack(a, s, recv);
    return 0;
}

/* Tags on the node's communicator: the hand-over in, and out per index. */
enum { TAG_IN = MPISCOPE__A2A_TAG, TAG_OUT = MPISCOPE__A2A_TAG + 1 };

static int run_p2p(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s, const void *send, void *recv)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    MPI_Request *r = s->requests;
    int n = 0, rc = MPI_SUCCESS;

    rc |= MPI_Isend(send, 1, s->from_send, s->leader_local, TAG_IN, nd->node_comm, &r[n++]);
    for (int j = 0; s->n_slots && j < s->group_of[nd->node]; j++)
        rc |= MPI_Irecv(s->slots[0].sstage, 1, s->from_member[j], nd->local_rank + j, TAG_IN, nd->node_comm, &r[n++]);
    rc |= MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || exchange(a, s) != 0)
        return MPISCOPE_EMPI;
    n = 0;
    for (int g = 0; g < s->max_leaders; g++)
        rc |= MPI_Irecv(recv, 1, s->into_recv[g], mpiscope__a2a_server(s, nd->node, g), TAG_OUT + g, nd->node_comm,
                        &r[n++]);
    for (int i = 0; i < s->n_slots; i++)
        for (int t = 0; t < nd->local_size; t++)
            rc |= MPI_Isend(s->slots[i].rstage, 1, s->slots[i].to_member[t], t, TAG_OUT + s->slots[i].index,
                            nd->node_comm, &r[n++]);
    rc |= MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

int mpiscope__a2a_leaders_run(mpiscope_alltoall_t *a, const void *send, void *recv)
{
    mpiscope__a2a_leaders_t *s = a->state;

    return a->params.aggregate == MPISCOPE_ALLTOALL_AGGREGATE_P2P ? run_p2p(a, s, send, recv)
                                                                  : run_shm(a, s, send, recv);
}
