"""The options of a measurement as the command line takes them: the flags
of ``mpiscope run``, shared by the commands that measure (methods, overlap,
firstcall, check), with their choices and defaults.

Each flag's type checks its value alone (one line on error); the checks
that need several flags at once are :func:`mpiscope.measure.plan.plan_run`'s.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection

from mpiscope.measure.cluster import LAUNCHERS, add_cluster_options
from mpiscope.measure.defaults import ALWAYS_PASSED, SIMULATED_DEFAULTS, simulated_help
from mpiscope.measure.method_options import parse_arrival, parse_cache_modes, parse_methods
from mpiscope.measure.op_options import parse_op_option
from mpiscope.measure.simulation import DEFAULT_CFG, parse_cfg
from mpiscope.parsing import MAX_RANKS, choice, float_in, int_in
from mpiscope.result.describe import description, names, parameter
from mpiscope.result.methods import DEFAULT_METHOD, METHODS

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_RUNS",
    "MAX_SEED",
    "MAX_TIMEOUT",
    "RANKS_PER_CORE",
    "DEFAULT_MAX_LAUNCHES",
    "DEFAULT_NPROCS_SIZE",
    "DEFAULT_SIZES",
    "DTYPES",
    "REDUCE_OPS",
    "STOP_RULES",
    "SYNC_ALGORITHMS",
    "SYNC_PARAMETERS",
    "TIMERS",
    "add_launcher_options",
    "add_old_name",
    "add_measure_options",
    "engine_parameters",
    "measure_defaults",
]

#: With --oversubscribe, at most this many ranks per core on this machine:
#: beyond it a run measures nothing but the scheduler, and starting it
#: risks the machine (file descriptors, memory).
RANKS_PER_CORE = 16
#: The longest --timeout: 30 days.
MAX_TIMEOUT = 30 * 86400.0
#: The most runs of the bench (--runs): each is a whole MPI job.
MAX_RUNS = 1000
#: The largest seed (--seed): the engine's shuffle seeds are below 2**53.
MAX_SEED = 2**31 - 1

#: The engine's timers, sync algorithms and stopping rules (its description).
TIMERS = names("timers")
SYNC_ALGORITHMS = names("sync")
#: The clock sync's parameters besides the algorithm: ``mpiscope check``
#: applies them to every algorithm it compares.
SYNC_PARAMETERS = (
    "sync_patience", "sync_fitpoints", "sync_fit_gap_ns", "sync_node_leaders", "clock_transform",
)  # fmt: skip
STOP_RULES = names("stop_rules")
DEFAULT_SIZES = "1:1M:x4"
DEFAULT_NPROCS_SIZE = 1024
#: Launches per point at most, by stopping rule when --max-launches is not
#: given: the engine's default, and for the count rule the one its help names.
DEFAULT_MAX_LAUNCHES = {
    "error": int(parameter("max_launches")["default"]), "count": 100,
    "deterministic": int(parameter("max_launches")["default"]),
}  # fmt: skip

#: The engine's element types by kind (integer, floating, byte, char), and
#: its reductions with the kinds each applies to: both from the engine's
#: description, from the table that also refuses a mismatch in the plan.
DTYPES: dict[str, str] = {t["name"]: t["kind"] for t in description()["element_types"]}
REDUCE_OPS: dict[str, frozenset[str]] = {
    r["name"]: frozenset(r["kinds"]) for r in description()["reductions"]
}

#: Plan parameters with a command line of their own: the point order
#: (--runs, --seed), the check's pause (mpiscope check --drift-seconds)
#: and what to start (mpiscope startup).
_NOT_FLAGS = frozenset({"shuffle", "drift_seconds", "startup"})
#: How an unknown value is named in the error line.
_WHAT = {
    "sync": "clock sync algorithm",
    "stop": "stopping rule",
    "dtype": "datatype",
    "reduce_op": "reduction",
}
#: Where the command line is stricter than the engine, and why.
_CLI_MIN = {
    "min_valid": 2,  # a standard error needs two launches
    "window_ns": 0,  # exclusive below: the flag gives a fixed window; the engine's 0 sizes it
}


def engine_parameters() -> list[dict[str, Any]]:
    """The engine's parameters that ``run`` takes as flags of the same name
    (``target_rse``: ``--target-rse``), in the engine's order."""
    kinds = ("number", "integer", "choice", "element type", "reduction")
    return [
        param
        for param in description()["plan_parameters"]
        if param["type"] in kinds and param["name"] not in _NOT_FLAGS
    ]


