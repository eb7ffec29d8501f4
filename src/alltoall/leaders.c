/* leaders.c: the leader schemes (leaders.h), one implementation with three
 * entries: one_leader (d = 1), m_leader (d = ranks on the node) and plp
 * (d = params.leaders or the seed's rule). create builds everything run
 * needs: the leaders' communicators, the node's shared window (shm) or the
 * hand-over datatypes and private stages (p2p), Bruck's scratch. */
#include <stdlib.h>
#include "leaders.h"
#include "gather.h"

enum { ONE_LEADER, M_LEADER, PLP };

static int gcd(int x, int y)
{
    while (y) {
        int t = x % y;
        x = y;
        y = t;
    }
    return x;
}

/* d_n and e_n of every node; PLP's d must divide every node's ranks. */
static int choose_leaders(mpiscope_alltoall_t *a, int scheme, mpiscope__a2a_leaders_t *s)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    int common = 0, smallest = a->nprocs, d = 1;

    for (int n = 0; n < nd->count; n++) {
        common = gcd(common, nd->node_size[n]);
        smallest = nd->node_size[n] < smallest ? nd->node_size[n] : smallest;
    }
    if (scheme == PLP) {
        d = a->params.leaders ? a->params.leaders
                              : mpiscope__a2a_plp_choose(smallest, common, a->block, a->params.size_crit_bytes);
        if (common % d != 0)
            return MPISCOPE_EINVAL; /* d divides every node's count iff it divides their gcd */
    }
    s->max_leaders = 0;
    for (int n = 0; n < nd->count; n++) {
        s->leaders_of[n] = scheme == ONE_LEADER ? 1 : scheme == M_LEADER ? nd->node_size[n] : d;
        s->group_of[n] = nd->node_size[n] / s->leaders_of[n];
        if (s->leaders_of[n] > s->max_leaders)
            s->max_leaders = s->leaders_of[n];
    }
    a->leaders = s->leaders_of[nd->node];
    return 0;
}

/* B (padded to the largest group and node, see leaders.h) and the exchange. */
static int choose_exchange(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t largest_group = 0, largest_node = 0;

    for (int n = 0; n < nd->count; n++) {
        largest_group = (size_t)s->group_of[n] > largest_group ? (size_t)s->group_of[n] : largest_group;
        largest_node = (size_t)nd->node_size[n] > largest_node ? (size_t)nd->node_size[n] : largest_node;
    }
    if (!mpiscope__a2a_fits_int(largest_group * largest_node, a->block))
        return MPISCOPE_ERANGE;
    s->inter_block = largest_group * largest_node * a->block;
    s->inter = a->params.inter;
    if (s->inter == MPISCOPE_ALLTOALL_INTER_AUTO)
        s->inter = s->inter_block <= a->params.size_crit_bytes ? MPISCOPE_ALLTOALL_INTER_BRUCK
                                                               : MPISCOPE_ALLTOALL_INTER_PAIRWISE;
    return 0;
}

/* This rank's group, and the leader indices it serves (as a group's leader). */
static void place(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    int d = s->leaders_of[nd->node], e = s->group_of[nd->node];

    s->group = nd->local_rank / e;
    s->member = nd->local_rank % e;
    s->leader_local = s->group * e;
    s->n_slots = 0;
    if (s->member == 0)
        for (int g = s->group; g < s->max_leaders; g += d)
            s->n_slots++;
    for (int n = 0; n < nd->count; n++) {
        const int *m = nd->members + nd->node_offset[n];
        s->consecutive[n] = 1;
        for (int t = 1; t < nd->node_size[n]; t++)
            s->consecutive[n] &= m[t] == m[0] + t;
    }
}

