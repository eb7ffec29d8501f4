"""``mpiscope run OPS``: measure operations with mpiscope-bench under mpiexec.

Everything the user typed is parsed and checked here, before anything is
launched: sizes and process counts, statistics parameters, the output file,
the number of cores, the MPI installation and the operation names. The
bench then receives explicit values only. After the run the result document
is shown as a report table.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mpiscope.commands.list_ops import query_ops
from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.launcher import (
    build_env,
    describe_exit,
    format_command,
    mpiexec_command,
    run_streaming,
)
from mpiscope.measure.method_options import (
    DEFAULT_METHOD,
    Arrival,
    check_method_options,
    parse_arrival,
    parse_cache_modes,
    parse_methods,
)
from mpiscope.measure.op_options import check_op_options, parse_op_option
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.sizes import parse_nprocs_spec, parse_size_spec
from mpiscope.mpi_profile import MpiProfile, select_profile
from mpiscope.reports.report import render_report
from mpiscope.result import load_result

__all__ = [
    "RunPlan",
    "add_measure_options",
    "add_parser",
    "bench_arguments",
    "check_ops",
    "check_out",
    "measure_defaults",
    "plan_run",
    "run",
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


# --- argument types: each raises ArgumentTypeError, shown as one line -----------


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


def _float_in(
    low: float, high: float | None, low_open: bool, high_open: bool
) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
        below = value <= low if low_open else value < low
        above = high is not None and (value >= high if high_open else value > high)
        if below or above or value != value:
            left = "(" if low_open else "["
            right = ")" if high_open else "]"
            upper = "inf" if high is None else f"{high:g}"
            raise argparse.ArgumentTypeError(
                f"must be in {left}{low:g}, {upper}{right}, not {text}"
            )
        return value

    return parse


def _power_of_two(text: str) -> int:
    value = _int_at_least(1)(text)
    if value & (value - 1):
        raise argparse.ArgumentTypeError(f"must be a power of two, not {value}")
    return value


def _choice(
    choices: tuple[str, ...] | dict[str, Any], what: str, mpi_prefix: bool = False
) -> Callable[[str], str]:
    def parse(text: str) -> str:
        name = text.strip().lower()
        if mpi_prefix and name.startswith("mpi_"):
            name = name[4:]  # MPI_DOUBLE, mpi_sum: the names of the MPI standard
        if name in choices:
            return name
        raise argparse.ArgumentTypeError(_unknown(what, text, list(choices)))

    return parse


def _unknown(what: str, name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name.lower(), known, n=1)
    if close:
        return f"unknown {what} {name!r} (did you mean {close[0]!r}?)"
    return f"unknown {what} {name!r} (known: {', '.join(known)})"


# --- the parser ---------------------------------------------------------------


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "run",
        help="measure MPI operations",
        description="Measure MPI operations with the synchronized-window method and write a "
        "result document. Sizes accept K/M/G (1024-based): '1:1M:x4' (geometric), "
        "'0:64K:+4K' (arithmetic), '8,1K,64K' (list).",
    )
    p.add_argument("ops", metavar="OPS", help="operations, comma-separated (see list-ops)")
    add_measure_options(p)
    p.set_defaults(handler=run)


def add_measure_options(
    p: argparse.ArgumentParser, launches: bool = True, only: Collection[str] | None = None
) -> None:
    """The options of ``run``, for the commands that take them too:
    ``launches``: with ``--launches`` and ``--seed``; ``only``: just these."""

    def add(flag: str, **kwargs: Any) -> None:
        if only is None or flag in only:
            p.add_argument(flag, **kwargs)
    add("--np", type=_int_at_least(1), default=2, metavar="N", help="MPI processes (default 2)")
    add("--sizes", metavar="SPEC", help=f"message sizes in bytes (default {DEFAULT_SIZES})")
    add(
        "--nprocs",
        metavar="SPEC",
        help="vary the process count instead of the size, e.g. 2,3,4 or 2:8 (each <= --np); "
        f"--sizes is then one size (default {DEFAULT_NPROCS_SIZE})",
    )
    add("--timer", type=_choice(TIMERS, "timer"), default="auto", help="|".join(TIMERS))
    add(
        "--sync",
        type=_choice(SYNC_ALGORITHMS, "clock sync algorithm"),
        default="linear",
        help="clock synchronization: linear|ring (default linear)",
    )
    add(
        "--stop",
        type=_choice(STOP_RULES, "stopping rule"),
        default="error",
        help="stopping rule: error (target RSE) or count (default error)",
    )
    add(
        "--target-rse",
        type=_float_in(0, None, True, True),
        default=0.05,
        metavar="F",
        help="error rule: target relative standard error of the mean (default 0.05)",
    )
    add(
        "--min-valid",
        type=_int_at_least(2),
        default=10,
        metavar="N",
        help="error rule: valid launches needed at least (default 10)",
    )
    add(
        "--max-valid",
        type=_int_at_least(1),
        default=30,
        metavar="N",
        help="count rule: valid launches to collect (default 30)",
    )
    add(
        "--max-launches",
        type=_int_at_least(1),
        metavar="N",
        help="launches per point at most (default 1000 for error, 100 for count)",
    )
    add(
        "--max-point-seconds",
        type=_float_in(0, None, True, True),
        default=30.0,
        metavar="S",
        help="seconds per point at most (default 30)",
    )
    add(
        "--confidence",
        type=_float_in(0, 1, True, True),
        default=0.95,
        metavar="P",
        help="confidence level of the interval, 0<P<1 (default 0.95)",
    )
    add(
        "--trim",
        type=_float_in(0, 0.5, False, True),
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
        type=_float_in(0, None, False, True),
        metavar="X",
        help="idle gap before each launch, ns (roundtime: after the previous launch's end; "
        "barrier-each, max, root, global: after the barrier; window: window = need + gap)",
    )
    add(
        "--window-ns",
        type=_float_in(0, None, True, True),
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
        type=_power_of_two,
        default=64,
        metavar="BYTES",
        help="buffer alignment, a power of two (default 64)",
    )
    add("--root", type=_int_at_least(0), default=0, metavar="R", help="root rank (default 0)")
    add(
        "--dtype",
        type=_choice(DTYPES, "datatype", mpi_prefix=True),
        default="double",
        help="element type of reductions (default double)",
    )
    add(
        "--reduce-op",
        type=_choice(REDUCE_OPS, "reduction", mpi_prefix=True),
        default="sum",
        metavar="NAME",
        help="reduction operation: " + ",".join(REDUCE_OPS) + " (default sum)",
    )
    add(
        "--window-min-ns",
        type=_float_in(0, None, False, True),
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
        type=_float_in(0, None, True, True),
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
        type=_int_at_least(1),
        default=1,
        metavar="R",
        help="R separate bench launches, each in its own random order of points, merged into "
        "one result with per-point within- and between-launch variation (default 1)",
    )
    add(
        "--seed",
        type=_int_at_least(0),
        metavar="S",
        help="seed of the launches' point orders and of the bootstrap (default: random, "
        "recorded in the result)",
    )


def measure_defaults() -> dict[str, Any]:
    """Every option of ``run`` at its default, for commands that expose fewer."""
    parser = argparse.ArgumentParser(add_help=False)
    add_measure_options(parser)
    return vars(parser.parse_args([]))


# --- the plan: everything checked, nothing launched ---------------------------------


@dataclass(frozen=True)
class RunPlan:
    """A checked run: what to pass to the bench and where the result goes."""

    ops: list[str]
    sizes: list[int]
    nprocs: list[int] | None
    out: Path
    oversubscribed: bool
    max_launches: int
    methods: tuple[str, ...] = ()  # empty: the bench's default (window)
    arrival: Arrival | None = None
    shuffle_seed: int | None = None  # measure the points in a random order
    options: tuple[tuple[str, str], ...] = ()  # operation-specific, checked by check_ops


def available_cores() -> int:
    """Cores this process may run on (its affinity mask)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def plan_run(args: argparse.Namespace) -> RunPlan:
    """Check every local input; raise MpiscopeError on the first problem."""
    ops = [name.strip() for name in args.ops.split(",")]
    if not all(ops):
        raise MpiscopeError(f"bad operation list {args.ops!r}: empty name")
    if len({op.lower() for op in ops}) != len(ops):
        raise MpiscopeError(f"bad operation list {args.ops!r}: an operation appears twice")
    nprocs = parse_nprocs_spec(args.nprocs) if args.nprocs is not None else None
    sizes = parse_size_spec(args.sizes) if args.sizes is not None else None
    if nprocs is not None:
        if sizes is None:
            sizes = [DEFAULT_NPROCS_SIZE]
        elif len(sizes) != 1:
            raise MpiscopeError(
                f"with --nprocs, --sizes must be one size, not {len(sizes)} ({args.sizes!r})"
            )
        if max(nprocs) > args.np:
            raise MpiscopeError(
                f"--nprocs {args.nprocs!r} goes up to {max(nprocs)}, more than --np {args.np}"
            )
    elif sizes is None:
        sizes = parse_size_spec(DEFAULT_SIZES)
    smallest = min(nprocs) if nprocs else args.np
    if args.root >= smallest:
        raise MpiscopeError(f"--root {args.root} is not a rank of a {smallest}-process run")
    methods = tuple(args.method or ())
    check_method_options(ops, methods or (DEFAULT_METHOD,), args.arrival, args.window_ns, args.np)
    kinds = REDUCE_OPS[args.reduce_op]
    if DTYPES[args.dtype] not in kinds:
        raise MpiscopeError(
            f"--reduce-op {args.reduce_op} does not apply to --dtype {args.dtype} "
            f"(it needs a type of kind: {', '.join(sorted(kinds))})"
        )
    max_launches = args.max_launches or DEFAULT_MAX_LAUNCHES[args.stop]
    cores = available_cores()
    oversubscribed = args.np > cores
    if oversubscribed and not args.oversubscribe:
        raise MpiscopeError(
            f"--np {args.np} is more than the {cores} core(s) available: oversubscribed ranks "
            "measure the scheduler, not MPI (use --oversubscribe to run anyway)"
        )
    return RunPlan(
        ops, sizes, nprocs, check_out(args), oversubscribed, max_launches, methods, args.arrival,
        options=tuple(getattr(args, "option", None) or ()),
    )


