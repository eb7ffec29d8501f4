/* team.c: the threads of one rank for one point (team.h). */
#include "team.h"
#include "common.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "environment.h"
#include "mpiscope/timer.h"

enum { SPINS_BEFORE_YIELD = 2000 };

typedef struct member {
    mpiscope__team_t *team;
    int thread;
    pthread_t id;
    int started;
} member_t;

struct mpiscope__team {
    int n;
    mpiscope__team_work_t work;
    void *arg;
    _Atomic unsigned long generation; /* bumped to start a launch */
    _Atomic int quit;
    _Atomic int through; /* threads done with this launch */
    double *part_ns;     /* the current launch's (the op's parts) */
    int *rc;             /* [n] each thread's result this launch */
    member_t *members;   /* [n]; member 0 is the caller's thread */
};

static void wait_a_little(unsigned *spins)
{
    if (++*spins > SPINS_BEFORE_YIELD)
        sched_yield();
}

static void run_one(mpiscope__team_t *team, int t)
{
    double t0 = mpiscope_timer_now_ns();
    team->rc[t] = team->work(team->arg, t);
    double t1 = mpiscope_timer_now_ns();
    if (team->part_ns)
        team->part_ns[t] = t1 - t0;
}

static void *member_main(void *p)
{
    member_t *m = p;
    mpiscope__team_t *team = m->team;
    unsigned long seen = 0;
    for (;;) {
        unsigned spins = 0;
        unsigned long now;
        while ((now = atomic_load_explicit(&team->generation, memory_order_acquire)) == seen
               && !atomic_load_explicit(&team->quit, memory_order_acquire))
            wait_a_little(&spins);
        if (atomic_load_explicit(&team->quit, memory_order_acquire))
            return NULL;
        seen = now;
        run_one(team, m->thread);
        atomic_fetch_add_explicit(&team->through, 1, memory_order_acq_rel);
    }
}

int mpiscope__team_create(int n, mpiscope__team_work_t work, void *arg, mpiscope__team_t **out)
{
    *out = NULL;
    if (n < 1 || !work)
        return MPISCOPE_EINVAL;
#ifdef MPISCOPE_SMPI
    if (n > 1)
        return MPISCOPE_ENOTSUP; /* simulated ranks are threads of one process already */
#endif
    mpiscope__team_t *team = calloc(1, sizeof *team);
    if (!team)
        return MPISCOPE_ENOMEM;
    team->n = n;
    team->work = work;
    team->arg = arg;
    atomic_init(&team->generation, 0);
    atomic_init(&team->quit, 0);
    atomic_init(&team->through, 0);
    team->rc = calloc((size_t)n, sizeof *team->rc);
    team->members = calloc((size_t)n, sizeof *team->members);
    int err = team->rc && team->members ? 0 : MPISCOPE_ENOMEM;
    for (int t = 1; t < n && !err; t++) {
        member_t *m = &team->members[t];
        *m = (member_t){.team = team, .thread = t};
        if (pthread_create(&m->id, NULL, member_main, m) != 0)
            err = MPISCOPE_ENOMEM;
        else
            m->started = 1;
    }
    if (err) {
        mpiscope__team_free(team);
        return err;
    }
    *out = team;
    return 0;
}

int mpiscope__team_run(mpiscope__team_t *team, double *part_ns)
{
    team->part_ns = part_ns;
    atomic_store_explicit(&team->through, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&team->generation, 1, memory_order_acq_rel);
    run_one(team, 0);
    unsigned spins = 0;
    while (atomic_load_explicit(&team->through, memory_order_acquire) < team->n - 1)
        wait_a_little(&spins);
    for (int t = 0; t < team->n; t++)
        if (team->rc[t] != MPI_SUCCESS)
            return team->rc[t];
    return MPI_SUCCESS;
}

void mpiscope__team_free(mpiscope__team_t *team)
{
    if (!team)
        return;
    atomic_store_explicit(&team->quit, 1, memory_order_release);
    for (int t = 1; team->members && t < team->n; t++)
        if (team->members[t].started)
            pthread_join(team->members[t].id, NULL);
    free(team->members);
    free(team->rc);
    free(team);
}

/* Threads of this node's ranks against its CPUs (this process's affinity). */
static void note_cpus(mpiscope_op_ctx_t *ctx, int threads)
{
    MPI_Comm node;
    int local = 1, cpus = 0;
    if (MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
#endif
    if (cpus > 0)
        mpiscope_op_ctx_note(ctx, "cpus", "%d threads per rank x %d ranks on this node, %d CPUs%s", threads, local,
                             cpus, threads * local > cpus ? ": oversubscribed" : "");
}

int mpiscope__team_check_level(mpiscope_op_ctx_t *ctx, int threads)
{
    int level = MPI_THREAD_SINGLE;
    note_cpus(ctx, threads); /* collective: before any refusal */
    if (threads <= 1)
        return 0;
#ifdef MPISCOPE_SMPI
    return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ENOTSUP,
                                  "%s: threads that call MPI are not simulated "
                                  "under SimGrid SMPI",
                                  ctx->op->name);
#endif
    MPI_Query_thread(&level);
    mpiscope_op_ctx_note(ctx, "thread_level", "%s", mpiscope__thread_level_name(level));
    if (level >= MPI_THREAD_MULTIPLE)
        return 0;
    return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ENOTSUP,
                                  "%s with %d threads needs MPI_THREAD_MULTIPLE; the MPI library granted %s",
                                  ctx->op->name, threads, mpiscope__thread_level_name(level));
}
