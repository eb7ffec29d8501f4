"""``mpiscope report FILE``: render a result document as a table."""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.reports.report import render_report
from mpiscope.result import load_result

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "report",
        help="show a result document as a table",
        description="Show a result document (written by 'mpiscope run') as a readable table: "
        "the environment, then one row per measured point.",
    )
    parser.add_argument("file", metavar="FILE", help="result document (JSON)")
    parser.add_argument(
        "--per-rank", action="store_true", help="add each rank's own times under every point"
    )
    parser.add_argument(
        "--tails", action="store_true",
        help="add the p90 and p99 of every point with their distribution-free intervals",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = load_result(args.file)
    print(render_report(result, per_rank=args.per_rank, tails=args.tails))
    return 0
