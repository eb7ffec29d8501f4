/* cancel.c: sends and a receive taken back by MPI_Cancel, between real
 * messages on the same channels (tests/python/test_trace_cancel.py).
 * The sends are cancelled as mpi4py's testCancel does: MPI_Issend to
 * itself on MPI_COMM_SELF (MPICH 5.0 cancels no send to another process),
 * MPI_Cancel, the outcome from MPI_Request_get_status and
 * MPI_Test_cancelled, then MPI_Request_free; one more learns it from
 * MPI_Test's status. A send whose cancel fails is received, so the program
 * runs on any MPI. Rank 0 prints how many operations were cancelled on all
 * ranks. Two ranks. */
#include <mpi.h>
#include <stdio.h>

#define BIG 100
#define TAG 7

static int buf[BIG], in[BIG];

/* MPI_Issend of BIG ints, cancelled; 1 if the cancel succeeded (the
 * request is freed), 0 if the message went (the request still open). */
static int cancel_send(int dest, MPI_Comm comm, MPI_Request *req)
{
    MPI_Status st;
    int flag = 0, cancelled = 0;
    MPI_Issend(buf, BIG, MPI_INT, dest, TAG, comm, req);
    MPI_Cancel(req);
    MPI_Request_get_status(*req, &flag, &st);
    if (flag)
        MPI_Test_cancelled(&st, &cancelled);
    if (cancelled)
        MPI_Request_free(req);
    return cancelled;
}

/* Real messages of 1, 2, 3 ints from `from` to `to` (to itself: Isend + Recv). */
static void messages(MPI_Comm comm, int rank, int from, int to)
{
    for (int k = 1; k <= 3; k++) {
        MPI_Request req;
        if (rank == from && rank == to) {
            MPI_Isend(buf, k, MPI_INT, to, TAG, comm, &req);
            MPI_Recv(in, BIG, MPI_INT, from, TAG, comm, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (rank == from) {
            MPI_Send(buf, k, MPI_INT, to, TAG, comm);
        } else if (rank == to) {
            MPI_Recv(in, BIG, MPI_INT, from, TAG, comm, MPI_STATUS_IGNORE);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int counts[2] = {0, 0}; /* sends, receives cancelled */
    MPI_Request req;
    MPI_Status st;
    int cancelled, flag = 0;

    /* to itself, as mpi4py's testCancel (twice), then real messages */
    for (int k = 0; k < 2; k++) {
        if (cancel_send(0, MPI_COMM_SELF, &req)) {
            counts[0]++;
        } else {
            MPI_Recv(in, BIG, MPI_INT, 0, TAG, MPI_COMM_SELF, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    messages(MPI_COMM_SELF, 0, 0, 0);

    /* the same, the outcome from MPI_Test */
    MPI_Issend(buf, BIG, MPI_INT, 0, TAG, MPI_COMM_SELF, &req);
    MPI_Cancel(&req);
    for (int k = 0; k < 1000 && !flag; k++)
        MPI_Test(&req, &flag, &st);
    if (!flag) {
        MPI_Recv(in, BIG, MPI_INT, 0, TAG, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        MPI_Wait(&req, &st);
    }
    MPI_Test_cancelled(&st, &cancelled);
    counts[0] += cancelled;
    messages(MPI_COMM_SELF, 0, 0, 0);

    /* to the other rank: it receives the send only if the cancel failed */
    int peer = 1 - rank, went = 0;
    if (rank == 0) {
        cancelled = cancel_send(peer, MPI_COMM_WORLD, &req);
        counts[0] += cancelled;
        went = !cancelled;
        MPI_Send(&went, 1, MPI_INT, peer, 99, MPI_COMM_WORLD);
        if (went)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&went, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (went)
            MPI_Recv(in, BIG, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    messages(MPI_COMM_WORLD, rank, 0, 1);

    /* a receive nobody sends to, cancelled; its outcome from MPI_Wait */
    MPI_Irecv(in, BIG, MPI_INT, peer, 42, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    counts[1] += cancelled;
    messages(MPI_COMM_WORLD, rank, 1, 0);

    int total[2];
    MPI_Reduce(counts, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("cancel: %d sends and %d receives cancelled\n", total[0], total[1]);
    MPI_Finalize();
    return size == 2 ? 0 : 1;
}
