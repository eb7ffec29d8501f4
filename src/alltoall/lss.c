/* lss.c: the seed's LSS (less synchronization steps) Alltoall in MPI-3 RMA
 * form (docs/alltoall-lss.md).
 *
 * A ring: in step k (1..p-1) rank i puts its block for t = (i+k) % p into
 * t's receive buffer at offset i * block. The receive buffers are exposed
 * through one dynamic window (created once, with one passive-target epoch,
 * MPI_Win_lock_all, open for the object's whole life); a run attaches its
 * recv (kept attached while the same recv comes again) and the senders
 * need its address. Handshakes spread the addresses: in step k <= s rank i
 * exchanges what it knows with i+k and i-k, so after step k it knows the
 * ranks i-T..i+T, T = k(k+1)/2 (1 + k(k+1) addresses, the seed's count);
 * s is the first step with 1 + s(s+1) >= p, after it no handshake is
 * needed. An address reaches i only through this run's messages, sent
 * after its owner entered the run and synchronized its window: knowing it
 * means the owner's recv is ready for puts.
 *
 * Completion, and the MPI semantics relied on (MPI-3.1 sections 11.5.4,
 * 11.7): MPI_Win_flush_all returns when all our puts are complete at their
 * targets; the MPI_Barrier after it orders every rank's flush before every
 * rank's return; the target's MPI_Win_sync then makes the updates of the
 * public window copy visible in its private copy (separate model) and is a
 * memory barrier (unified model), so plain loads of recv see the data in
 * either MPI_WIN_MODEL. At the start of a run MPI_Win_sync orders the
 * user's stores to recv (e.g. a poison) before any put. The seed's
 * sentinel in the last 64 bits of a block is NOT used: MPI orders neither
 * the bytes of one put nor polls of window memory without MPI_Win_sync
 * and the unified model. Sync messages per rank and run: 2s handshake
 * messages (1 when i+k and i-k are the same rank) plus the barrier's
 * ceil(log2 p), against 3(p-1) RTS/CTS/FIN for a rendezvous ring. */
#include "a2a.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { LSS_TAG = 0x4c53 }; /* + step; the object's own communicator */

typedef struct lss_state {
    MPI_Win win; /* dynamic, locked (lock_all) from create to destroy */
    int locked;
    void *attached;           /* recv currently attached (NULL: none) */
    int steps_with_handshake; /* s */
    MPI_Aint *address;        /* [p] recv address of each rank, this run */
    unsigned char *known;     /* [p] 1: address[r] was learnt this run */
    MPI_Aint *out;            /* [p] what we tell our two partners */
    MPI_Aint *in[2];          /* [p] what they tell us */
} lss_state_t;

static int mpi(int rc)
{
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

/* T(k) = k(k+1)/2: how far each side a rank knows after k handshake steps. */
static long reach(int k)
{
    return (long)k * (k + 1) / 2;
}

/* The addresses a rank knows before step k: ranks center-R .. center+R
 * (all p when 2R+1 >= p), listed from centre-R. */
static int known_count(int k, int p)
{
    long r = reach(k - 1);
    return 2 * r + 1 >= p ? p : (int)(2 * r + 1);
}

static int first_listed(int center, int k, int p)
{
    long r = reach(k - 1) % p;
    return (int)((center - r + p) % p);
}

static void lss_destroy(mpiscope_alltoall_t *a);

static int lss_create(mpiscope_alltoall_t *a)
{
    lss_state_t *s = calloc(1, sizeof *s);
    size_t p = (size_t)a->nprocs;
    int rc = 0;

    if ((a->state = s)) {
        s->win = MPI_WIN_NULL;
        while (1 + (long)s->steps_with_handshake * (s->steps_with_handshake + 1) < a->nprocs)
            s->steps_with_handshake++;
        s->address = malloc(p * sizeof *s->address);
        s->known = malloc(p);
        s->out = malloc(p * sizeof *s->out);
        s->in[0] = malloc(p * sizeof *s->in[0]);
        s->in[1] = malloc(p * sizeof *s->in[1]);
    }
    if (a->block > (size_t)INT_MAX)
        rc = MPISCOPE_ERANGE;
    else if (!s || !s->address || !s->known || !s->out || !s->in[0] || !s->in[1])
        rc = MPISCOPE_ENOMEM;
    /* one verdict before the collective window: all ranks make it or none */
    if (MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, a->comm) != MPI_SUCCESS)
        rc = MPISCOPE_EMPI;
    if (rc == 0)
        rc = mpi(MPI_Win_create_dynamic(MPI_INFO_NULL, a->comm, &s->win));
    /* NOCHECK: nobody ever takes an exclusive lock on this window */
    if (rc == 0 && (rc = mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win))) == 0)
        s->locked = 1;
    if (rc)
        lss_destroy(a); /* a->state is NULL again: a later destroy is harmless */
    return rc;
}

