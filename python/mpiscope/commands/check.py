"""``mpiscope check``: can this machine's clocks be trusted?

Runs the bench's machine check (every timer, every clock-sync algorithm
with its sync time, exchanges, error bounds, residual and drift, and
against an injected clock transform whether each recovered the truth;
the wait patterns of known length) and prints what it found with a
VERDICT line per timer and per sync algorithm; the criteria are
:data:`mpiscope.reports.check.TIMER_CRITERIA` and
:data:`mpiscope.reports.check.SYNC_CRITERIA`. A timer that is not trusted is
information, not an error: the exit code is 0 unless the check could not
run (1) or the input was bad (2). The measurement is
:func:`mpiscope.api.measure.measure_check` (``mpiscope.check()`` in Python).
"""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.api.measure import check_request, measure_check
from mpiscope.measure.command_options import DEFAULT_DRIFT_SECONDS, add_check_options

__all__ = ["DEFAULT_DRIFT_SECONDS", "add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "check",
        help="check this machine's timers and clock sync (run it first)",
        description="Measure every timer (resolution, read overhead, monotonicity over "
        "millions of reads, invariant TSC and frequency error, the wait patterns of known "
        "length with their global span and start skew) and every clock-sync algorithm "
        "(residual offset now and after --drift-seconds: drift), then print a VERDICT line "
        "per timer and per algorithm. Exit code 0 even when something is not trusted.",
    )
    add_check_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measure_check(check_request(vars(args)), show=True)
    return 0
