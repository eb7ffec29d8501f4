"""``mpiscope firstcall OP...``: the first call of an operation against its second.

Many MPI libraries connect peers on the first call of an operation (late
initialization). To see it, every operation gets its OWN run -
fresh processes, where nothing has run before - and in it a fresh
communicator; call 1 and call 2 (same size, buffer at another address) are
timed on every rank. The runs are merged into one document and shown
in the layout of the seed's Table 1. The measurement is
:func:`mpiscope.api.measure.measure_firstcall` (``mpiscope.firstcall()`` in Python).
"""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.api.measure import firstcall_request, measure_firstcall
from mpiscope.measure.command_options import DEFAULT_SIZE, add_firstcall_options

__all__ = ["DEFAULT_SIZE", "add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "firstcall",
        help="first call vs second call of each operation (late initialization)",
        description="Time the first and the second call of each operation on every rank. "
        "Each operation runs in its own run - fresh processes, a fresh "
        "communicator - so the late initialization that many MPI libraries do on the first "
        "call of each operation is seen; the second call uses a buffer at another address. "
        "Prints, per operation, rank 0's ratio of the first call's time to the second's and "
        "the max-over-ranks ratio (the seed's Table 1), with the times.",
    )
    add_firstcall_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measure_firstcall(firstcall_request(vars(args)), show=True)
    return 0
