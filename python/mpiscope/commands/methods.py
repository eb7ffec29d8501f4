"""``mpiscope methods OP...``: every timing method on the same operations and sizes.

One run measures each point with each method in turn (interleaved,
so every method sees the same machine state); the table gives each
method's median and its ratio to the window method's, and the barrier
method's suite views (what IMB/OSU would report). The window method is
always included: it is the baseline. The measurement is
:func:`mpiscope.api.measure.measure_methods` (``mpiscope.methods()`` in Python).
"""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.api.measure import measure_methods, methods_request
from mpiscope.measure.command_options import add_methods_options

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "methods",
        help="compare the timing methods on the same operations and sizes",
        description="Measure operations with several timing methods, interleaved in one run of "
        "the bench, and show each method's median and its ratio to the window method (the "
        "systematic error of the classic ways of timing). --method defaults to every method "
        "that applies to the operations; window is always added. Takes the options of 'run'.",
    )
    add_methods_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measure_methods(methods_request(vars(args)), show=True)
    return 0
