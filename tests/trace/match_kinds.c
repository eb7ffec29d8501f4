/* match_kinds.c: every kind of communication the trace matcher links
 * besides point-to-point messages, with a ground truth the test knows from
 * the number of ranks n (tests/python/test_trace_match_kinds.py):
 *
 * collectives on MPI_COMM_WORLD, in this order: MPI_Ibarrier (Wait),
 *   MPI_Bcast, MPI_Ibcast x2 (Waitall), MPI_Iallreduce (a Test loop),
 *   MPI_Allreduce_init started 3 times (Start, Wait; Startall, Wait);
 *   on a communicator of all ranks in reverse order: MPI_Iallreduce;
 *   on a periodic 1-D Cartesian communicator: MPI_Ineighbor_allgather;
 * one-sided, on a window of MPI_COMM_WORLD:
 *   fence epoch: each rank puts to r+1 and gets from r-1 (2n transfers);
 *   PSCW: rank 0 puts twice to rank 1 (2);
 *   lock: rank 0 puts to and accumulates on rank 1 (2);
 *   lock_all: each rank Rputs to r+1 (flushed), fetch-and-ops r+1 (2n);
 *   on a window of the reversed communicator: each rank puts to its rank 0,
 *   world rank n-1, in a fence epoch (n);
 *   on a dynamic window: each rank puts to r+1 in a fence epoch (n);
 * partitioned: rank 0 sends 4 partitions to rank 1, 3 rounds.
 * With --paused, a last window is created while the tracer is paused
 * (MPI_Pcontrol(0)) and rank 0 puts to rank 1 on it: that transfer cannot
 * be matched (the window's creation, hence its group, is not in the
 * trace). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PARTS 4
#define ROUNDS 3

static void collectives(int rank, int n, MPI_Comm rev)
{
    int v = rank, sum = 0, w[2] = {1, 2};
    MPI_Request req[2];
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Ibcast(&w[0], 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Ibcast(&w[1], 1, MPI_INT, n - 1, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    for (int done = 0; !done;)
        MPI_Test(&req[0], &done, MPI_STATUS_IGNORE);
    MPI_Request p;
    MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            MPI_Startall(1, &p);
        else
            MPI_Start(&p);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&p);
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, rev, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Comm ring;
    int dims[1] = {n}, periods[1] = {1}, both[2];
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Ineighbor_allgather(&v, 1, MPI_INT, both, 1, MPI_INT, ring, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Comm_free(&ring);
}

static void one_sided(int rank, int n, MPI_Comm rev)
{
    int buf[8] = {0}, src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, got = 0, old = 0, one = 1;
    int next = (rank + 1) % n, prev = (rank + n - 1) % n;
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&src[0], 1, MPI_INT, next, 0, 1, MPI_INT, win);
    MPI_Get(&got, 1, MPI_INT, prev, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);

    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (rank == 0 || rank == 1) {
        int other = 1 - rank;
        MPI_Group_incl(world, 1, &other, &peer);
        if (rank == 0) {
            MPI_Win_start(peer, 0, win);
            MPI_Put(&src[1], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
            MPI_Put(&src[2], 1, MPI_INT, 1, 3, 1, MPI_INT, win);
            MPI_Win_complete(win);
        } else {
            MPI_Win_post(peer, 0, win);
            MPI_Win_wait(win);
        }
        MPI_Group_free(&peer);
    }
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&src[3], 1, MPI_INT, 1, 4, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Request r;
    MPI_Rput(&src[4], 1, MPI_INT, next, 6, 1, MPI_INT, win, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Win_flush(next, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, next, 7, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    int *mem;
    MPI_Win rwin;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, rev, &mem, &rwin);
    MPI_Win_fence(0, rwin);
    MPI_Put(&src[6], 1, MPI_INT, 0, 0, 1, MPI_INT, rwin);
    MPI_Win_fence(0, rwin);
    MPI_Win_free(&rwin);

    MPI_Win dwin;
    int target = 0;
    MPI_Aint mine, addr[64];
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin);
    MPI_Win_attach(dwin, &target, sizeof target);
    MPI_Get_address(&target, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_fence(0, dwin);
    MPI_Put(&src[7], 1, MPI_INT, next, addr[next], 1, MPI_INT, dwin);
    MPI_Win_fence(0, dwin);
    MPI_Win_detach(dwin, &target);
    MPI_Win_free(&dwin);
}

static void paused_window(int rank)
{
    int buf = 0, v = 1;
    MPI_Win win;
    MPI_Pcontrol(0);
    MPI_Win_create(&buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Pcontrol(1);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
}

static void partitioned(int rank)
{
    double data[PARTS * 8] = {0};
    MPI_Request req;
    if (rank == 0)
        MPI_Psend_init(data, PARTS, 8, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else if (rank == 1)
        MPI_Precv_init(data, PARTS, 8, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else
        return;
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Start(&req);
        if (rank == 0) {
            for (int i = 0; i < PARTS * 8; i++)
                data[i] = round + i;
            MPI_Pready_range(0, 1, req);
            for (int p = 2; p < PARTS; p++)
                MPI_Pready(p, req);
        } else {
            for (int flag = 0; !flag;)
                MPI_Parrived(req, PARTS - 1, &flag);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
}

int main(int argc, char **argv)
{
    int rank, n, paused = argc > 1 && strcmp(argv[1], "--paused") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &rev);
    collectives(rank, n, rev);
    one_sided(rank, n, rev);
    partitioned(rank);
    if (paused)
        paused_window(rank);
    MPI_Comm_free(&rev);
    if (rank == 0)
        printf("match_kinds: %d ranks done\n", n);
    MPI_Finalize();
    return 0;
}