def check_out(args: argparse.Namespace) -> Path:
    """The absolute ``--out`` path (default: a time-stamped name), refused when
    it exists without ``--force`` or cannot be written."""
    name = args.out or time.strftime("mpiscope-%Y%m%d-%H%M%S.json")
    out = Path(name).expanduser().absolute()
    if out.is_dir():
        raise MpiscopeError(f"{name} is a directory")
    if out.exists() and not args.force:
        raise MpiscopeError(f"{name} exists (use --force to overwrite)")
    if not out.parent.is_dir():
        raise MpiscopeError(f"cannot write {name}: directory {out.parent} does not exist")
    if not os.access(out.parent, os.W_OK):
        raise MpiscopeError(f"cannot write {name}: directory {out.parent} is not writable")
    return out


def check_ops(plan: RunPlan, profile: MpiProfile) -> list[str]:
    """The requested operations by their catalogue names (case does not
    matter); an unknown one is an error, and so is an option none of them has."""
    _, catalogue = query_ops(profile)
    known = {op.name.lower(): op.name for op in catalogue}
    for name in plan.ops:
        if name.lower() not in known:
            raise MpiscopeError(_unknown("operation", name, list(known.values())))
    ops = [known[name.lower()] for name in plan.ops]
    check_op_options(plan.options, [op for op in catalogue if op.name in ops])
    return ops