def _simulated_default(param: dict[str, Any]) -> dict[str, Any]:
    """The flag's keywords, its default and help saying what a simulated
    run takes instead (:data:`~mpiscope.measure.defaults.SIMULATED_DEFAULTS`; resolved by
    :meth:`mpiscope.measure.request.MeasureRequest.value`)."""
    flag = _engine_flag(param)
    name = param["name"]
    if name not in SIMULATED_DEFAULTS:
        return flag
    default = param["default"] if flag["default"] is None else flag["default"]
    unit = f"{param['unit']}; " if param["unit"] not in ("", "1", "rank") else ""
    help_text = flag["help"].replace(f" (default {default})", "").replace(f" ({unit[:-2]})", "")
    flag["help"] = f"{help_text} ({unit}default {default}, {simulated_help(name)})"
    flag["default"] = None
    return flag


def _engine_flag(param: dict[str, Any]) -> dict[str, Any]:
    """The argparse keywords of the flag that sets an engine parameter: its
    type from the parameter's kind and range, its help and default."""
    name, kind, default = param["name"], param["type"], param["default"]
    passed = name in ALWAYS_PASSED
    what = _WHAT.get(name, name.replace("_", " "))
    if kind in ("choice", "element type", "reduction"):
        known: Collection[str] = (DTYPES if kind == "element type" else
                                REDUCE_OPS if kind == "reduction" else param["choices"])
        parse: Any = choice(known, what, mpi_prefix=kind != "choice")
        shown = "|".join(known) if kind == "choice" else ", ".join(known)
        help_text = f"{param['help']}: {shown}"
    elif kind == "integer":
        low = _CLI_MIN.get(name, param["min"])
        parse = int_in(low, param["max"], bool(param.get("power_of_two")))
        default = int(default)
        help_text = str(param["help"])
    else:
        low = _CLI_MIN.get(name, param["min"])
        low_open = bool(param.get("min_exclusive")) or name in _CLI_MIN
        parse = float_in(low, param["max"], low_open, bool(param.get("max_exclusive")))
        default = float(default)
        help_text = str(param["help"])
    unit = f" {param['unit']}" if param["unit"] not in ("", "1", "rank") else ""
    if passed:
        help_text += f" (default {default:g}{unit})" if kind in ("number", "integer") else (
            f" (default {default})"
        )
    elif unit:
        help_text += f" ({unit.strip()})"
    metavar = {"number": "X", "integer": "N"}.get(kind, "NAME")
    return {
        "type": parse,
        "default": default if passed else None,
        "help": help_text,
        "metavar": metavar,
    }


