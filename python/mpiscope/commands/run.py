"""``mpiscope run OPS``: measure operations with mpiscope-bench under mpiexec.

Everything the user typed is checked by the plan (:mod:`mpiscope.measure.plan`)
before anything is launched; the bench then reads one plan document of
explicit values (``--dry-run`` prints it). After the run the result
document is shown as a report table.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from mpiscope.measure.launch_profile import ENV_VAR, profile_step
from mpiscope.measure.options import add_measure_options, simulated_help
from mpiscope.measure.plan import check_ops, plan_run
from mpiscope.measure.runner import find_bench, measure_plan
from mpiscope.parsing import choice
from mpiscope.reports.ledger import closing_lines
from mpiscope.reports.report import render_report
from mpiscope.result import Result

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "run",
        help="measure MPI operations",
        description="Measure MPI operations with the synchronized-window method and write a "
        "result document. Sizes accept K/M/G (1024-based): '1:1M:x4' (geometric), "
        "'0:64K:+4K' (arithmetic), '8,1K,64K' (list).",
    )
    p.add_argument("ops", metavar="OPS", help="operations, comma-separated (see list-ops)")
    add_measure_options(p)
    p.add_argument(
        "--launch-profile",
        metavar="FILE|off",
        help="the machine's launch-to-launch variation: --launches R (R >= 3) records it here, "
        "a single launch folds it into each point it has (the interval of what another launch "
        f"would read); 'off': neither (default: ${ENV_VAR}, else "
        "$XDG_STATE_HOME/mpiscope/launch-variation-HOST.json)",
    )
    p.add_argument(
        "--ledger",
        type=choice(("on", "off"), "ledger setting"),
        default=None,
        metavar="on|off",
        help="after each window point, measure its bias-ledger companions (warm buffers, a "
        "barrier between calls, calls back to back: about 3x the measuring time) so that "
        "'mpiscope explain' can say, part by part, why the number differs from OSU's and "
        f"IMB's (default on, {simulated_help('ledger')})",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    plan = plan_run(args)
    bench = find_bench(args)
    plan = replace(plan, ops=check_ops(plan, bench.profile, args.timeout))
    finish = profile_step(args.launch_profile, args.launches)
    return measure_plan(args, plan, bench, lambda r: _render(r, args.per_rank), finish)


def _render(result: Result, per_rank: bool) -> str:
    """The report, then the ledger's short form against OSU."""
    return "\n".join([render_report(result, per_rank=per_rank), *closing_lines(result)])
