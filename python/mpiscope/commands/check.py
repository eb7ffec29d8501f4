"""``mpiscope check``: can this machine's clocks be trusted?

Runs the bench's machine check (every timer, every clock-sync algorithm
with its sync time, exchanges, error bounds, residual and drift, and
against an injected clock transform whether each recovered the truth;
the wait patterns of known length) and prints what it found with a
VERDICT line per timer and per sync algorithm; the criteria are
:data:`mpiscope.reports.check.TIMER_CRITERIA` and
:data:`mpiscope.reports.check.SYNC_CRITERIA`. A timer that is not trusted is
information, not an error: the exit code is 0 unless the check could not
run (1) or the input was bad (2).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from mpiscope.errors import RunFailedError
from mpiscope.measure.options import SYNC_ALGORITHMS, SYNC_PARAMETERS, add_measure_options
from mpiscope.measure.plan import check_cores, check_out, check_plan
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.runner import Launch, find_bench, private_dir, run_launches
from mpiscope.parsing import float_in
from mpiscope.reports.check import verdict_lines
from mpiscope.reports.report import render_report
from mpiscope.result import Result

__all__ = ["DEFAULT_DRIFT_SECONDS", "add_parser", "run"]

DEFAULT_DRIFT_SECONDS = 2.0
_OPTIONS = (
    "--np", "--out", "--force", "--oversubscribe", "--mpi", "--timeout", "--quiet", "--dry-run",
    *(f"--{name.replace('_', '-')}" for name in SYNC_PARAMETERS),
)  # fmt: skip
MAX_DRIFT_SECONDS = 3600.0


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


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "check",
        help="check this machine's timers and clock sync (run it first)",
        description="Measure every timer (resolution, read overhead, monotonicity over "
        "millions of reads, invariant TSC and frequency error, the wait patterns of known "
        "length with their global span and start skew) and every clock-sync algorithm "
        "(residual offset now and after --drift-seconds: drift), then print a VERDICT line "
        "per timer and per algorithm. Exit code 0 even when something is not trusted.",
    )
    add_measure_options(p, launches=False, only=_OPTIONS)
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
    p.set_defaults(handler=run)


def _render(brief: bool, syncs: tuple[str, ...]) -> Any:
    def render(result: Result) -> str:
        check = result.data.get("check")
        if check is None:
            raise RunFailedError("mpiscope-bench wrote no machine check (no 'check' in its result)")
        check["sync"] = [s for s in check.get("sync") or () if s.get("algorithm") in syncs]
        return "\n".join(verdict_lines(result)) if brief else render_report(result)

    return render


def run(args: argparse.Namespace) -> int:
    check_cores(args, harm="would judge the scheduler, not the clocks")
    out = check_out(args) if args.out is not None else None
    bench = find_bench(args)
    display = ProgressDisplay(quiet=args.quiet or args.brief, nprocs=args.np)
    # without --out the document is not kept
    keep = private_dir(out) if out is not None else tempfile.TemporaryDirectory(prefix="mpiscope-")
    with keep as tmp:
        plan = check_plan(args, Path(tmp) / "check.json", bench.profile, bench.launcher)
        return run_launches(
            [Launch(plan)],
            bench,
            Path(tmp),
            args,
            display,
            out or Path(tmp) / "result.json",
            _render(args.brief, args.sync),
            show_path=out is not None,
        )
