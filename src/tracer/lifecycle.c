/* lifecycle.c: tracing starts inside MPI_Init, MPI_Init_thread or the first
 * MPI_Session_init, and ends in MPI_Finalize or the last
 * MPI_Session_finalize: clocks are synchronized at both ends and the file
 * is streamed from the start (writer.c); its end is written after the end
 * of MPI. MPI_Abort writes the end before aborting. */
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include "mpiscope/timer.h"
#include "trace_call.h"

mpiscope__trace_proc_t mpiscope__trace_proc = {.comm = MPI_COMM_NULL, .thread_level = -1, .fd = -1};
_Atomic int mpiscope__trace_active;
int mpiscope__trace_stamp_ticks;

static int configured, ending;
static _Atomic int paused;                       /* MPI_Pcontrol may come from any thread */
static mpiscope__trace_thread_t fallback_thread; /* capacity 0: its records are dropped */

void mpiscope__trace_init_begin(mpiscope__trace_call_t *c, unsigned func, void *site)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (!configured) {
        configured = 1;
        mpiscope__trace_config(p);
        if (mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0) != 0)
            mpiscope_timer_init(MPISCOPE_TIMER_MONOTONIC, 0);
        mpiscope_timer_info_t info;
        mpiscope__trace_stamp_ticks = mpiscope_timer_info(&info) == 0 && info.kind == MPISCOPE_TIMER_TSC;
        if (p->early_stamps) { /* milliseconds (config.c) into stamps */
            double ns = (double)p->early_stamps * 1e6;
            p->early_stamps = (uint64_t)(mpiscope__trace_stamp_ticks ? ns / mpiscope__timer.ns_per_tick : ns);
            p->early_stamps += !p->early_stamps;
        }
        atomic_store(&mpiscope__trace_active, !atomic_load(&paused));
    }
    if (!mpiscope__trace_begin(c, func, site)) {
        fallback_thread.depth = 1;
        c->t = &fallback_thread;
        c->r = &fallback_thread.spill;
    }
}

static void make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        mpiscope__trace_warn("cannot create %s", dir);
}

/* Common to both models, once p->comm exists (called with depth 1). */
static void start(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    PMPI_Comm_rank(p->comm, &p->rank);
    PMPI_Comm_size(p->comm, &p->nprocs);
    p->started = 1;
    make_dir(p->dir);
    mpiscope__trace_world_place();
    mpiscope__trace_comms_predefined();
    mpiscope__trace_clock_sync(0);
    p->start_stamp = mpiscope__trace_stamp();
    mpiscope__trace_meta();
    mpiscope__trace_stream_open();
    mpiscope__trace_signals_install();
}

void mpiscope__trace_world_started(mpiscope__trace_call_t *c, int ret, int thread_level)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    (void)c;
    if (ret != MPI_SUCCESS)
        return;
    p->world = 1;
    p->thread_level = thread_level;
    if (p->started)
        return;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &p->comm) != MPI_SUCCESS) {
        mpiscope__trace_warn("cannot duplicate MPI_COMM_WORLD: not tracing");
        atomic_store(&mpiscope__trace_active, 0);
        return;
    }
    start();
}

void mpiscope__trace_session_started(mpiscope__trace_call_t *c, int ret)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    (void)c;
    if (ret != MPI_SUCCESS)
        return;
    p->sessions++;
    if (p->started)
        return;
    MPI_Group group = MPI_GROUP_NULL;
    if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &p->session) != MPI_SUCCESS
        || PMPI_Group_from_session_pset(p->session, "mpi://WORLD", &group) != MPI_SUCCESS
        || PMPI_Comm_create_from_group(group, "org.mpiscope.trace", MPI_INFO_NULL, MPI_ERRORS_RETURN, &p->comm)
               != MPI_SUCCESS) {
        mpiscope__trace_warn("cannot make a communicator of mpi://WORLD: not tracing");
        atomic_store(&mpiscope__trace_active, 0);
        return;
    }
    PMPI_Group_free(&group);
    p->own_session = 1;
    start();
}

/* The final synchronization, then the tracer lets go of its MPI objects. */
static void stopping(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (!p->started || ending || atomic_load(&p->written))
        return;
    ending = 1;
    mpiscope__trace_write_current();
    mpiscope__trace_clock_sync(1);
    PMPI_Comm_free(&p->comm);
    if (p->own_session)
        PMPI_Session_finalize(&p->session);
}

void mpiscope__trace_world_stopping(void)
{
    mpiscope__trace_proc.world = 0;
    stopping();
}

void mpiscope__trace_session_stopping(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    if (p->sessions > 0)
        p->sessions--;
    if (p->sessions == 0 && !p->world)
        stopping();
}

void mpiscope__trace_stopped(void)
{
    if (!ending || atomic_load(&mpiscope__trace_proc.written))
        return;
    mpiscope__trace_write(MPISCOPE__TRACE_END_FINALIZED, 0);
    unsigned n = atomic_load_explicit(&mpiscope__trace_nthreads, memory_order_acquire);
    uint64_t dropped = 0;
    for (unsigned i = 0; i < n; i++) {
        mpiscope__trace_thread_t *t = atomic_load_explicit(&mpiscope__trace_threads[i], memory_order_relaxed);
        dropped += atomic_load_explicit(&t->dropped, memory_order_relaxed);
        /* The scratch arrays hang off the thread's mmap'd block, where no
         * leak checker looks: give them back (a later call grows them anew). */
        free(t->statuses);
        free(t->handles);
        t->statuses = NULL;
        t->handles = NULL;
        t->statuses_cap = t->handles_cap = 0;
    }
    if (dropped && !mpiscope__trace_proc.quiet) /* quiet: the END chunk counts them */
        mpiscope__trace_warn("%llu records lost: the trace file could not be written", (unsigned long long)dropped);
    uint64_t lost = atomic_load_explicit(&mpiscope__trace_lost_calls, memory_order_relaxed);
    if (lost)
        mpiscope__trace_warn("%llu calls not recorded: more than %d threads called MPI", (unsigned long long)lost,
                             MPISCOPE__TRACE_MAX_THREADS);
}

void mpiscope__trace_abort(mpiscope__trace_call_t *c, int errorcode)
{
    (void)c;
    mpiscope__trace_write(MPISCOPE__TRACE_END_ABORT, errorcode);
}

void mpiscope__trace_pcontrol(int level)
{
    atomic_store(&paused, level == 0);
    if (configured && !atomic_load(&mpiscope__trace_proc.written))
        atomic_store(&mpiscope__trace_active, level != 0);
}
