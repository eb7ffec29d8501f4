/* signals.c: a program that is killed, crashes or exits without
 * MPI_Finalize still leaves its trace: the handlers write the file, then
 * pass the signal on to the handler that was there before (or the default
 * action). SIGKILL cannot be caught: the file then holds what was streamed
 * to it, all but the records of the current half buffers. */
#include <signal.h>
#include <stdlib.h>
#include "trace_state.h"

static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU};
enum { NCAUGHT = sizeof caught / sizeof caught[0] };
static struct sigaction previous[NCAUGHT];

static void on_signal(int sig)
{
    mpiscope__trace_write(MPISCOPE__TRACE_END_SIGNAL, sig);
    for (int i = 0; i < NCAUGHT; i++)
        if (caught[i] == sig) {
            sigaction(sig, &previous[i], NULL);
            break;
        }
    raise(sig); /* delivered when this handler returns */
}

static void at_exit(void)
{
    mpiscope__trace_write(MPISCOPE__TRACE_END_EXIT, 0);
}

void mpiscope__trace_signals_install(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (int i = 0; i < NCAUGHT; i++) {
        sigaction(caught[i], NULL, &previous[i]);
        if (previous[i].sa_handler != SIG_IGN) /* an ignored signal stays ignored */
            sigaction(caught[i], &sa, NULL);
    }
    atexit(at_exit);
}
