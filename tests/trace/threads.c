/* threads.c: an MPI_THREAD_MULTIPLE program for the tracer's threads
 * (tests/CMakeLists.txt runs it traced; `make test-sanitize` under
 * ThreadSanitizer). On each of 2 ranks, threads 1..3 exchange ROUNDS
 * messages with the same thread of the other rank, each on a communicator
 * of its own that it duplicates itself (the tracer registers communicators
 * from several threads at once), while thread 0 pauses and resumes the
 * tracer with MPI_Pcontrol (a flag every other thread reads). Each thread
 * fills its record halves many times (run it with few records per half:
 * MPISCOPE_TRACE_RECORDS=64), so halves are packed and written by all
 * threads at once. The main thread joins them and calls MPI_Finalize, which
 * writes what every thread recorded. Prints one line on rank 0:
 *   threads: 2 ranks x 4 threads x 500 rounds: ok
 * and exits 1 (saying why) on a wrong message or an MPI without
 * MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 500, PAUSES = 200 };

typedef struct worker {
    int index, rank, peer;
    MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD made by main, per thread */
    int errors;
} worker_t;

/* Thread 0 of each rank: pauses and resumes tracing, calling only
 * functions that take no lock of the MPI library's (MPICH's MPI_Pcontrol
 * and MPI_Comm_rank): nothing but the tracer's own atomics orders its
 * MPI_Pcontrol with the flag the other threads' calls read. */
static void *control(void *arg)
{
    worker_t *w = arg;
    int me = -1;
    for (int i = 0; i < PAUSES; i++) {
        MPI_Pcontrol(0); /* the calls of every thread go unrecorded until ... */
        for (int k = 0; k < 8; k++)
            MPI_Comm_rank(w->comm, &me);
        MPI_Pcontrol(1); /* ... here */
        for (int k = 0; k < 8; k++)
            MPI_Comm_rank(w->comm, &me);
    }
    w->errors += me != w->rank;
    return NULL;
}

/* Threads 1..: ROUNDS messages with the same thread of the other rank. */
static void *exchange(void *arg)
{
    worker_t *w = arg;
    MPI_Comm mine;
    MPI_Comm_dup(w->comm, &mine); /* collective on w->comm: one thread per rank calls it */
    for (int i = 0; i < ROUNDS; i++) {
        int me = -1;
        for (int k = 0; k < 4; k++)
            MPI_Comm_rank(mine, &me);
        int out = w->rank * 1000000 + w->index * 10000 + i, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, w->peer, i, &in, 1, MPI_INT, w->peer, i, mine, MPI_STATUS_IGNORE);
        w->errors += me != w->rank || in != w->peer * 1000000 + w->index * 10000 + i;
    }
    MPI_Comm_free(&mine);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, errors = 0, all = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            fprintf(stderr, "threads: error: needs MPI_THREAD_MULTIPLE (got %d) and 2 ranks (got %d)\n", provided,
                    size);
        MPI_Finalize();
        return 1;
    }
    worker_t w[THREADS];
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (worker_t){.index = t, .rank = rank, .peer = rank ^ 1};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
    }
    for (int t = 0; t < THREADS; t++)
        if (pthread_create(&tid[t], NULL, t == 0 ? control : exchange, &w[t]) != 0) {
            fprintf(stderr, "threads: error: cannot start thread %d\n", t);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tid[t], NULL);
        errors += w[t].errors;
        MPI_Comm_free(&w[t].comm);
    }
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all)
            fprintf(stderr, "threads: error: %d wrong messages\n", all);
        else
            printf("threads: %d ranks x %d threads x %d rounds: ok\n", size, THREADS, ROUNDS);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
