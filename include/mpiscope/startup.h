/* mpiscope/startup.h: how long MPI takes to start, per rank and on the
 * global clock, and what the first message to each peer costs (osu_init,
 * OSU's -I Sessions start-up).
 *
 * Call it INSTEAD of MPI_Init, first thing in main: it starts MPI itself,
 * in the way the plan's "startup" field says, times it, and finalizes MPI
 * before it returns.
 *
 *   mpiscope_timer_prepare();
 *   mpiscope_plan_t *plan;  // {"startup": "session", "sizes": [8], "out": "s.json"}
 *   mpiscope_plan_read_file("plan.json", 0, &plan, why, sizeof why);
 *   int rc = mpiscope_startup_run(&argc, &argv, plan, why, sizeof why);
 *
 * What is measured on every rank, with the counter read around each call:
 *   init         MPI_Init, or MPI_Init_thread at the plan's thread_level
 *   session      MPI_Session_init; MPI_Group_from_session_pset("mpi://WORLD");
 *                MPI_Comm_create_from_group: each call's own time
 * then, with nothing communicated before but what those calls did, the
 * first and the second round trip (a message of the plan's first size
 * each way) between every pair of ranks, pairs taken in rounds where each
 * rank has one partner (the circle method: n - 1 rounds, n for odd n).
 * Only then are the clocks synchronized (it would connect the very peers
 * being measured), and every stamp is put on the global clock: when each
 * rank called MPI and when it was through, and, for each first round trip,
 * how long its partner had not yet posted the receive (that wait is taken
 * out). MPI_Finalize (or MPI_Session_finalize) is not timed: nothing can be
 * sent after it. Under SimGrid SMPI the simulator does not model the
 * start: the calls take no simulated time, and are reported as such. */
#ifndef MPISCOPE_STARTUP_H
#define MPISCOPE_STARTUP_H

#include <stddef.h>
#include "mpiscope/export.h"
#include "mpiscope/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start MPI as the plan's "startup" says ("init", "init_thread" at its
 * "thread_level", "session"), measure as above, write the result document
 * (plan "out": one point of "kind": "startup"; docs/result-schema.md) and
 * finalize MPI. Every process of the job calls it, with the same plan.
 * Returns 0, or an MPISCOPE_E* code with one line in err on the rank that
 * should print it (*says 1; NULL allowed) and 0 in *says elsewhere:
 * MPISCOPE_EINVAL (a plan without "startup", NULL arguments),
 * MPISCOPE_ENOTSUP (this MPI library has no Sessions: then MPI_Init is
 * called to say so collectively), MPISCOPE_EMPI, MPISCOPE_ENOMEM,
 * MPISCOPE_EIO, MPISCOPE_EEXIST. */
MPISCOPE_API int mpiscope_startup_run(int *argc, char ***argv, const mpiscope_plan_t *plan, char *err, size_t err_size,
                                      int *says);

#ifdef __cplusplus
}
#endif
#endif
