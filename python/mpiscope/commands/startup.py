"""``mpiscope startup``: how long MPI takes to start, and the first message.

Each launch starts fresh processes that start MPI in one way - ``init``
(MPI_Init), ``init_thread`` (MPI_Init_thread at ``--thread-level``) or
``session`` (MPI_Session_init, a group from ``mpi://WORLD``,
MPI_Comm_create_from_group) - timing each call on every rank, then the
first, the second and later round trips to every peer (the connection
cost osu_init and OSU's ``-I`` show). The clocks are synchronized only
afterwards, and every stamp is put on the global clock. One launch is one
sample of a start: the launches, ways and process counts are interleaved
(round r runs every process count and every way, the ways rotated each
round) and merged into one document, which the report summarizes over the
launches.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.measure.options import add_measure_options, measure_defaults
from mpiscope.measure.plan import check_out, startup_plan
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.runner import Launch, find_bench, private_dir, run_launches
from mpiscope.measure.sizes import parse_nprocs_spec, parse_size_spec
from mpiscope.parsing import choice, int_in
from mpiscope.reports.report import render_report
from mpiscope.result.describe import parameter

__all__ = ["DEFAULT_LAUNCHES", "add_parser", "run"]

#: Launches of each way and process count, unless --launches says otherwise.
DEFAULT_LAUNCHES = 5
MAX_LAUNCHES = 200
_HOWS: tuple[str, ...] = tuple(parameter("startup")["choices"])
_LEVELS: tuple[str, ...] = tuple(parameter("thread_level")["choices"])
_OPTIONS = (
    "--np", "--timer", "--sync", "--validate", "--out", "--force", "--oversubscribe", "--mpi",
    "--timeout", "--quiet", "--dry-run",
)  # fmt: skip


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "startup",
        help="how long MPI takes to start (MPI_Init, sessions) and the first message to a peer",
        description="Start MPI in fresh processes, launch after launch, and time on every rank "
        "each call that starts it (MPI_Init, MPI_Init_thread, or MPI_Session_init, "
        "MPI_Group_from_session_pset and MPI_Comm_create_from_group), then the first, second "
        "and later round trips to every peer (the first contact's connection cost); every "
        "stamp on the global clock made afterwards. Ways, process counts and launches are "
        "interleaved and merged into one result; the report gives the median over launches "
        "and their range.",
    )
    p.set_defaults(**measure_defaults())
    p.add_argument(
        "--how",
        default=",".join(_HOWS),
        metavar="WAY[,WAY...]",
        help=f"how MPI is started: {', '.join(_HOWS)} (default: all three)",
    )
    p.add_argument(
        "--nprocs",
        metavar="SPEC",
        help="process counts, each started by launches of its own, e.g. 2,3,4 or 2:8 "
        "(default: --np)",
    )
    p.add_argument(
        "--size",
        default="8",
        metavar="BYTES",
        help="bytes of each round trip's message, K/M suffixes allowed (default 8)",
    )
    p.add_argument(
        "--launches",
        type=int_in(1, MAX_LAUNCHES),
        default=DEFAULT_LAUNCHES,
        metavar="R",
        help=f"launches of each way and process count (default {DEFAULT_LAUNCHES}, at most "
        f"{MAX_LAUNCHES}): one launch is one sample of a start",
    )
    p.add_argument(
        "--thread-level",
        type=choice(_LEVELS, "thread level"),
        default="multiple",
        metavar="LEVEL",
        help=f"the level init_thread asks for: {', '.join(_LEVELS)} (default multiple); the "
        "level granted is in the result",
    )
    add_measure_options(p, launches=False, only=_OPTIONS)
    p.set_defaults(handler=run)


def _hows(text: str) -> list[str]:
    hows = [word.strip() for word in text.split(",")]
    for how in hows:
        if how not in _HOWS:
            raise MpiscopeError(f"--how {text!r}: {how!r} is not one of {', '.join(_HOWS)}")
    if len(set(hows)) != len(hows):
        raise MpiscopeError(f"--how {text!r}: a way appears twice")
    return hows


def run(args: argparse.Namespace) -> int:
    hows = _hows(args.how)
    sizes = parse_size_spec(args.size)
    if len(sizes) != 1:
        raise MpiscopeError(f"--size must be one size, not {len(sizes)} ({args.size!r})")
    counts = parse_nprocs_spec(args.nprocs) if args.nprocs is not None else [args.np]
    out = check_out(args, prefix="mpiscope-startup")
    benches = {n: find_bench(argparse.Namespace(**{**vars(args), "np": n})) for n in counts}
    display = ProgressDisplay(quiet=args.quiet, nprocs=max(counts))
    with private_dir(out) as tmp:
        launches: list[Launch] = []
        for round_ in range(args.launches):
            turn = round_ % len(hows)
            for n in counts:
                own = argparse.Namespace(**{**vars(args), "np": n})
                for how in hows[turn:] + hows[:turn]:
                    where = Path(tmp) / f"startup-{len(launches)}.json"
                    plan = startup_plan(own, how, sizes[0], where, benches[n].profile,
                                        benches[n].launcher)  # fmt: skip
                    launches.append(Launch(plan, launcher=tuple(benches[n].launcher)))
        first = benches[counts[0]]
        return run_launches(launches, first, Path(tmp), args, display, out, render_report)
