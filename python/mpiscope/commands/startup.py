"""``mpiscope startup``: how long MPI takes to start, and the first message.

Each run starts fresh processes that start MPI in one way - ``init``
(MPI_Init), ``init_thread`` (MPI_Init_thread at ``--thread-level``) or
``session`` (MPI_Session_init, a group from ``mpi://WORLD``,
MPI_Comm_create_from_group) - timing each call on every rank, then the
first, the second and later round trips to every peer (the connection
cost osu_init and OSU's ``-I`` show). The clocks are synchronized only
afterwards, and every stamp is put on the global clock. One run is one
sample of a start: the runs, ways and process counts are interleaved
(round r runs every process count and every way, the ways rotated each
round) and merged into one document, which the report summarizes over the
runs. The measurement is :func:`mpiscope.api.measure.measure_startup`
(``mpiscope.startup()`` in Python).
"""

from __future__ import annotations

import argparse
from typing import Any

from mpiscope.api.measure import measure_startup, startup_request
from mpiscope.measure.command_options import (
    DEFAULT_STARTUP_RUNS as DEFAULT_RUNS,
)
from mpiscope.measure.command_options import add_startup_options

__all__ = ["DEFAULT_RUNS", "add_parser", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "startup",
        help="how long MPI takes to start (MPI_Init, sessions) and the first message to a peer",
        description="Start MPI in fresh processes, run after run, and time on every rank "
        "each call that starts it (MPI_Init, MPI_Init_thread, or MPI_Session_init, "
        "MPI_Group_from_session_pset and MPI_Comm_create_from_group), then the first, second "
        "and later round trips to every peer (the first contact's connection cost); every "
        "stamp on the global clock made afterwards. Ways, process counts and runs are "
        "interleaved and merged into one result; the report gives the median over runs "
        "and their range.",
    )
    add_startup_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measure_startup(startup_request(vars(args)), show=True)
    return 0
