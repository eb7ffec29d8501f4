/* leaders_types.c: the datatypes of the leader schemes' p2p hand-over
 * (leaders.h), built once by create so that run only posts messages. All
 * are byte blocks at displacements, relative to the buffer they are used
 * with: send and recv (any buffers: relative displacements), the stages. */
#include <stdlib.h>
#include "leaders.h"

static int commit(MPI_Datatype *type)
{
    return MPI_Type_commit(type) == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

/* Blocks of m bytes at displs[0..count), made and committed. */
static int blocks(int count, size_t m, const MPI_Aint *displs, MPI_Datatype *type)
{
    if (MPI_Type_create_hindexed_block(count, (int)m, displs, MPI_BYTE, type) != MPI_SUCCESS) {
        *type = MPI_DATATYPE_NULL;
        return MPISCOPE_EMPI;
    }
    return commit(type);
}

/* Member j's message (its blocks in [node][local rank] order) into the send stage. */
static int from_member(const mpiscope_alltoall_t *a, const mpiscope__a2a_leaders_t *s, int j, int *lengths,
                       MPI_Aint *displs, MPI_Datatype *type)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;

    for (int n = 0; n < nd->count; n++) {
        size_t size = (size_t)nd->node_size[n] * a->block;
        lengths[n] = (int)size;
        displs[n] = (MPI_Aint)((size_t)n * s->inter_block + (size_t)j * size);
    }
    if (MPI_Type_create_hindexed(nd->count, lengths, displs, MPI_BYTE, type) != MPI_SUCCESS) {
        *type = MPI_DATATYPE_NULL;
        return MPISCOPE_EMPI;
    }
    return commit(type);
}

/* Index g's blocks for local rank t: where they sit in the receive stage
 * (in_stage) or in t's recv (!in_stage), in the same (node, member) order. */
static int index_blocks(const mpiscope_alltoall_t *a, const mpiscope__a2a_leaders_t *s, int g, int t, int in_stage,
                        MPI_Aint *displs, MPI_Datatype *type)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t m = a->block;
    int count = 0;

    for (int n = 0; n < nd->count; n++) {
        if (g >= s->leaders_of[n])
            continue;
        const int *group = nd->members + nd->node_offset[n] + g * s->group_of[n];
        for (int j = 0; j < s->group_of[n]; j++)
            displs[count++] =
                (MPI_Aint)(in_stage ? (size_t)n * s->inter_block + ((size_t)j * (size_t)nd->local_size + (size_t)t) * m
                                    : (size_t)group[j] * m);
    }
    return blocks(count, m, displs, type);
}

static MPI_Datatype *null_types(size_t n)
{
    MPI_Datatype *types = malloc((n + 1) * sizeof *types);
    for (size_t i = 0; types && i < n; i++)
        types[i] = MPI_DATATYPE_NULL;
    return types;
}

int mpiscope__a2a_leaders_types(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    const mpiscope__a2a_nodes_t *nd = &a->nodes;
    size_t p = (size_t)a->nprocs, here = (size_t)nd->local_size;
    int e = s->group_of[nd->node], rc = 0;
    MPI_Aint *displs = malloc(p * sizeof *displs);
    int *lengths = malloc(p * sizeof *lengths);

    s->from_member = null_types((size_t)e);
    s->into_recv = null_types((size_t)s->max_leaders);
    for (int i = 0; i < s->n_slots; i++)
        if (!(s->slots[i].to_member = null_types(here)))
            rc = MPISCOPE_ENOMEM;
    if (!displs || !lengths || !s->from_member || !s->into_recv)
        rc = MPISCOPE_ENOMEM;
    for (size_t k = 0; !rc && k < p; k++)
        displs[k] = (MPI_Aint)((size_t)nd->members[k] * a->block);
    if (!rc)
        rc = blocks(a->nprocs, a->block, displs, &s->from_send);
    for (int j = 0; !rc && s->n_slots && j < e; j++)
        rc = from_member(a, s, j, lengths, displs, &s->from_member[j]);
    for (int g = 0; !rc && g < s->max_leaders; g++)
        rc = index_blocks(a, s, g, nd->local_rank, 0, displs, &s->into_recv[g]);
    for (int i = 0; !rc && i < s->n_slots; i++)
        for (size_t t = 0; !rc && t < here; t++)
            rc = index_blocks(a, s, s->slots[i].index, (int)t, 1, displs, &s->slots[i].to_member[t]);
    free(displs);
    free(lengths);
    return rc;
}

static void free_types(MPI_Datatype *types, size_t n)
{
    for (size_t i = 0; types && i < n; i++)
        if (types[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&types[i]);
    free(types);
}

void mpiscope__a2a_leaders_types_free(mpiscope_alltoall_t *a, mpiscope__a2a_leaders_t *s)
{
    if (s->from_send != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->from_send);
    if (s->from_member)
        free_types(s->from_member, (size_t)s->group_of[a->nodes.node]);
    free_types(s->into_recv, (size_t)s->max_leaders);
    for (int i = 0; s->slots && i < s->n_slots; i++)
        free_types(s->slots[i].to_member, (size_t)a->nodes.local_size);
    s->from_member = s->into_recv = NULL;
}
