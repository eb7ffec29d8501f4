"""``mpiscope explain RESULT``: the bias ledger of every point, why its
number differs from what OSU and IMB print on this machine, part by part,
each part measured in the run (docs/method.md section 12)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]

SUITES = ("OSU", "IMB")


def add_parser(commands: Any) -> None:
    from mpiscope.parsing import choice

    parser = commands.add_parser(
        "explain",
        help="why the numbers differ from OSU's and IMB's, part by part",
        description="For every point of a result measured with the ledger (mpiscope run, "
        "--ledger on: the default), decompose the gap between mpiscope's number and what OSU "
        "and IMB report: cold vs warm buffers, max over ranks vs average over ranks (or rank "
        "0), median vs mean, a synchronized start vs a barrier between calls or calls back to "
        "back, the first call, the floor; each part in ns and as a share of mpiscope's number, "
        "with its bootstrap interval, adding up to the OSU- and IMB-equivalent figures.",
    )
    parser.add_argument("file", metavar="RESULT", help="result document (JSON)")
    parser.add_argument(
        "--suite", type=lambda text: choice([s.lower() for s in SUITES], "suite")(text).upper(),
        metavar="NAME", help="only this suite: osu or imb (default: both)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mpiscope.reports.ledger import explain_lines
    from mpiscope.result import load_result

    result = load_result(args.file)
    print("\n".join(explain_lines(result, [args.suite] if args.suite else None)))
    return 0
