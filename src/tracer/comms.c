/* comms.c: communicator definitions, so that the reader can translate a
 * record's (communicator, peer rank) to trace ranks and match messages.
 *
 * A new communicator gets an id that is the same on all its members:
 * duplicates derive it from their parent (dup is collective over the whole
 * parent, so the n-th duplicate of a parent is the same everywhere); other
 * constructors agree on it with one allgather on the new communicator,
 * which also gives the members. That allgather runs after the exit stamp
 * of the constructor, through PMPI, while every member is in the wrapper. */
#include <pthread.h>
#include <stdlib.h>
#include "trace_call.h"

static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void add_comm(uint64_t handle, uint64_t id, uint64_t created, uint32_t flags, int n, int32_t *members)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    pthread_mutex_lock(&comms_lock);
    size_t n_before = atomic_load_explicit(&p->ncomms, memory_order_relaxed);
    if (n_before == p->comms_cap) {
        size_t cap = p->comms_cap ? 2 * p->comms_cap : 16;
        mpiscope__trace_comm_t *grown = realloc(p->comms, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&comms_lock);
            free(members);
            mpiscope__trace_warn("out of memory: a communicator is not recorded");
            return;
        }
        p->comms = grown;
        p->comms_cap = cap;
    }
    p->comms[n_before] = (mpiscope__trace_comm_t){
        .handle = handle, .id = id, .created = created, .flags = flags, .size = (uint32_t)n, .members = members};
    atomic_store_explicit(&p->ncomms, n_before + 1, memory_order_release);
    mpiscope__trace_stream_comm(&p->comms[n_before]);
    pthread_mutex_unlock(&comms_lock);
}

/* The latest definition of a handle (handles are reused after a free). */
static mpiscope__trace_comm_t *find_comm(uint64_t handle)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    for (size_t i = atomic_load_explicit(&p->ncomms, memory_order_relaxed); i-- > 0;)
        if (p->comms[i].handle == handle)
            return &p->comms[i];
    return NULL;
}

static int32_t *members_copy(const int32_t *from, int n)
{
    int32_t *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
    if (m)
        for (int i = 0; i < n; i++)
            m[i] = from[i];
    return m;
}

/* One allgather of (trace rank, counter) pairs over the (remote) group. */
static int32_t *gather_pairs(MPI_Comm comm, int n, const int32_t mine[2])
{
    int32_t *pairs = malloc((size_t)n * 2 * sizeof *pairs);
    if (pairs && PMPI_Allgather(mine, 2, MPI_INT32_T, pairs, 2, MPI_INT32_T, comm) != MPI_SUCCESS) {
        free(pairs);
        pairs = NULL;
    }
    return pairs;
}

static void agree(uint64_t handle, uint64_t created, MPI_Comm comm)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    int32_t counter = (int32_t)(atomic_fetch_add_explicit(&p->comm_counter, 1, memory_order_relaxed) + 1);
    int32_t mine[2] = {p->rank, counter};
    int32_t *pairs = gather_pairs(comm, n, mine);
    if (!pairs) {
        mpiscope__trace_warn("cannot agree on a communicator id: its messages stay unmatched");
        add_comm(handle, mix(((uint64_t)p->rank << 32) | (uint32_t)mine[1]), created, MPISCOPE__TRACE_COMM_F_LOCAL, 0,
                 NULL);
        return;
    }
    uint64_t first = ((uint64_t)(uint32_t)pairs[0] << 32) | (uint32_t)pairs[1];
    uint64_t id = mix(first);
    if (inter) {
        /* Tell the remote group whom we saw as its leader: we learn ours. */
        int32_t *back = gather_pairs(comm, n, pairs);
        if (back) {
            uint64_t own = ((uint64_t)(uint32_t)back[0] << 32) | (uint32_t)back[1];
            id = mix(first < own ? first ^ mix(own) : own ^ mix(first));
            free(back);
        }
    }
    int32_t *members = malloc((size_t)(n > 0 ? n : 1) * sizeof *members);
    if (members)
        for (int i = 0; i < n; i++)
            members[i] = pairs[2 * i];
    free(pairs);
    add_comm(handle, id, created, inter ? MPISCOPE__TRACE_COMM_F_INTER : 0, members ? n : 0, members);
}

void mpiscope__trace_comm_created(mpiscope__trace_call_t *c, int how, MPI_Comm parent, MPI_Comm comm)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (comm == MPI_COMM_NULL || !p->started)
        return;
    uint64_t handle = MPISCOPE__H(comm), created = c->r->t_exit ? c->r->t_exit : mpiscope__trace_stamp();
    if (how == MPISCOPE__TRACE_COMM_DUP) {
        pthread_mutex_lock(&comms_lock);
        mpiscope__trace_comm_t *from = find_comm(MPISCOPE__H(parent));
        uint64_t id = 0, size = 0, flags = 0;
        int32_t *members = NULL;
        if (from) {
            id = mix(from->id ^ mix(++from->dups));
            size = from->size;
            flags = from->flags;
            members = members_copy(from->members, (int)from->size);
        }
        pthread_mutex_unlock(&comms_lock);
        if (from) {
            add_comm(handle, id, created, (uint32_t)flags, members ? (int)size : 0, members);
            return;
        }
        how = MPISCOPE__TRACE_COMM_LOCAL;
    }
    if (how == MPISCOPE__TRACE_COMM_AGREE) {
        agree(handle, created, comm);
        return;
    }
    uint64_t id = mix(((uint64_t)p->rank << 32)
                      | (uint32_t)(atomic_fetch_add_explicit(&p->comm_counter, 1, memory_order_relaxed) + 1))
                  | 1;
    add_comm(handle, id, created, MPISCOPE__TRACE_COMM_F_LOCAL, 0, NULL);
}

void mpiscope__trace_comms_predefined(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (!p->world)
        return; /* the session model has no predefined communicators */
    {
        MPI_Comm world = MPI_COMM_WORLD;
        int32_t *members = malloc((size_t)p->nprocs * sizeof *members);
        if (members)
            for (int i = 0; i < p->nprocs; i++)
                members[i] = i;
        add_comm(MPISCOPE__H(world), 1, 0, 0, members ? p->nprocs : 0, members);
    }
    MPI_Comm self = MPI_COMM_SELF;
    int32_t me = p->rank;
    add_comm(MPISCOPE__H(self), mix(((uint64_t)2 << 40) | (uint32_t)p->rank), 0, MPISCOPE__TRACE_COMM_F_LOCAL, 1,
             members_copy(&me, 1));
}
