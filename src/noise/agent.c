/* agent.c: SIGSTOP/SIGCONT of the agent's process group, never left stopped. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpiscope/error.h"
#include "agent.h"

/* 0: none. Read by the signal handler, which in an MPI process may run on
 * a thread of the MPI library's: a lock-free atomic, not volatile. */
static atomic_int agent_pgid;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "read by a signal handler");

/* Signals after which the agent must run again; faults re-fault into the
 * previous handler (e.g. the sanitizer's) once ours has resumed the agent. */
static const int exit_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define N_SIGNALS (sizeof exit_signals / sizeof *exit_signals)
static struct sigaction previous[N_SIGNALS];

void mpiscope__agent_release(void)
{
    int saved = errno;
    int pgid = atomic_load(&agent_pgid);
    if (pgid > 0)
        kill(-(pid_t)pgid, SIGCONT);
    errno = saved;
}

static int is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static void on_signal(int sig)
{
    mpiscope__agent_release();
    for (size_t i = 0; i < N_SIGNALS; i++)
        if (exit_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    if (!is_fault(sig))
        raise(sig); /* delivered with the previous action once we return */
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_SIGNALS; i++)
        sigaction(exit_signals[i], &sa, &previous[i]);
    atexit(mpiscope__agent_release);
}

/* A process of its own session that resumes the group when we die, even
 * by SIGKILL (mpiexec's way of ending ranks on SIGTERM): it waits for the
 * end of a pipe whose write side only we hold. */
static int start_watchdog(pid_t pgid)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        setsid(); /* out of our group: not killed along with it */
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        int null = open("/dev/null", O_RDWR); /* hold no pipe of the launcher open */
        for (int fd = 0; fd < 3 && null >= 0; fd++)
            dup2(null, fd);
        close(fds[1]);
        char c;
        while (read(fds[0], &c, 1) < 0 && errno == EINTR)
            ;
        kill(-pgid, SIGCONT);
        _exit(0);
    }
    close(fds[0]);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC); /* held open by this process only */
    return 0;
}

int mpiscope__agent_attach(long pgid, char *err, size_t errlen)
{
    if (pgid < 2 || pgid != (long)(pid_t)pgid) {
        snprintf(err, errlen, "--agent-pgid %ld: not a process group id", pgid);
        return MPISCOPE_EINVAL;
    }
    if ((pid_t)pgid == getpgrp()) {
        snprintf(err, errlen, "--agent-pgid %ld is this program's own group: it would stop itself", pgid);
        return MPISCOPE_EINVAL;
    }
    if (kill(-(pid_t)pgid, 0) != 0) {
        snprintf(err, errlen, "--agent-pgid %ld: cannot signal the group (%s)", pgid, strerror(errno));
        return MPISCOPE_EINVAL;
    }
    int attached = atomic_load(&agent_pgid);
    if (attached) {
        snprintf(err, errlen, "an agent is already attached (group %ld)", (long)attached);
        return MPISCOPE_EINVAL;
    }
    if (start_watchdog((pid_t)pgid) != 0) {
        snprintf(err, errlen, "cannot start the watchdog that resumes the agent (%s)", strerror(errno));
        return MPISCOPE_EINVAL;
    }
    install();
    atomic_store(&agent_pgid, (int)pgid);
    return 0;
}

int mpiscope__agent_set(int on)
{
    int pgid = atomic_load(&agent_pgid);
    if (pgid <= 0 || kill(-(pid_t)pgid, on ? SIGCONT : SIGSTOP) != 0)
        return MPISCOPE_EINVAL;
    return 0;
}