static void lss_destroy(mpiscope_alltoall_t *a)
{
    lss_state_t *s = a->state;

    if (!s)
        return;
    if (s->locked)
        MPI_Win_unlock_all(s->win);
    if (s->attached)
        MPI_Win_detach(s->win, s->attached);
    if (s->win != MPI_WIN_NULL)
        MPI_Win_free(&s->win);
    free(s->address);
    free(s->known);
    free(s->out);
    free(s->in[0]);
    free(s->in[1]);
    free(s);
    a->state = NULL;
}

/* Expose recv: the previous run's recv stays attached if it comes again.
 * Detaching it is safe: every put into it completed before the last run's
 * barrier. */
static int expose(lss_state_t *s, void *recv, size_t bytes)
{
    int rc;

    if (s->attached == recv)
        return 0;
    if (s->attached && (rc = mpi(MPI_Win_detach(s->win, s->attached))) != 0)
        return rc;
    s->attached = NULL;
    if ((rc = mpi(MPI_Win_attach(s->win, recv, (MPI_Aint)bytes))) != 0)
        return rc;
    s->attached = recv;
    return 0;
}

static void learn(lss_state_t *s, const MPI_Aint *table, int center, int k, int p)
{
    int first = first_listed(center, k, p), count = known_count(k, p);

    for (int t = 0; t < count; t++) {
        int r = (first + t) % p;
        s->address[r] = table[t];
        s->known[r] = 1;
    }
}

/* Step k's handshake: send what we know to i+k and i-k, learn what they know. */
static int handshake(mpiscope_alltoall_t *a, lss_state_t *s, int k)
{
    int p = a->nprocs, up = (a->rank + k) % p, down = (a->rank - k + p) % p;
    int first = first_listed(a->rank, k, p), count = known_count(k, p), partners = up == down ? 1 : 2;
    int partner[2] = {up, down};
    MPI_Request req[4];

    for (int t = 0; t < count; t++) {
        int r = (first + t) % p;
        if (!s->known[r])
            return MPISCOPE_EINVAL; /* cannot happen: the known set is [i-T, i+T] */
        s->out[t] = s->address[r];
    }
    for (int j = 0; j < partners; j++) {
        if (MPI_Irecv(s->in[j], count, MPI_AINT, partner[j], LSS_TAG + k, a->comm, &req[j]) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    for (int j = 0; j < partners; j++) {
        if (MPI_Isend(s->out, count, MPI_AINT, partner[j], LSS_TAG + k, a->comm, &req[partners + j]) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    if (MPI_Waitall(2 * partners, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    for (int j = 0; j < partners; j++)
        learn(s, s->in[j], partner[j], k, p);
    return 0;
}

static int lss_run(mpiscope_alltoall_t *a, const void *send, void *recv)
{
    lss_state_t *s = a->state;
    int p = a->nprocs, me = a->rank, count = (int)a->block, rc;
    const char *from = send;

    if ((rc = expose(s, recv, (size_t)p * a->block)) != 0 || (rc = mpi(mpiscope__a2a_win_sync(s->win))) != 0
        || (rc = mpi(MPI_Get_address(recv, &s->address[me]))) != 0)
        return rc;
    memset(s->known, 0, (size_t)p);
    s->known[me] = 1;
    memcpy((char *)recv + (size_t)me * a->block, from + (size_t)me * a->block, a->block);
    for (int k = 1; k < p; k++) {
        int target = (me + k) % p;
        MPI_Aint disp;

        if (k <= s->steps_with_handshake && (rc = handshake(a, s, k)) != 0)
            return rc;
        if (!s->known[target])
            return MPISCOPE_EINVAL; /* cannot happen: T(k) >= k */
        disp = MPI_Aint_add(s->address[target], (MPI_Aint)((size_t)me * a->block));
        if (MPI_Put(from + (size_t)target * a->block, count, MPI_BYTE, target, disp, count, MPI_BYTE, s->win)
            != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    if ((rc = mpi(MPI_Win_flush_all(s->win))) != 0 || (rc = mpi(MPI_Barrier(a->comm))) != 0)
        return rc;
    return mpi(mpiscope__a2a_win_sync(s->win));
}

const mpiscope__a2a_impl_t mpiscope__a2a_lss = {
    .info = {.name = "lss",
             .op_name = "alltoall_lss",
             .description = "ring of MPI_Put into a dynamic window; addresses spread by sqrt(p) handshake "
                            "steps, completion by one flush_all + barrier (no FIN per block)",
             .leader_based = 0},
    .create = lss_create,
    .run = lss_run,
    .destroy = lss_destroy,
};
