"""``mpiscope overlap OP``: how much of a nonblocking (or persistent)
collective overlaps with computation, measured as MPIPerf and OSU do
(:mod:`mpiscope.measure.overlap`).

Both result documents are written (``OUT`` and ``OUT`` with ``.blocking``
before the suffix) and a summary (``.overlap`` before the suffix). The
measurement is :func:`mpiscope.api.measure.measure_overlap`
(``mpiscope.overlap()`` in Python).
"""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.api.measure import measure_overlap, overlap_request
from mpiscope.measure.command_options import add_overlap_options

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "overlap",
        help="measure how much of a nonblocking collective overlaps with computation",
        description="Measure the blocking counterpart of a nonblocking or persistent operation, "
        "then the operation with as much computation as the blocking time at each size, and "
        "report overlap = 1 - (total - compute) / blocking (MPIPerf, OSU). Takes the options "
        "of 'run'; --option test_us=US sets how often MPI_Test is called while computing; "
        "--dry-run prints the first pass's plan (the second's compute times are its results).",
    )
    add_overlap_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measure_overlap(overlap_request(vars(args)), show=True)
    return 0
