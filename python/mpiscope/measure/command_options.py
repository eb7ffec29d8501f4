"""The inputs of each measuring command: its positional arguments and its
own flags, with the shared ones of :mod:`mpiscope.measure.options`.

Each ``add_<command>_options`` is the one definition of what the command
takes: its command line (``mpiscope <command>``) and its Python API
(:mod:`mpiscope.api`) both build their parser with it, so both check a
value the same way, with the same message, and have the same defaults.
A command that takes fewer options than ``run`` has the others at their
defaults (:func:`~mpiscope.measure.options.measure_defaults`): its parsed
options make a whole request (:mod:`mpiscope.measure.request`).
"""

from __future__ import annotations

import argparse

from mpiscope.measure.defaults import simulated_help
from mpiscope.measure.options import (
    SYNC_ALGORITHMS,
    SYNC_PARAMETERS,
    add_measure_options,
    add_old_name,
    measure_defaults,
)
from mpiscope.measure.run_profile import ENV_VAR
from mpiscope.parsing import choice, float_in, int_in
from mpiscope.result.describe import parameter

__all__ = [
    "DEFAULT_DRIFT_SECONDS",
    "DEFAULT_SIZE",
    "DEFAULT_STARTUP_RUNS",
    "HOWS",
    "MAX_DRIFT_SECONDS",
    "MAX_STARTUP_RUNS",
    "add_check_options",
    "add_firstcall_options",
    "add_methods_options",
    "add_overlap_options",
    "add_run_options",
    "add_startup_options",
]

#: firstcall's size: the seed's Table 1 size, 8 KiB.
DEFAULT_SIZE = "8K"
#: startup: runs of each way and process count, unless --runs says otherwise.
DEFAULT_STARTUP_RUNS = 5
MAX_STARTUP_RUNS = 200
#: startup: the ways to start MPI, and the levels init_thread may ask for.
HOWS: tuple[str, ...] = tuple(parameter("startup")["choices"])
_LEVELS: tuple[str, ...] = tuple(parameter("thread_level")["choices"])
#: check: the pause before the clock offsets are measured again.
DEFAULT_DRIFT_SECONDS = 2.0
MAX_DRIFT_SECONDS = 3600.0

_FIRSTCALL_OPTIONS = (
    "--np", "--timer", "--sync", "--root", "--dtype", "--reduce-op", "--align", "--out",
    "--force", "--oversubscribe", "--mpi", "--timeout", "--quiet", "--dry-run",
)  # fmt: skip
_STARTUP_OPTIONS = (
    "--np", "--timer", "--sync", "--validate", "--out", "--force", "--oversubscribe", "--mpi",
    "--timeout", "--quiet", "--dry-run",
)  # fmt: skip
_CHECK_OPTIONS = (
    "--np", "--out", "--force", "--oversubscribe", "--mpi", "--timeout", "--quiet", "--dry-run",
    *(f"--{name.replace('_', '-')}" for name in SYNC_PARAMETERS),
)  # fmt: skip


def _ops_list(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "ops", nargs="+", metavar="OP", help="operations (space- or comma-separated, see list-ops)"
    )


def add_run_options(p: argparse.ArgumentParser) -> None:
    """``mpiscope run OPS``: every measurement option, the run profile
    and the bias ledger."""
    p.add_argument("ops", metavar="OPS", help="operations, comma-separated (see list-ops)")
    add_measure_options(p)
    add_old_name(p, "--launch-profile", "run_profile")
    p.add_argument(
        "--run-profile",
        metavar="FILE|off",
        help="the machine's run-to-run variation: --runs R (R >= 3) records it here, "
        "a single run folds it into each point it has (the interval of what another run "
        f"would read); 'off': neither (default: ${ENV_VAR}, else "
        "$XDG_STATE_HOME/mpiscope/run-variation-HOST.json)",
    )
    p.add_argument(
        "--ledger",
        type=choice(("on", "off"), "ledger setting"),
        default=None,
        metavar="on|off",
        help="after each window point, measure its bias-ledger companions (warm buffers, a "
        "barrier between calls, calls back to back: about as long again as the points) so that "
        "'mpiscope explain' can say, part by part, why the number differs from OSU's and "
        f"IMB's (default on, {simulated_help('ledger')})",
    )


