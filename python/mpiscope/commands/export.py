"""``mpiscope export RESULT --format csv|parquet|json [--raw] [-o FILE]``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.result import load_result

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "export",
        help="write a result as a flat table (CSV, Parquet, JSON)",
        description="Write a result document as a flat table, one row per point (or, with "
        "--raw, one row per launch and rank), units in the column names: CSV or JSON to "
        "standard output or -o FILE, Parquet to -o FILE.",
    )
    parser.add_argument("file", metavar="RESULT", help="result document (JSON)")
    parser.add_argument(
        "--format", default="csv", choices=("csv", "parquet", "json"), help="default csv"
    )
    parser.add_argument(
        "--raw",
        action="store_true",
        help="one row per launch (and rank) from the raw samples (mpiscope run --raw)",
    )
    parser.add_argument(
        "-o", "--out", metavar="FILE", help="output file, replaced if it exists (default stdout)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mpiscope.reports.export import export_bytes, write_export  # lazy: pandas

    if args.format == "parquet" and args.out is None:
        raise MpiscopeError("--format parquet writes a binary file: give -o FILE")
    out = None
    if args.out is not None:
        from mpiscope.outputs import check_output

        out = check_output(args.out, inputs=[args.file], what="-o")
    data = export_bytes(load_result(args.file), args.format, raw=args.raw)
    if out is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        write_export(data, out)
        print(args.out)
    return 0
