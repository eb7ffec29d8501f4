"""``mpiscope plot RESULT... [--out DIR] [--format png|svg|pdf]``: figures."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mpiscope.result import load_result

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "plot",
        help="draw the figures of result documents",
        description="Draw the figures of one or more result documents: time vs message size "
        "(log-log, confidence interval as a band, unstable points circled), bandwidth, "
        "per-rank heat map, start skew, and when the documents have them, timing methods "
        "compared, between-run variation and time vs number of processes. Several "
        "results share the figures (one line per file). Prints the files it wrote.",
    )
    parser.add_argument("files", nargs="+", metavar="RESULT", help="result document (JSON)")
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="folder for the figures, created if needed; files of the same name are replaced "
        "(default: RESULT's name without .json, plus -plots, next to the first RESULT)",
    )
    parser.add_argument(
        "--format", default="png", choices=("png", "svg", "pdf"), help="file format (default png)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mpiscope.outputs import check_output_dir
    from mpiscope.reports.plots.render import write_plots  # lazy: matplotlib

    first = Path(args.files[0])
    out = Path(args.out) if args.out else first.with_name(f"{first.stem}-plots")
    check_output_dir(out, "--out", create=False)
    results = [load_result(path) for path in args.files]
    for path in write_plots(results, out, args.format):
        print(path)
    return 0