def add_methods_options(p: argparse.ArgumentParser) -> None:
    """``mpiscope methods OP...``: the options of ``run`` but ``--runs``."""
    _ops_list(p)
    p.set_defaults(**measure_defaults())
    add_measure_options(p, runs=False)


def add_firstcall_options(p: argparse.ArgumentParser) -> None:
    """``mpiscope firstcall OP...``: one size and the options that apply."""
    _ops_list(p)
    p.set_defaults(**measure_defaults())
    p.add_argument(
        "--size",
        default=DEFAULT_SIZE,
        metavar="BYTES",
        help=f"message size, K/M suffixes allowed (default {DEFAULT_SIZE}, as in the seed)",
    )
    add_measure_options(p, runs=False, only=_FIRSTCALL_OPTIONS)


def add_overlap_options(p: argparse.ArgumentParser) -> None:
    """``mpiscope overlap OP``: one operation, the options of ``run`` but ``--runs``."""
    p.add_argument(
        "op",
        metavar="OP",
        help="a nonblocking or persistent operation: ibcast, "
        "iallreduce, allreduce_init, ineighbor_alltoall, ...",
    )
    p.set_defaults(**measure_defaults())
    add_measure_options(p, runs=False)


def add_startup_options(p: argparse.ArgumentParser) -> None:
    """``mpiscope startup``: the ways, process counts, size, runs and thread level."""
    p.set_defaults(**measure_defaults())
    p.add_argument(
        "--how",
        default=",".join(HOWS),
        metavar="WAY[,WAY...]",
        help=f"how MPI is started: {', '.join(HOWS)} (default: all three)",
    )
    p.add_argument(
        "--nprocs",
        metavar="SPEC",
        help="process counts, each started by runs of its own, e.g. 2,3,4 or 2:8 "
        "(default: --np)",
    )
    p.add_argument(
        "--size",
        default="8",
        metavar="BYTES",
        help="bytes of each round trip's message, K/M suffixes allowed (default 8)",
    )
    add_old_name(p, "--launches", "runs", int_in(1, MAX_STARTUP_RUNS))
    p.add_argument(
        "--runs",
        type=int_in(1, MAX_STARTUP_RUNS),
        default=DEFAULT_STARTUP_RUNS,
        metavar="R",
        help=f"runs of each way and process count (default {DEFAULT_STARTUP_RUNS}, at "
        f"most {MAX_STARTUP_RUNS}): one run is one sample of a start",
    )
    p.add_argument(
        "--thread-level",
        type=choice(_LEVELS, "thread level"),
        default="multiple",
        metavar="LEVEL",
        help=f"the level init_thread asks for: {', '.join(_LEVELS)} (default multiple); the "
        "level granted is in the result",
    )
    add_measure_options(p, runs=False, only=_STARTUP_OPTIONS)


def _syncs(text: str) -> tuple[str, ...]:
    """``all`` or algorithm names, comma-separated: the ones to show."""
    if text == "all":
        return SYNC_ALGORITHMS
    chosen = tuple(part.strip() for part in text.split(","))
    for name in chosen:
        if name not in SYNC_ALGORITHMS:
            raise argparse.ArgumentTypeError(
                f"unknown clock sync algorithm {name!r} (all, {', '.join(SYNC_ALGORITHMS)})"
            )
    if len(set(chosen)) != len(chosen):
        raise argparse.ArgumentTypeError(f"bad list {text!r}: an algorithm appears twice")
    return chosen


def add_check_options(p: argparse.ArgumentParser) -> None:
    """``mpiscope check``: the sync parameters, the drift pause, what is shown."""
    p.set_defaults(**measure_defaults())
    add_measure_options(p, runs=False, only=_CHECK_OPTIONS)
    p.add_argument(
        "--drift-seconds",
        type=float_in(0, MAX_DRIFT_SECONDS),
        default=DEFAULT_DRIFT_SECONDS,
        metavar="S",
        help=f"pause before the clock offsets are measured again (default "
        f"{DEFAULT_DRIFT_SECONDS:g})",
    )
    p.add_argument(
        "--sync",
        type=_syncs,
        default=SYNC_ALGORITHMS,
        metavar="all|NAME[,NAME]",
        help="clock sync algorithms to compare (every one is measured; default all: "
        f"{', '.join(SYNC_ALGORITHMS)})",
    )
    p.add_argument("--brief", action="store_true", help="print only the VERDICT lines")
