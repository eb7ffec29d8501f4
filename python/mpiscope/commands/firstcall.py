"""``mpiscope firstcall OP...``: the first call of an operation against its second.

Many MPI libraries connect peers on the first call of an operation (late
initialization). To see it, every operation gets its OWN bench launch -
fresh processes, where nothing has run before - and in it a fresh
communicator; call 1 and call 2 (same size, buffer at another address) are
timed on every rank. The launches are merged into one document and shown
in the layout of the seed's Table 1.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.measure.options import add_measure_options, measure_defaults
from mpiscope.measure.plan import bench_plan, check_ops, join_ops, plan_run
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.runner import Launch, find_bench, private_dir, run_launches
from mpiscope.measure.sizes import parse_size_spec
from mpiscope.reports.report import render_report

__all__ = ["DEFAULT_SIZE", "add_parser", "run"]

#: The seed's Table 1 size: 8 KiB.
DEFAULT_SIZE = "8K"
_OPTIONS = (
    "--np", "--timer", "--sync", "--root", "--dtype", "--reduce-op", "--align", "--out",
    "--force", "--oversubscribe", "--mpi", "--timeout", "--quiet", "--dry-run",
)  # fmt: skip


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "firstcall",
        help="first call vs second call of each operation (late initialization)",
        description="Time the first and the second call of each operation on every rank. "
        "Each operation runs in its own bench launch - fresh processes, a fresh "
        "communicator - so the late initialization that many MPI libraries do on the first "
        "call of each operation is seen; the second call uses a buffer at another address. "
        "Prints, per operation, rank 0's ratio of the first call's time to the second's and "
        "the max-over-ranks ratio (the seed's Table 1), with the times.",
    )
    p.add_argument(
        "ops", nargs="+", metavar="OP", help="operations (space- or comma-separated, see list-ops)"
    )
    p.set_defaults(**measure_defaults())
    p.add_argument(
        "--size",
        default=DEFAULT_SIZE,
        metavar="BYTES",
        help=f"message size, K/M suffixes allowed (default {DEFAULT_SIZE}, as in the seed)",
    )
    add_measure_options(p, launches=False, only=_OPTIONS)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    args.ops = join_ops(args.ops)
    sizes = parse_size_spec(args.size)
    if len(sizes) != 1:
        raise MpiscopeError(f"--size must be one size, not {len(sizes)} ({args.size!r})")
    plan = plan_run(args, sizes=sizes)
    bench = find_bench(args)
    plan = replace(plan, ops=check_ops(plan, bench.profile, args.timeout))
    display = ProgressDisplay(quiet=args.quiet, nprocs=args.np)
    with private_dir(plan.out) as tmp:
        launches = []
        for index, op in enumerate(plan.ops):
            own = replace(plan, ops=[op], out=Path(tmp) / f"firstcall-{index}.json")
            launches.append(
                Launch(bench_plan(args, own, bench.profile, bench.launcher, firstcall=True))
            )
        return run_launches(launches, bench, Path(tmp), args, display, plan.out, render_report)