/* Everything local, before any collective call. */
static int allocate(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t stage = (size_t)nd->count * s->inter_block;
    int p2p = a->params.aggregate == MPISCOPE_ALLTOALL_AGGREGATE_P2P, rc = 0;
    size_t n_requests =
        1 + (size_t)s->group_of[nd->node] + (size_t)s->max_leaders + (size_t)s->n_slots * (size_t)nd->local_size;

    s->slots = calloc((size_t)s->n_slots + 1, sizeof *s->slots);
    s->segment = calloc((size_t)nd->local_size, sizeof *s->segment);
    s->requests = malloc(n_requests * sizeof *s->requests);
    if (!s->slots || !s->segment || !s->requests)
        return MPISCOPE_ENOMEM;
    for (int i = 0; i < s->n_slots; i++) {
        mpiscope__a2a_slot_t *sl = &s->slots[i];
        sl->index = s->group + i * s->leaders_of[nd->node];
        sl->comm = MPI_COMM_NULL;
        if (!rc && s->inter == MPISCOPE_ALLTOALL_INTER_BRUCK)
            rc = mpiscope__a2a_bruck_alloc(nd->count, s->inter_block, &sl->bruck);
        if (!rc && p2p && (!(sl->sstage = calloc(stage + 1, 1)) || !(sl->rstage = calloc(stage + 1, 1))))
            rc = MPISCOPE_ENOMEM;
    }
    return rc;
}

/* One MPI_Comm_split: color `index` (or none), ordered by node. */
static int split_once(mpiscope_alltoall_t *a, int index, MPI_Comm *out)
{
    MPI_Comm comm;

    if (MPI_Comm_split(a->comm, index >= 0 ? index : MPI_UNDEFINED, a->nodes.node, &comm) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    if (out)
        *out = comm;
    return 0;
}

/* One communicator per leader index: the ranks serving it, ordered by node.
 * With as many leaders on every node, each rank serves at most one index:
 * one split. Else (m_leader on uneven nodes) one split per index. */
static int split_leaders(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    int uniform = 1, d = s->leaders_of[a->nodes.node], rc = 0;

    for (int n = 0; n < a->nodes.count; n++)
        uniform &= s->leaders_of[n] == s->max_leaders;
    if (uniform)
        return split_once(a, s->n_slots ? s->slots[0].index : -1, s->n_slots ? &s->slots[0].comm : NULL);
    for (int g = 0; !rc && g < s->max_leaders; g++) {
        int serves = s->member == 0 && g % d == s->group;
        rc = split_once(a, serves ? g : -1, serves ? &s->slots[g / d].comm : NULL);
    }
    return rc;
}

/* The node's window: every leader's segment holds its slots' two stages
 * (ranks serving no slot have none). Local rank 0 allocates all segments
 * in one piece and every rank finds each at its offset (sizes gathered
 * once): only MPI_Win_shared_query of rank 0 is relied on (SimGrid SMPI
 * 3.32 answers the other ranks' queries wrongly: m_leader and plp read
 * wrong data there). */
static int shared_window(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t stage = (size_t)nd->count * s->inter_block, bytes = 2 * stage * (size_t)s->n_slots;
    MPI_Aint mine = (MPI_Aint)bytes, sizes[nd->local_size]; /* a node's ranks: a few hundred at most */
    size_t whole = 0, offset = 0;
    unsigned char *base, *first;
    MPI_Aint size;
    int unit, rc;

    rc = mpiscope__allgather(&mine, 1, MPI_AINT, sizes, nd->node_comm);
    for (int t = 0; t < nd->local_size; t++)
        whole += (size_t)sizes[t];
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_allocate_shared((MPI_Aint)(nd->local_rank == 0 ? whole : 0), 1, MPI_INFO_NULL, nd->node_comm,
                                     &base, &s->win);
    if (rc != MPI_SUCCESS) {
        s->win = MPI_WIN_NULL;
        return MPISCOPE_ENOTSUP;
    }
    MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN);
    if (MPI_Win_shared_query(s->win, 0, &size, &unit, &first) != MPI_SUCCESS || (size_t)size < whole)
        return MPISCOPE_ENOTSUP;
    for (int t = 0; t < nd->local_size; t++) {
        s->segment[t] = first + offset;
        offset += (size_t)sizes[t];
    }
    base = s->segment[nd->local_rank];
    if (bytes)
        memset(base, 0, bytes); /* the padding is sent too: no uninitialized bytes */
    for (int i = 0; i < s->n_slots; i++) {
        s->slots[i].sstage = base + 2 * stage * (size_t)i;
        s->slots[i].rstage = s->slots[i].sstage + stage;
    }
    if (MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    s->locked = 1;
    return 0;
}

static int leaders_create(mpiscope_alltoall_t *a, int scheme)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    mpiscope__a2a_leaders_t *s = calloc(1, sizeof *s);
    int rc;

    if (!(a->state = s))
        return MPISCOPE_ENOMEM;
    s->win = MPI_WIN_NULL;
    s->from_send = MPI_DATATYPE_NULL;
    s->leaders_of = malloc((size_t)nd->count * sizeof(int));
    s->group_of = malloc((size_t)nd->count * sizeof(int));
    s->consecutive = malloc((size_t)nd->count * sizeof(int));
    rc = s->leaders_of && s->group_of && s->consecutive ? 0 : MPISCOPE_ENOMEM;
    if (!rc && !(rc = choose_leaders(a, scheme, s)) && !(rc = choose_exchange(a, s))) {
        place(a, s);
        rc = allocate(a, s);
    }
    /* the same verdict everywhere before the collective calls */
    if (MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, a->comm) != MPI_SUCCESS)
        rc = MPISCOPE_EMPI;
    if (rc || (rc = split_leaders(a, s)) != 0)
        return rc;
    if (a->block == 0) /* a 0-byte run is one barrier (api.c): no window, no datatypes (SimGrid
                          SMPI 3.32 crashed freeing zero-length ones) */
        return 0;
    if (a->params.aggregate == MPISCOPE_ALLTOALL_AGGREGATE_P2P)
        return mpiscope__a2a_leaders_types(a, s);
    return shared_window(a, s);
}

