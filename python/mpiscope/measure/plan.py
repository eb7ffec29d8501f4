"""The plan of a measurement: every input checked before anything is launched.

:func:`plan_run` checks what the user typed (sizes and process counts,
statistics parameters, methods and arrival, element type and reduction,
the output file, the number of cores); :func:`check_ops` checks the
operations and their options against the bench's catalogue; and
:func:`bench_plan` (:func:`check_plan` for the machine check,
:func:`startup_plan` for a start-up run) builds the
one JSON document the bench reads (``mpiscope-bench --plan FILE``,
docs/plan-format.md), every value typed: sizes and process counts are the
integers parsed here, never text again.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Sequence
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.launcher import format_command
from mpiscope.measure.catalogue import query_ops
from mpiscope.measure.cluster import cluster_meta, runs_elsewhere
from mpiscope.measure.method_options import Arrival, check_method_options
from mpiscope.measure.op_options import check_op_options, check_op_paths
from mpiscope.measure.options import (
    DEFAULT_MAX_LAUNCHES,
    DEFAULT_NPROCS_SIZE,
    DEFAULT_SIZES,
    DTYPES,
    RANKS_PER_CORE,
    REDUCE_OPS,
    SYNC_PARAMETERS,
    engine_parameters,
)
from mpiscope.measure.request import MeasureRequest
from mpiscope.measure.simulation import launch_platform, simulation_meta
from mpiscope.measure.sizes import check_memory, parse_nprocs_spec, parse_size_spec
from mpiscope.mpi_profile import MpiProfile
from mpiscope.outputs import check_output
from mpiscope.parsing import unknown
from mpiscope.record import Record
from mpiscope.result.describe import pair_ops
from mpiscope.result.methods import DEFAULT_METHOD

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "RunPlan",
    "available_cores",
    "bench_plan",
    "check_cores",
    "check_ranks",
    "check_ops",
    "check_out",
    "check_plan",
    "join_ops",
    "plan_run",
    "startup_plan",
]


class RunPlan(Record):
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


def join_ops(words: list[str]) -> str:
    """``["bcast,barrier", "allreduce"]`` -> ``"bcast,barrier,allreduce"``."""
    names = [name for word in words for name in word.split(",")]
    if not all(name.strip() for name in names):
        raise MpiscopeError(f"bad operation list {' '.join(words)!r}: empty name")
    return ",".join(name.strip() for name in names)


def plan_run(request: MeasureRequest, sizes: list[int] | None = None) -> RunPlan:
    """Check every local input of ``request`` (the options of
    :func:`~mpiscope.measure.options.add_measure_options` and ``ops``, a
    comma-separated list); raise MpiscopeError on the first problem.
    ``sizes``: already parsed by the caller (firstcall's ``--size``);
    otherwise the spec of ``--sizes``, parsed here."""
    ops = [name.strip() for name in request.ops.split(",")]
    if not all(ops):
        raise MpiscopeError(f"bad operation list {request.ops!r}: empty name")
    if len({op.lower() for op in ops}) != len(ops):
        raise MpiscopeError(f"bad operation list {request.ops!r}: an operation appears twice")
    sizes, nprocs = _sizes_and_counts(request, sizes)
    smallest = min(nprocs) if nprocs else request.np
    pairs = [op for op in ops if op.lower() in pair_ops()]
    if pairs and smallest < 2:
        raise MpiscopeError(f"{pairs[0]} sends messages between ranks: it needs 2 ranks at least, "
                            f"not {smallest}")  # fmt: skip
    root, dtype, reduce_op = (request.param(name) for name in ("root", "dtype", "reduce_op"))
    if root >= smallest:
        raise MpiscopeError(f"--root {root} is not a rank of a {smallest}-process run")
    methods = tuple(request.method or ())
    check_method_options(ops, methods or (DEFAULT_METHOD,), request.arrival,
                         request.param("window_ns"), request.np)  # fmt: skip
    kinds = REDUCE_OPS[reduce_op]
    if DTYPES[dtype] not in kinds:
        raise MpiscopeError(
            f"--reduce-op {reduce_op} does not apply to --dtype {dtype} "
            f"(it needs a type of kind: {', '.join(sorted(kinds))})"
        )
    max_launches = request.param("max_launches") or DEFAULT_MAX_LAUNCHES[request.stop_rule()]
    _check_contradictions(request, max_launches)
    oversubscribed = check_cores(request)
    if _runs_here(request):  # ranks elsewhere: their machines' business
        check_memory(sizes, request.np)
    return RunPlan(
        ops, sizes, nprocs, check_out(request.out, request.force), oversubscribed, max_launches,
        methods, request.arrival, options=request.option,
    )


def _sizes_and_counts(
    request: MeasureRequest, sizes: list[int] | None
) -> tuple[list[int], list[int] | None]:
    """The sizes (``sizes`` if given, else ``--sizes``'s) and the process
    counts of ``--nprocs`` (None: none), checked together."""
    nprocs = parse_nprocs_spec(request.nprocs) if request.nprocs is not None else None
    if sizes is None and request.sizes is not None:
        sizes = parse_size_spec(request.sizes)
    if nprocs is not None:
        if sizes is None:
            sizes = [DEFAULT_NPROCS_SIZE]
        elif len(sizes) != 1:
            raise MpiscopeError(
                f"with --nprocs, --sizes must be one size, not {len(sizes)} ({request.sizes!r})"
            )
        if max(nprocs) > request.np:
            raise MpiscopeError(f"--nprocs {request.nprocs!r} goes up to {max(nprocs)}, more "
                                f"than --np {request.np}")  # fmt: skip
    elif sizes is None:
        sizes = parse_size_spec(DEFAULT_SIZES)
    return sizes, nprocs


def check_cores(request: MeasureRequest, harm: str = "measure the scheduler, not MPI") -> bool:
    """Whether ``--np`` oversubscribes this machine's cores (:func:`check_ranks`);
    a simulated run (``--launcher smpi``) is checked against its platform's
    cores instead and never oversubscribes, and so does a run whose ranks
    may be on other machines (srun, mpiexec on hosts: their cores are the
    launcher's business). Bad launcher flags are refused here too."""
    if not _runs_here(request):
        return False
    return check_ranks(request.np, request.oversubscribe, harm)


def check_ranks(
    nprocs: int, oversubscribe: bool, harm: str = "measure the scheduler, not MPI",
    flag: str = "--np",
) -> bool:  # fmt: skip
    """Whether ``nprocs`` ranks on this machine oversubscribe its cores:
    refused without ``oversubscribe`` (oversubscribed ranks ``harm``), and
    beyond :data:`~mpiscope.measure.options.RANKS_PER_CORE` per core even
    with it (mpiexec would try to start them all)."""
    cores = available_cores()
    limit = RANKS_PER_CORE * cores
    if nprocs > cores and not oversubscribe:
        raise MpiscopeError(
            f"{flag} {nprocs} is more than the {cores} core(s) available: oversubscribed ranks "
            f"{harm} (use --oversubscribe to run anyway, at most {limit} ranks)"
        )
    if nprocs > limit:
        raise MpiscopeError(
            f"{flag} {nprocs} is more than {limit} ranks ({RANKS_PER_CORE} per core on the "
            f"{cores} core(s) here): mpiscope starts no more, even oversubscribed"
        )
    return nprocs > cores


def _runs_here(request: MeasureRequest) -> bool:
    """Whether the ranks run on this machine: neither simulated (``--launcher
    smpi``) nor possibly on others (srun, mpiexec on hosts); refuses bad
    launcher flags."""
    return launch_platform(request) is None and not runs_elsewhere(request)


def _check_contradictions(request: MeasureRequest, max_launches: int) -> None:
    """Statistics options that cannot all hold: refused, not left to show up
    as a flag on every point."""
    rule = request.stop_rule()
    if rule == "deterministic" and request.launcher != "smpi":
        raise MpiscopeError("--stop deterministic needs a simulated cluster (--launcher smpi): two "
                            "launches on a real clock may read the same time by chance, and the "
                            "point would stop without statistics")  # fmt: skip
    min_valid = request.param("min_valid")
    if rule != "count" and min_valid is not None and min_valid > max_launches:
        raise MpiscopeError(f"--min-valid {min_valid} is more than --max-launches {max_launches}: "
                            "the error rule could never stop on its own")  # fmt: skip
    low, high = request.param("min_point_seconds"), request.param("max_point_seconds")
    if low is not None and high is not None and low > high:
        raise MpiscopeError(f"--min-point-seconds {low:g} is more than --max-point-seconds "
                            f"{high:g}")  # fmt: skip


def fresh_name(prefix: str = "mpiscope", variants: Sequence[str] = ("",)) -> str:
    """``PREFIX-YYYYmmdd-HHMMSS.json``, or with ``-2``, ``-3``... when a file of
    that name exists (with any of ``variants`` before ``.json``: the files a
    command makes from one name): a run takes a fraction of a second, and a
    name the user did not choose must not stop the next one."""
    stem = time.strftime(f"{prefix}-%Y%m%d-%H%M%S")
    base, k = stem, 1
    while any(Path(f"{base}{v}.json").exists() for v in variants):
        k += 1
        base = f"{stem}-{k}"
    return f"{base}.json"


def check_out(out: str | None, force: bool, prefix: str = "mpiscope",
              inputs: Sequence[str | Path] = ()) -> Path:  # fmt: skip
    """The absolute ``--out`` path ``out`` (None: :func:`fresh_name`), checked
    and claimed (:func:`mpiscope.outputs.check_output`): refused when it
    exists without ``force``, is not a regular file, is one of ``inputs``
    or cannot be written. Its name is UTF-8 (mpiscope-bench reads it from a
    JSON plan)."""
    name = out or fresh_name(prefix)
    try:
        os.fsencode(name).decode("utf-8")
    except UnicodeDecodeError:
        raise MpiscopeError(f"--out {name!r}: not a UTF-8 file name (the bench writes only "
                            "those)") from None  # fmt: skip
    return check_output(name, force=bool(force), inputs=inputs,
                        what="--out" if out else "")  # fmt: skip


def check_ops(plan: RunPlan, profile: MpiProfile, timeout: float | None = None) -> list[str]:
    """The requested operations by their catalogue names (case does not
    matter); an unknown one is an error, and so is an option none of them has.
    ``timeout``: the run's --timeout, which bounds asking the bench too."""
    _, catalogue = query_ops(profile, timeout)
    known = {op.name.lower(): op.name for op in catalogue}
    for name in plan.ops:
        if name.lower() not in known:
            raise MpiscopeError(unknown("operation", name, list(known.values())))
    ops = [known[name.lower()] for name in plan.ops]
    check_op_options(plan.options, [op for op in catalogue if op.name in ops])
    check_op_paths(plan.options, [op for op in catalogue if op.name in ops])
    return ops


def bench_plan(
    request: MeasureRequest,
    plan: RunPlan,
    profile: MpiProfile,
    launcher: list[str],
    firstcall: bool = False,
    ledger: bool = False,
) -> dict[str, Any]:
    """The bench's plan document for ``plan``: explicit values for everything
    (the engine parameters of :data:`~mpiscope.measure.defaults.ALWAYS_PASSED`
    even at their default, the others when given), each of its JSON type.
    ``firstcall``: the first call against the second instead of a run;
    ``ledger``: with the bias ledger's companions (``run --ledger on``)."""
    doc: dict[str, Any] = {"ops": list(plan.ops), "sizes": list(plan.sizes)}
    if plan.nprocs is not None:
        doc["nprocs"] = list(plan.nprocs)
    if plan.methods:
        doc["methods"] = list(plan.methods)
    doc["cache"] = list(request.cache)
    for param in engine_parameters():
        name = param["name"]
        value = plan.max_launches if name == "max_launches" else request.value(name)
        if value is not None:
            doc[name] = value
    if plan.options:
        doc["op_options"] = dict(plan.options)
    if plan.arrival is not None:
        doc["arrival"] = plan.arrival.plan_object
    if plan.shuffle_seed is not None:
        doc["shuffle"] = plan.shuffle_seed
    if request.clock_transform:
        doc["clock_transform"] = request.clock_transform
    doc.update(_plan_end(request, plan.out, profile, launcher, plan.oversubscribed))
    doc.update(raw=request.raw, validate=request.validate, resync=request.resync,
               firstcall=firstcall, ledger=ledger and not firstcall)  # fmt: skip
    return doc


def check_plan(
    request: MeasureRequest, out: Path, profile: MpiProfile, launcher: list[str],
    drift_seconds: float,
) -> dict[str, Any]:  # fmt: skip
    """The bench's plan document for the machine check (``mpiscope check``),
    the clocks measured again after ``drift_seconds``."""
    doc: dict[str, Any] = {"check": True, "drift_seconds": drift_seconds}
    # the sync's own parameters apply to every algorithm the check compares
    for name in SYNC_PARAMETERS:
        if request.value(name) is not None:
            doc[name] = request.value(name)
    doc.update(_plan_end(request, out, profile, launcher, check_cores(request)))
    return doc


def startup_plan(
    request: MeasureRequest, how: str, size: int, thread_level: str, out: Path,
    profile: MpiProfile, launcher: list[str],
) -> dict[str, Any]:  # fmt: skip
    """The bench's plan document for one start-up run (``mpiscope
    startup``) on ``request.np`` ranks: MPI started as ``how`` (``init``,
    ``init_thread`` at ``thread_level``, ``session``), then round trips
    of ``size`` bytes to every peer."""
    doc: dict[str, Any] = {"startup": how, "sizes": [size]}
    if how == "init_thread":
        doc["thread_level"] = thread_level
    for name in ("timer", "sync", *SYNC_PARAMETERS):
        if request.value(name) is not None:
            doc[name] = request.value(name)
    doc.update(_plan_end(request, out, profile, launcher, check_cores(request)))
    doc["validate"] = request.validate
    return doc


def _plan_end(
    request: MeasureRequest,
    out: Path,
    profile: MpiProfile,
    launcher: list[str],
    oversubscribed: bool,
) -> dict[str, Any]:
    """What every plan carries: the result's environment entries (a
    simulated run's platform and settings among them), where the result
    goes, and the flags of the run itself."""
    meta = {
        "command_line": shlex.join(["mpiscope", *request.argv]),
        "launcher": format_command(launcher),
        "mpi_implementation": profile.implementation,
        **({"mpi_wheel": profile.pypi_wheel} if profile.pypi_wheel else {}),
        **simulation_meta(request),
        **cluster_meta(request),
    }
    return {
        "meta": meta,
        "out": str(out),
        "force": request.force,
        "oversubscribed": oversubscribed,
        "ranks": request.np,
        "progress": True,
    }
