/* mpiscope/mpiscope.h: the umbrella header of libmpiscope.
 *
 * mpiscope measures MPI operations on synchronized clocks with the
 * synchronized-window method (MPIPerf) and honest statistics. Link with
 * -lmpiscope (pkg-config mpiscope, or CMake find_package(mpiscope)). */
#ifndef MPISCOPE_H
#define MPISCOPE_H

#include "mpiscope/version.h"
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "mpiscope/stats.h"
#include "mpiscope/sync.h"
#include "mpiscope/op.h"
#include "mpiscope/measure.h"
#include "mpiscope/result.h"
#include "mpiscope/startup.h"
#include "mpiscope/check.h"
#include "mpiscope/firstcall.h"
#include "mpiscope/describe.h"
#include "mpiscope/plan.h"
#include "mpiscope/alltoall.h"
#include "mpiscope/model.h"

#endif