def bench_arguments(
    args: argparse.Namespace, plan: RunPlan, profile: MpiProfile, launcher: list[str]
) -> list[str]:
    """The bench's arguments: explicit values for everything."""
    values: list[tuple[str, str]] = [
        ("--ops", ",".join(plan.ops)),
        ("--sizes", ",".join(str(size) for size in plan.sizes)),
    ]
    if plan.nprocs is not None:
        values.append(("--nprocs", ",".join(str(n) for n in plan.nprocs)))
    values += [
        ("--timer", args.timer),
        ("--sync", args.sync),
        ("--stop", args.stop),
        ("--target-rse", repr(args.target_rse)),
        ("--min-valid", str(args.min_valid)),
        ("--max-valid", str(args.max_valid)),
        ("--max-launches", str(plan.max_launches)),
        ("--max-point-seconds", repr(args.max_point_seconds)),
        ("--confidence", repr(args.confidence)),
        ("--trim", repr(args.trim)),
        ("--cache", ",".join(args.cache)),
        ("--align", str(args.align)),
        ("--root", str(args.root)),
        ("--dtype", args.dtype),
        ("--reduce-op", args.reduce_op),
        ("--window-min-ns", repr(args.window_min_ns)),
    ]
    if plan.methods:
        values.append(("--method", ",".join(plan.methods)))
    if args.gap_ns is not None:
        values.append(("--gap-ns", repr(args.gap_ns)))
    if args.window_ns is not None:
        values.append(("--window-ns", repr(args.window_ns)))
    if plan.arrival is not None:
        values.append(("--arrival", plan.arrival.bench_text))
    if plan.shuffle_seed is not None:
        values.append(("--shuffle", str(plan.shuffle_seed)))
    values += [("--op-option", f"{name}={value}") for name, value in plan.options]
    values += [
        ("--out", str(plan.out)),
        ("--meta", "command_line=" + shlex.join(["mpiscope", *getattr(args, "argv", [])])),
        ("--meta", f"launcher={format_command(launcher)}"),
        ("--meta", f"mpi_implementation={profile.implementation}"),
    ]
    flags = {
        "--progress": True,
        "--raw": args.raw,
        "--validate": args.validate,
        "--resync": args.resync,
        "--force": args.force,
        "--oversubscribed": plan.oversubscribed,
    }
    argv = [item for pair in values for item in pair]
    return argv + [flag for flag, wanted in flags.items() if wanted]


