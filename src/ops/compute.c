/* compute.c: the compute phase of the overlap measurements (MPIPerf, OSU):
 * the CPU is kept busy for a known time while a nonblocking or persistent
 * operation is in flight, with MPI_Test calls to let the library progress. */
#include "coll.h"
#include "mpiscope/timer.h"

/* Busy for compute_ns from now, testing every test_ns. */
static int compute(MPI_Request *request, double compute_ns, double test_ns)
{
    double now = mpiscope_timer_now_ns(), end = now + compute_ns;
    int done = 0;

    while (now < end) {
        now = mpiscope_timer_spin_until_ns(test_ns > 0.0 && now + test_ns < end ? now + test_ns : end);
        if (test_ns > 0.0 && !done && MPI_Test(request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
    }
    return 0;
}

int mpiscope__ops_wait_computing(MPI_Request *request, double compute_ns, double test_ns)
{
    if (compute_ns > 0.0 && compute(request, compute_ns, test_ns) != 0)
        return MPISCOPE_EMPI;
    return mpiscope__ops_mpi(MPI_Wait(request, MPI_STATUS_IGNORE));
}
