"""``mpiscope methods OP...``: every timing method on the same operations and sizes.

One bench launch measures each point with each method in turn (interleaved,
so every method sees the same machine state); the table gives each
method's median and its ratio to the window method's, and the barrier
method's suite views (what IMB/OSU would report). The window method is
always included: it is the baseline.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from mpiscope.measure.method_options import methods_for_ops
from mpiscope.measure.options import add_measure_options
from mpiscope.measure.plan import bench_plan, check_ops, join_ops, plan_run
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.runner import Launch, find_bench, private_dir, run_launches
from mpiscope.reports.method_compare import render_methods
from mpiscope.result.methods import DEFAULT_METHOD

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "methods",
        help="compare the timing methods on the same operations and sizes",
        description="Measure operations with several timing methods, interleaved in one bench "
        "launch, and show each method's median and its ratio to the window method (the "
        "systematic error of the classic ways of timing). --method defaults to every method "
        "that applies to the operations; window is always added. Takes the options of 'run'.",
    )
    p.add_argument(
        "ops", nargs="+", metavar="OP", help="operations (space- or comma-separated, see list-ops)"
    )
    add_measure_options(p, launches=False)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    args.ops = join_ops(args.ops)
    ops = args.ops.split(",")
    if args.method is None:
        args.method = methods_for_ops(ops)
    elif DEFAULT_METHOD not in args.method:
        args.method = [DEFAULT_METHOD, *args.method]
    plan = plan_run(args)
    bench = find_bench(args)
    plan = replace(plan, ops=check_ops(plan, bench.profile, args.timeout))
    display = ProgressDisplay(quiet=args.quiet, nprocs=args.np)
    with private_dir(plan.out) as tmp:
        own = replace(plan, out=Path(tmp) / "methods.json")
        launch = Launch(bench_plan(args, own, bench.profile, bench.launcher))
        return run_launches([launch], bench, Path(tmp), args, display, plan.out, render_methods)
