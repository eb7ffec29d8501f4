"""The options of a measurement as the command line takes them: the flags
of ``mpiscope run``, shared by the commands that measure (methods, overlap,
firstcall, check), with their choices and defaults.

Each flag's type checks its value alone (one line on error); the checks
that need several flags at once are :func:`mpiscope.measure.plan.plan_run`'s.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection
from typing import Any

from mpiscope.measure.method_options import parse_arrival, parse_cache_modes, parse_methods
from mpiscope.measure.op_options import parse_op_option
from mpiscope.parsing import choice, float_in, int_at_least, power_of_two

__all__ = [
    "DEFAULT_MAX_LAUNCHES",
    "DEFAULT_NPROCS_SIZE",
    "DEFAULT_SIZES",
    "DTYPES",
    "REDUCE_OPS",
    "STOP_RULES",
    "SYNC_ALGORITHMS",
    "TIMERS",
    "add_measure_options",
    "measure_defaults",
]

TIMERS = ("auto", "tsc", "monotonic", "gettimeofday", "wtime")
SYNC_ALGORITHMS = ("linear", "ring")
STOP_RULES = ("error", "count")
DEFAULT_SIZES = "1:1M:x4"
DEFAULT_NPROCS_SIZE = 1024
DEFAULT_MAX_LAUNCHES = {"error": 1000, "count": 100}

# The element types the engine knows (src/engine/opctx.c), by kind; the kind
# decides which reductions the MPI standard allows ("Predefined Reduction
# Operations"). MPI_CHAR is text, valid for no reduction.
DTYPES: dict[str, str] = {
    **dict.fromkeys(
        (
            "signed_char", "unsigned_char", "short", "unsigned_short", "int", "unsigned",
            "long", "unsigned_long", "long_long", "unsigned_long_long", "int8_t", "int16_t",
            "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
        ),
        "integer",
    ),
    **dict.fromkeys(("float", "double", "long_double"), "floating"),
    "byte": "byte",
    "char": "char",
}  # fmt: skip
REDUCE_OPS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("sum", "prod"), frozenset({"integer", "floating", "complex"})),
    **dict.fromkeys(("max", "min"), frozenset({"integer", "floating"})),
    **dict.fromkeys(("land", "lor", "lxor"), frozenset({"integer"})),
    **dict.fromkeys(("band", "bor", "bxor"), frozenset({"integer", "byte"})),
}



def add_measure_options(
    p: argparse.ArgumentParser, launches: bool = True, only: Collection[str] | None = None
) -> None:
    """The options of ``run``, for the commands that take them too:
    ``launches``: with ``--launches`` and ``--seed``; ``only``: just these."""

    def add(flag: str, **kwargs: Any) -> None:
        if only is None or flag in only:
            p.add_argument(flag, **kwargs)
    add("--np", type=int_at_least(1), default=2, metavar="N", help="MPI processes (default 2)")
    add("--sizes", metavar="SPEC", help=f"message sizes in bytes (default {DEFAULT_SIZES})")
    add(
        "--nprocs",
        metavar="SPEC",
        help="vary the process count instead of the size, e.g. 2,3,4 or 2:8 (each <= --np); "
        f"--sizes is then one size (default {DEFAULT_NPROCS_SIZE})",
    )
    add("--timer", type=choice(TIMERS, "timer"), default="auto", help="|".join(TIMERS))
    add(
        "--sync",
        type=choice(SYNC_ALGORITHMS, "clock sync algorithm"),
        default="linear",
        help="clock synchronization: linear|ring (default linear)",
    )
    add(
        "--stop",
        type=choice(STOP_RULES, "stopping rule"),
        default="error",
        help="stopping rule: error (target RSE) or count (default error)",
    )
    add(
        "--target-rse",
        type=float_in(0, None, True, True),
        default=0.05,
        metavar="F",
        help="error rule: target relative standard error of the mean (default 0.05)",
    )
    add(
        "--min-valid",
        type=int_at_least(2),
        default=10,
        metavar="N",
        help="error rule: valid launches needed at least (default 10)",
    )
    add(
        "--max-valid",
        type=int_at_least(1),
        default=30,
        metavar="N",
        help="count rule: valid launches to collect (default 30)",
    )
    add(
        "--max-launches",
        type=int_at_least(1),
        metavar="N",
        help="launches per point at most (default 1000 for error, 100 for count)",
    )
    add(
        "--max-point-seconds",
        type=float_in(0, None, True, True),
        default=30.0,
        metavar="S",
        help="seconds per point at most (default 30)",
    )
    add(
        "--confidence",
        type=float_in(0, 1, True, True),
        default=0.95,
        metavar="P",
        help="confidence level of the interval, 0<P<1 (default 0.95)",
    )
    add(
        "--trim",
        type=float_in(0, 0.5, False, True),
        default=0.25,
        metavar="F",
        help="fraction trimmed from each end before the mean (default 0.25)",
    )
    add(
        "--cache",
        type=parse_cache_modes,
        default=["cold"],
        metavar="MODE",
        help="cold (rotate buffers beyond the LLC), warm, or cold,warm (every point measured "
        "both ways, side by side) (default cold)",
    )
    add(
        "--method",
        type=parse_methods,
        metavar="M[,M...]",
        help="timing method(s), several measured interleaved: window (default), roundtime, "
        "barrier, barrier-each, none, root, max, global, bcast-supinski (see 'mpiscope methods')",
    )
    add(
        "--gap-ns",
        type=float_in(0, None, False, True),
        metavar="X",
        help="idle gap before each launch, ns (roundtime: after the previous launch's end; "
        "barrier-each, max, root, global: after the barrier; window: window = need + gap)",
    )
    add(
        "--window-ns",
        type=float_in(0, None, True, True),
        metavar="X",
        help="fixed window length of the window method, ns (no adaptation)",
    )
    add(
        "--arrival",
        type=parse_arrival,
        metavar="SPEC",
        help="start ranks at controlled offsets (window, roundtime): none, late:RANK:US, "
        "linear:US (rank i late by i*US), random:US[:SEED] (uniform in [0, US]); US in us",
    )
    add(
        "--align",
        type=power_of_two,
        default=64,
        metavar="BYTES",
        help="buffer alignment, a power of two (default 64)",
    )
    add("--root", type=int_at_least(0), default=0, metavar="R", help="root rank (default 0)")
    add(
        "--dtype",
        type=choice(DTYPES, "datatype", mpi_prefix=True),
        default="double",
        help="element type of reductions (default double)",
    )
    add(
        "--reduce-op",
        type=choice(REDUCE_OPS, "reduction", mpi_prefix=True),
        default="sum",
        metavar="NAME",
        help="reduction operation: " + ",".join(REDUCE_OPS) + " (default sum)",
    )
    add(
        "--window-min-ns",
        type=float_in(0, None, False, True),
        default=1000.0,
        metavar="X",
        help="smallest launch window in ns (default 1000)",
    )
    add("--per-rank", action="store_true", help="show per-rank rows in the final table")
    add("--raw", action="store_true", help="keep raw per-launch samples in the result")
    add(
        "--resync",
        action="store_true",
        help="synchronize the clocks again before every point (long runs, drifting clocks)",
    )
    add(
        "--validate",
        action="store_true",
        help="check every received buffer and report the first mismatch (timings then warm)",
    )
    add("--out", metavar="FILE", help="result file (default mpiscope-YYYYmmdd-HHMMSS.json)")
    add("--force", action="store_true", help="overwrite an existing --out file")
    add(
        "--oversubscribe",
        action="store_true",
        help="allow more processes than available cores (timings then suffer)",
    )
    add("--mpi", metavar="NAME", help="MPI installation (default: MPISCOPE_MPI, else mpich)")
    add(
        "--timeout",
        type=float_in(0, None, True, True),
        metavar="S",
        help="stop the whole run after S seconds (default: none)",
    )
    add("--quiet", action="store_true", help="no progress display")
    add(
        "--option",
        type=parse_op_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the operations (see list-ops), e.g. mode=nonblocking; repeatable",
    )
    if not launches:
        return
    add(
        "--launches",
        type=int_at_least(1),
        default=1,
        metavar="R",
        help="R separate bench launches, each in its own random order of points, merged into "
        "one result with per-point within- and between-launch variation (default 1)",
    )
    add(
        "--seed",
        type=int_at_least(0),
        metavar="S",
        help="seed of the launches' point orders and of the bootstrap (default: random, "
        "recorded in the result)",
    )


def measure_defaults() -> dict[str, Any]:
    """Every option of ``run`` at its default, for commands that expose fewer."""
    parser = argparse.ArgumentParser(add_help=False)
    add_measure_options(parser)
    return vars(parser.parse_args([]))
