/* test_noise_agent.c: SIGSTOP/SIGCONT of an agent's process group, seen
 * from its parent with waitpid; the group is resumed by release, and by
 * the exit of a process that had stopped it (atexit). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agent.h"
#include "check.h"
#include "mpiscope/error.h"

/* A child in its own process group that sleeps until killed. */
static pid_t start_agent(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        alarm(30); /* never outlive a test that hangs */
        for (;;)
            pause();
    }
    setpgid(pid, pid); /* both sides, so the group exists when we return */
    return pid;
}

static int wait_state(pid_t pid, int flag)
{
    int status;
    if (waitpid(pid, &status, flag) != pid)
        return -1;
    return flag == WUNTRACED ? WIFSTOPPED(status) : WIFCONTINUED(status);
}

/* The state letter of /proc/<pid>/stat ('T' when stopped). */
static char proc_state(pid_t pid)
{
    char path[64], comm[64], state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%*d %63s %c", comm, &state) != 2)
            state = '?';
        fclose(f);
    }
    return state;
}

static void test_refusals(void)
{
    char err[256] = "";
    CHECK_INT_EQ(mpiscope__agent_attach(1, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(strstr(err, "not a process group") != NULL);
    CHECK_INT_EQ(mpiscope__agent_attach((long)getpgrp(), err, sizeof err), MPISCOPE_EINVAL);
    CHECK(strstr(err, "own group") != NULL);
    CHECK_INT_EQ(mpiscope__agent_set(0), MPISCOPE_EINVAL); /* nothing attached */
}

/* In a child, in its own group: attach to the agent and stop it. */
static void attach_and_stop(pid_t agent)
{
    setpgid(0, 0);
    char err[256];
    if (mpiscope__agent_attach(agent, err, sizeof err) != 0 || mpiscope__agent_set(0) != 0)
        _exit(3);
}

/* In a child: attach, stop the agent, exit without resuming it. */
static void stop_and_exit(pid_t agent)
{
    pid_t pid = fork();
    if (pid == 0) {
        attach_and_stop(agent);
        while (proc_state(agent) != 'T') /* a SIGCONT would cancel a pending stop */
            usleep(1000);
        exit(0); /* atexit must send SIGCONT */
    }
    int status;
    waitpid(pid, &status, 0);
    CHECK_INT_EQ(WEXITSTATUS(status), 0);
}

static void test_stop_and_resume(void)
{
    pid_t agent = start_agent();
    char err[256] = "";
    CHECK_INT_EQ(mpiscope__agent_attach(agent, err, sizeof err), 0);
    CHECK_INT_EQ(mpiscope__agent_set(0), 0);
    CHECK_INT_EQ(wait_state(agent, WUNTRACED), 1);
    mpiscope__agent_release();
    CHECK_INT_EQ(wait_state(agent, WCONTINUED), 1);
    CHECK_INT_EQ(mpiscope__agent_set(0), 0);
    CHECK_INT_EQ(wait_state(agent, WUNTRACED), 1);
    CHECK_INT_EQ(mpiscope__agent_set(1), 0);
    CHECK_INT_EQ(wait_state(agent, WCONTINUED), 1);
    CHECK_INT_EQ(mpiscope__agent_attach(agent, err, sizeof err), MPISCOPE_EINVAL);
    CHECK(strstr(err, "already attached") != NULL);
    kill(agent, SIGKILL);
    waitpid(agent, NULL, 0);
    CHECK_INT_EQ(mpiscope__agent_set(1), MPISCOPE_EINVAL); /* the group is gone */
}

/* A process that stopped the agent and exits resumes it (atexit). */
static void test_exit_resumes(void)
{
    pid_t agent = start_agent();
    stop_and_exit(agent);
    /* stopped then continued before we looked: only "continued" is reported */
    CHECK_INT_EQ(wait_state(agent, WCONTINUED), 1);
    CHECK(proc_state(agent) != 'T');
    kill(agent, SIGKILL);
    waitpid(agent, NULL, 0);
}

/* A child in its own group that attaches to the agent, stops it and waits
 * to be killed; returns once the agent is seen stopped. */
static pid_t spawn_stopper(pid_t agent)
{
    pid_t pid = fork();
    if (pid == 0) {
        attach_and_stop(agent);
        for (;;)
            pause();
    }
    CHECK_INT_EQ(wait_state(agent, WUNTRACED), 1);
    return pid;
}

/* A process killed by SIGKILL (no handler runs) still resumes the agent:
 * its watchdog does. */
static void test_sigkill_resumes(void)
{
    pid_t agent = start_agent();
    pid_t pid = spawn_stopper(agent);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    CHECK_INT_EQ(wait_state(agent, WCONTINUED), 1);
    kill(agent, SIGKILL);
    waitpid(agent, NULL, 0);
}

/* A process ended by SIGTERM's default action still resumes the agent. */
static void test_sigterm_resumes(void)
{
    pid_t agent = start_agent();
    pid_t pid = spawn_stopper(agent);
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CHECK_INT_EQ(wait_state(agent, WCONTINUED), 1);
    kill(agent, SIGKILL);
    waitpid(agent, NULL, 0);
}

int main(void)
{
    test_refusals();
    test_sigterm_resumes();
    test_sigkill_resumes();
    test_exit_resumes();
    test_stop_and_resume(); /* last: this process stays attached */
    CHECK_DONE();
}
