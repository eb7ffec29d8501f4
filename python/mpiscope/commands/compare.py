"""``mpiscope compare BASE NEW [--threshold 5%]``: regressions between two results.

Exit codes: 0 no significant regression beyond the threshold, 1 at least
one (so it can gate a CI), 2 bad input, and two documents with no point in
common (a gate must not pass on a comparison of nothing).
"""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.reports.compare import (
    ONLY_BASE,
    ONLY_NEW,
    compare_results,
    parse_threshold,
    render_comparison,
)
from mpiscope.result import load_result

__all__ = ["EXIT_REGRESSION", "add_parser", "run"]

EXIT_REGRESSION = 1


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "compare",
        help="compare two results point by point; exit code 1 on a regression",
        description="Compare two result documents point by point (same operation, size, "
        "process count and timing method): NEW/BASE, and whether the difference is "
        "significant (Mann-Whitney U on the raw samples when both kept them, else "
        "non-overlapping confidence intervals). Exit codes: 0 no significant regression "
        "beyond the threshold, 1 at least one, 2 bad input or no point in common. Results "
        "taken with different "
        "methods, timers or MPI libraries are compared, with a warning first.",
    )
    parser.add_argument("base", metavar="BASE", help="the reference result document (JSON)")
    parser.add_argument("new", metavar="NEW", help="the result document to judge (JSON)")
    parser.add_argument(
        "--threshold",
        default="5%",
        type=_threshold,
        help="smallest change that counts, as a percentage (5%%) or a fraction (0.05); default 5%%",
    )
    parser.set_defaults(handler=run)


def _threshold(text: str) -> float:
    try:
        return parse_threshold(text)
    except MpiscopeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    base, new = load_result(args.base), load_result(args.new)
    comparison = compare_results(base, new, args.threshold)
    if all(pair.verdict in (ONLY_BASE, ONLY_NEW) for pair in comparison.pairs):
        raise MpiscopeError(
            f"{args.base} and {args.new} have no point in common (same operation, size, "
            "process count and timing method): nothing was compared"
        )
    print(render_comparison(comparison))
    return EXIT_REGRESSION if comparison.regressions else 0
