"""``mpiscope health``: which node, which link, which core (docs/health.md).

``mpiscope health --np N [launcher options] --out h.json`` runs the check
(:func:`mpiscope.api.health.record_health`) and prints the verdict;
``mpiscope health report h.json`` prints it again from the document;
``mpiscope html h.json`` draws it. Exit code: 0 healthy, 1 something is
out (named), 2 bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    from mpiscope.api.health import add_health_options

    p = commands.add_parser(
        "health",
        help="which node, which link, which core: cluster health and stragglers",
        description="Check an allocation before benchmarking it: the link matrix (latency and "
        "bandwidth of every pair of nodes, a round-robin of disjoint pairs timed on the global "
        "clock), stragglers in collectives (who arrives last, how often, by how much), and "
        "each node's fingerprint (per-core detours and their frequency, STREAM triad, clocks, "
        "the machine check). Prints the suspects, each with its measurement and how sure. "
        "'mpiscope health report FILE' prints a document again. Exit code 0: healthy, "
        "1: something is out (named), 2: bad input.",
    )
    p.add_argument(
        "what",
        nargs="*",
        metavar="report FILE",
        help="'report FILE': print the verdict of a health document",
    )
    add_health_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mpiscope.api.health import open_health, record_health

    if not args.what:
        return record_health(vars(args), show=True).exit_code
    if args.what[0] != "report" or len(args.what) != 2:
        raise MpiscopeError(
            f"health takes options to run a check, or 'report FILE' (not {' '.join(args.what)!r})"
        )
    health = open_health(Path(args.what[1]))
    print(health.text())
    return health.exit_code