# --- running ------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    plan = plan_run(args)
    profile = select_profile(args.mpi)
    bench = profile.check_bench()
    launcher = mpiexec_command(profile, args.np, args.oversubscribe)
    profile.check_mpiexec()
    plan = replace(plan, ops=check_ops(plan, profile))
    if getattr(args, "launches", 1) > 1:
        from mpiscope.measure.runner import run_repeated  # several launches, merged

        return run_repeated(args, plan, profile, launcher, bench)
    command = launcher + [bench] + bench_arguments(args, plan, profile, launcher)
    before = _file_id(plan.out)
    display = ProgressDisplay(quiet=args.quiet, nprocs=args.np)
    try:
        code = run_streaming(command, build_env(profile), args.timeout, display)
    except RunFailedError as exc:
        display.close()
        raise RunFailedError(f"{exc}{_leftover(plan.out, before, args.per_rank)}") from None
    except KeyboardInterrupt:
        display.close()
        raise KeyboardInterrupt(_leftover(plan.out, before, None).lstrip("; ")) from None
    display.close()
    return _finish(code, plan.out, before, args.per_rank)


def _finish(code: int, out: Path, before: tuple[int, int] | None, per_rank: bool) -> int:
    if code != 0:
        note = _leftover(out, before, per_rank)
        raise RunFailedError(f"mpiscope-bench failed ({describe_exit(code)}){note}")
    if _file_id(out) in (None, before):
        raise RunFailedError(f"mpiscope-bench exited normally but wrote no result to {out}")
    try:
        result = load_result(out)
    except MpiscopeError as exc:
        raise RunFailedError(f"mpiscope-bench wrote an unreadable result: {exc}") from None
    print(render_report(result, per_rank=per_rank))
    print(f"\nresult: {out}")
    if not result.complete:
        raise RunFailedError(
            f"mpiscope-bench exited normally but the result's status is {result.status!r}"
        )
    return 0


def _leftover(out: Path, before: tuple[int, int] | None, per_rank: bool | None) -> str:
    """What a stopped run left: prints its partial table (unless ``per_rank``
    is None) and returns the end of the error line that says where it is."""
    if _file_id(out) in (None, before):
        return "; no result was written"
    note = f"; partial result kept in {out}"
    if per_rank is None:
        return note
    try:
        result = load_result(out)
    except MpiscopeError as exc:
        return f"{note}, but it cannot be shown: {exc}"
    print(render_report(result, per_rank=per_rank))
    print(f"\nresult: {out}")
    return note


def _file_id(path: Path) -> tuple[int, int] | None:
    """(inode, mtime in ns) of a file, to tell a new result from an old one."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns)
