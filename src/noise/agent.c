/* agent.c: SIGSTOP/SIGCONT of the agent's process group, never left stopped. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpiscope/error.h"
#include "agent.h"

static volatile sig_atomic_t agent_pgid; /* 0: none */

/* Signals after which the agent must run again; faults re-fault into the
 * previous handler (e.g. the sanitizer's) once ours has resumed the agent. */
static const int exit_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT,
                                   SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define N_SIGNALS (sizeof exit_signals / sizeof *exit_signals)
static struct sigaction previous[N_SIGNALS];

void mpiscope__agent_release(void)
{
    int saved = errno;
    if (agent_pgid > 0)
        kill(-(pid_t)agent_pgid, SIGCONT);
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

int mpiscope__agent_attach(long pgid, char *err, size_t errlen)
{
    if (pgid < 2 || pgid != (long)(pid_t)pgid) {
        snprintf(err, errlen, "--agent-pgid %ld: not a process group id", pgid);
        return MPISCOPE_EINVAL;
    }
    if ((pid_t)pgid == getpgrp()) {
        snprintf(err, errlen, "--agent-pgid %ld is this program's own group: it would stop itself",
                 pgid);
        return MPISCOPE_EINVAL;
    }
    if (kill(-(pid_t)pgid, 0) != 0) {
        snprintf(err, errlen, "--agent-pgid %ld: cannot signal the group (%s)", pgid,
                 strerror(errno));
        return MPISCOPE_EINVAL;
    }
    if (!agent_pgid)
        install();
    agent_pgid = (sig_atomic_t)pgid;
    return 0;
}

int mpiscope__agent_set(int on)
{
    if (agent_pgid <= 0 || kill(-(pid_t)agent_pgid, on ? SIGCONT : SIGSTOP) != 0)
        return MPISCOPE_EINVAL;
    return 0;
}
