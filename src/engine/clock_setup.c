/* clock_setup.c: one node, one clock (the leader's counter frequency and
 * origin), then the injected transform of each rank. */
#include <stdlib.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "clock_setup.h"
#include "timer_read.h"

const char *mpiscope__clock_transform_spec(const mpiscope_sync_params_t *p)
{
    if (p && p->clock_transform[0])
        return p->clock_transform;
    const char *env = getenv("MPISCOPE_CLOCK_TRANSFORM");
    return env ? env : "";
}

/* Ranks of one node read one counter: they take the node leader's
 * calibration and origin, so their clocks agree exactly (sync_node.c
 * verifies it) instead of by calibration error. */
static void share_node_clock(MPI_Comm comm)
{
    mpiscope_timer_info_t info;
    mpiscope_timer_info(&info);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (info.kind == MPISCOPE_TIMER_TSC) {
        double hz = info.frequency_hz;
        MPI_Bcast(&hz, 1, MPI_DOUBLE, 0, node);
        mpiscope_timer_set_frequency(hz);
    }
    mpiscope__timer_share_origin(node);
    MPI_Comm_free(&node);
}

int mpiscope__clock_setup(MPI_Comm comm, const mpiscope_sync_params_t *p, char *why, size_t why_len)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    share_node_clock(comm);
    mpiscope_clock_transform_t tf;
    int err = mpiscope_clock_transform_parse(mpiscope__clock_transform_spec(p), rank, &tf, why, why_len);
    if (!err)
        err = mpiscope_timer_set_transform(&tf, (unsigned long long)rank + 1);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MIN, comm);
    return err;
}
