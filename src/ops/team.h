/* team.h (internal to src/ops): the threads of one rank for one point,
 * made in initialize and joined in finalize, so that no thread is created
 * inside a timed launch. A launch runs `work` once on every thread of the
 * team at once (thread 0 is the caller's, the others wait for it) and
 * returns when all are through; each thread's own duration, read with
 * mpiscope_timer_now_ns() around its work, goes to the op's parts
 * (mpiscope_op_ctx_parts), one per thread.
 *
 * A waiting thread spins on one atomic for a while, then yields the CPU
 * between looks (sched_yield): more threads than cores, which 2 ranks of
 * 2 threads on 2 cores are, must not starve the thread that works. */
#ifndef MPISCOPE_OPS_TEAM_H
#define MPISCOPE_OPS_TEAM_H

#include <stddef.h>
#include "mpiscope/op.h"

/* One thread's work in one launch: 0 or an MPI error code. */
typedef int (*mpiscope__team_work_t)(void *arg, int thread);

typedef struct mpiscope__team mpiscope__team_t;

/* Start n - 1 threads (n >= 1; n == 1: the caller alone) that will run
 * work(arg, t), t = 1..n-1, at every launch. 0, MPISCOPE_ENOMEM, or
 * MPISCOPE_ENOTSUP (threads cannot be made here: SimGrid SMPI). */
int mpiscope__team_create(int n, mpiscope__team_work_t work, void *arg, mpiscope__team_t **out);

/* One launch: every thread runs its work once; thread t's duration goes
 * to part_ns[t] (when part_ns is not NULL). Returns MPI_SUCCESS or the
 * first thread's error code. */
int mpiscope__team_run(mpiscope__team_t *team, double *part_ns);

/* Stop and join the threads (NULL: nothing). */
void mpiscope__team_free(mpiscope__team_t *team);

/* The op needs MPI_THREAD_MULTIPLE for `threads` > 1: 0, or a refusal
 * naming the level granted (mpiscope_op_ctx_refuse, MPISCOPE_ENOTSUP). */
int mpiscope__team_check_level(mpiscope_op_ctx_t *ctx, int threads);

#endif