static void leaders_destroy(mpiscope_alltoall_t *a)
{
    mpiscope__a2a_leaders_t *s = a->state;

    if (!s)
        return;
    if (s->locked)
        MPI_Win_unlock_all(s->win);
    if (s->win != MPI_WIN_NULL)
        MPI_Win_free(&s->win);
    mpiscope__a2a_leaders_types_free(a, s);
    for (int i = 0; s->slots && i < s->n_slots; i++) {
        if (s->slots[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&s->slots[i].comm);
        mpiscope__a2a_bruck_release(&s->slots[i].bruck);
        if (a->params.aggregate == MPISCOPE_ALLTOALL_AGGREGATE_P2P) {
            free(s->slots[i].sstage);
            free(s->slots[i].rstage);
        }
    }
    free(s->slots);
    free(s->segment);
    free(s->requests);
    free(s->leaders_of);
    free(s->group_of);
    free(s->consecutive);
    free(s);
    a->state = NULL;
}

static int one_leader_create(mpiscope_alltoall_t *a)
{
    return leaders_create(a, ONE_LEADER);
}

static int m_leader_create(mpiscope_alltoall_t *a)
{
    return leaders_create(a, M_LEADER);
}

static int plp_create(mpiscope_alltoall_t *a)
{
    return leaders_create(a, PLP);
}

#define LEADER_IMPL(NAME, CREATE, DESCRIPTION)                                                                         \
    const mpiscope__a2a_impl_t mpiscope__a2a_##NAME = {                                                                \
        .info = {.name = #NAME, .op_name = "alltoall_" #NAME, .description = DESCRIPTION, .leader_based = 1},          \
        .create = CREATE,                                                                                              \
        .run = mpiscope__a2a_leaders_run,                                                                              \
        .destroy = leaders_destroy,                                                                                    \
    };

LEADER_IMPL(one_leader, one_leader_create,
            "one leader per node: gather the node's blocks, one exchange among N leaders, scatter")
LEADER_IMPL(m_leader, m_leader_create, "every rank a leader for its own blocks: M concurrent exchanges among N ranks")
LEADER_IMPL(plp, plp_create,
            "PLP: d leaders per node (the seed's rule: Bruck stays or ring with most leaders), "
            "groups of M/d ranks")
