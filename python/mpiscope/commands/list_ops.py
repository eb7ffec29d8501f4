"""``mpiscope list-ops``: the operations mpiscope-bench can measure (its
catalogue, :mod:`mpiscope.measure.catalogue`), as a table, as the bench's
JSON, or as the operation reference docs/operations.md."""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.measure.catalogue import query_ops, render_ops
from mpiscope.mpi_profile import select_profile

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "list-ops",
        help="list the measurable operations",
        description="List the operations the selected mpiscope-bench build can measure.",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the bench's JSON as is")
    form.add_argument(
        "--markdown", action="store_true", help="print the operation reference (docs/operations.md)"
    )
    parser.add_argument("--mpi", metavar="NAME", help="MPI installation (default: MPISCOPE_MPI)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    text, ops = query_ops(select_profile(args.mpi))
    if args.markdown:
        from mpiscope.measure.ops_markdown import render_markdown

        print(render_markdown(ops), end="")
    else:
        print(text.strip() if args.json else render_ops(ops))
    return 0
