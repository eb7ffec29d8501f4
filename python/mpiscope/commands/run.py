"""``mpiscope run OPS``: measure operations with mpiscope-bench under mpiexec.

Everything the user typed is checked by the plan (:mod:`mpiscope.measure.plan`)
before anything is launched; the bench then reads one plan document of
explicit values (``--dry-run`` prints it). After the run the result
document is shown as a report table. The options are
:func:`mpiscope.measure.command_options.add_run_options`; the measurement
is :func:`mpiscope.api.measure.measure_run` (``mpiscope.run()`` in Python).
"""

from __future__ import annotations

import argparse

from mpiscope.api.measure import measure_run, run_request
from mpiscope.measure.command_options import add_run_options

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "run",
        help="measure MPI operations",
        description="Measure MPI operations with the synchronized-window method and write a "
        "result document. Sizes accept K/M/G (1024-based): '1:1M:x4' (geometric), "
        "'0:64K:+4K' (arithmetic), '8,1K,64K' (list).",
    )
    add_run_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measure_run(run_request(vars(args)), show=True)
    return 0