def add_measure_options(
    p: argparse.ArgumentParser, runs: bool = True, only: Collection[str] | None = None
) -> None:
    """The options of ``run``, for the commands that take them too:
    ``runs``: with ``--runs`` and ``--seed``; ``only``: just these
    (the launcher's are always there: every measuring command runs on a
    simulated cluster and under srun too; a command that names ``--launcher``
    in ``only`` chooses its launcher flags itself and keeps ``--nodes`` and
    ``--ppn`` for a meaning of its own)."""

    def add(flag: str, **kwargs: Any) -> None:
        if only is None or flag in only:
            p.add_argument(flag, **kwargs)
    add_launcher_options(p, counts=only is None or "--launcher" not in only)
    add("--np", type=int_in(1, MAX_RANKS), default=2, metavar="N",
        help="MPI processes (default 2; more than the cores only with --oversubscribe, "
        f"and then at most {RANKS_PER_CORE} per core)")
    add("--sizes", metavar="SPEC", help=f"message sizes in bytes (default {DEFAULT_SIZES})")
    add(
        "--nprocs",
        metavar="SPEC",
        help="vary the process count instead of the size, e.g. 2,3,4 or 2:8 (each <= --np); "
        f"--sizes is then one size (default {DEFAULT_NPROCS_SIZE})",
    )
    engine = description()
    cache_default = list(parameter("cache")["default"])
    add(
        "--cache",
        type=parse_cache_modes,
        default=cache_default,
        metavar="MODE",
        help="; ".join(f"{c['name']}: {c['description']}" for c in engine["cache"])
        + f"; several, comma-separated: every point measured each way side by side "
        f"(default {','.join(cache_default)})",
    )
    add(
        "--method",
        type=parse_methods,
        metavar="M[,M...]",
        help="timing method(s), several measured interleaved: "
        + ", ".join(name + (" (default)" if name == DEFAULT_METHOD else "") for name in METHODS)
        + " (see 'mpiscope methods')",
    )
    scheduled = ", ".join(name for name, info in METHODS.items() if info.scheduled)
    add(
        "--arrival",
        type=parse_arrival,
        metavar="SPEC",
        help=f"start ranks at controlled offsets ({scheduled}): {engine['arrival']['grammar']}; "
        + "; ".join(f"{a['name']}: {a['description']}" for a in engine["arrival"]["patterns"])
        + "; US in microseconds",
    )
    add(
        "--clock-transform",
        metavar="SPEC",
        help=f"{parameter('clock_transform')['help']}; e.g. 'random:seed=1,offset=1e6,drift=50' "
        "(docs/clock-sync.md)",
    )
    for param in engine_parameters():
        add(f"--{param['name'].replace('_', '-')}", **_simulated_default(param))
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
    add("--out", metavar="FILE",
        help="result file (default mpiscope-YYYYmmdd-HHMMSS.json; -2, -3... when taken)")
    add("--force", action="store_true", help="overwrite an existing --out file")
    add(
        "--oversubscribe",
        action="store_true",
        help="allow more processes than available cores (timings then suffer)",
    )
    add("--mpi", metavar="NAME", help="MPI installation (default: MPISCOPE_MPI, else mpich)")
    add(
        "--timeout",
        type=float_in(0, MAX_TIMEOUT, low_open=True),
        metavar="S",
        help=f"stop the whole run after S seconds, at most {MAX_TIMEOUT:g} (default: none)",
    )
    add("--quiet", action="store_true", help="no progress display")
    add(
        "--dry-run",
        action="store_true",
        help="check everything, print the plan the bench would read (JSON, docs/plan-format.md) "
        "and launch nothing",
    )
    add(
        "--option",
        type=parse_op_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the operations (see list-ops), e.g. mode=nonblocking; repeatable",
    )
    if not runs:
        return
    add_old_name(p, "--launches", "runs", int_in(1, MAX_RUNS))
    add(
        "--runs",
        type=int_in(1, MAX_RUNS),
        default=1,
        metavar="R",
        help="R separate runs of the bench (each one mpiexec), each in its own random order "
        "of points, merged into "
        f"one result with per-point within- and between-run variation (default 1, at most "
        f"{MAX_RUNS})",
    )
    add(
        "--seed",
        type=int_in(0, MAX_SEED),
        metavar="S",
        help="seed of the runs' point orders and of the bootstrap (default: random, "
        "recorded in the result)",
    )


def add_old_name(p: argparse.ArgumentParser, flag: str, dest: str, kind: Any = None) -> None:
    """``flag``, the name before schema 1.11 of the option whose value is
    ``dest``, still read but not shown (added before the new one, so that
    the Python API, which keys options by ``dest``, writes the new name)."""
    extra = {} if kind is None else {"type": kind}
    p.add_argument(flag, dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **extra)


def add_launcher_options(p: argparse.ArgumentParser, counts: bool = True) -> None:
    """``--launcher``, ``--platform`` and ``--smpi-cfg`` (mpiscope.measure.simulation),
    and the placement flags of real runs (mpiscope.measure.cluster; ``counts``:
    with ``--nodes`` and ``--ntasks-per-node``)."""
    p.add_argument(
        "--launcher",
        type=choice(LAUNCHERS, "launcher"),
        default="mpiexec",
        metavar="NAME",
        help="how the ranks start: mpiexec (default: the --mpi installation's), srun (Slurm; "
        "docs/clusters.md) or smpi (a simulated cluster: SimGrid SMPI on --platform; "
        "docs/simulation.md)",
    )
    add_cluster_options(p, counts)
    p.add_argument(
        "--platform",
        metavar="NAME|FILE",
        help="with --launcher smpi: the simulated cluster, a shipped platform (flat-1024, "
        "cluster-8x8, cluster-30x8, fat-tree) or a SimGrid platform file",
    )
    p.add_argument(
        "--smpi-cfg",
        type=parse_cfg,
        action="append",
        default=[],
        metavar="KEY:VALUE",
        help=f"with --launcher smpi: a SimGrid setting passed as --cfg=KEY:VALUE, after "
        f"{' '.join(DEFAULT_CFG)}; repeatable",
    )


def measure_defaults() -> dict[str, Any]:
    """Every option of ``run`` at its default, for commands that expose fewer."""
    parser = argparse.ArgumentParser(add_help=False)
    add_measure_options(parser)
    return vars(parser.parse_args([]))
