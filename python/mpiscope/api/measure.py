"""The measuring commands as Python functions: run, methods, firstcall,
overlap, startup and check.

Each command has three parts here, and its command-line module
(``mpiscope/commands/<name>.py``) is a thin layer over them:

* ``<name>_request(values)``: the typed request
  (:mod:`mpiscope.measure.request`) of parsed options;
* ``measure_<name>(request, show)``: the measurement, which returns the
  result (:class:`mpiscope.result.Result`, as :func:`mpiscope.load_result`
  gives it) and prints it only with ``show`` (the command line shows it);
* ``<name>(..., **options)``: the Python API, keyword options read by the
  command's own parser (:func:`mpiscope.api.options.parse_options`).

Every function raises :class:`~mpiscope.errors.MpiscopeError` (one line)
on bad input before anything is launched, and
:class:`~mpiscope.errors.RunFailedError` when a run fails: what it
measured is then kept in the result file the message names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from mpiscope.api.options import api_call, parse_options
from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.measure import command_options as defined
from mpiscope.measure.method_options import methods_for_ops
from mpiscope.measure.plan import (
    bench_plan,
    check_cores,
    check_ops,
    check_out,
    check_plan,
    join_ops,
    plan_run,
    startup_plan,
)
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.request import (
    CheckRequest,
    FirstcallRequest,
    MeasureRequest,
    OverlapRequest,
    RunRequest,
    StartupRequest,
)
from mpiscope.measure.run_profile import profile_step
from mpiscope.measure.runner import (
    BenchRun,
    Echo,
    find_bench,
    measure_plan,
    private_dir,
    run_bench_runs,
)
from mpiscope.measure.sizes import one_size, parse_nprocs_spec
from mpiscope.record import replace
from mpiscope.result import Result
from mpiscope.result.methods import DEFAULT_METHOD

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "check",
    "check_request",
    "firstcall",
    "firstcall_request",
    "measure_check",
    "measure_firstcall",
    "measure_methods",
    "measure_overlap",
    "measure_run",
    "measure_startup",
    "methods",
    "methods_request",
    "overlap",
    "overlap_request",
    "run",
    "run_request",
    "startup",
    "startup_request",
]

#: What a command shows of a result: its text.
Render = Callable[[Result], str]
#: The operations of a call: "bcast,barrier", or a list of names.
Ops = str | Sequence[str]


def _echo(show: bool, render: Render | None, path: bool = True) -> Echo | None:
    return Echo(render, path) if show else None


def _ops_words(ops: Ops) -> list[str]:
    return [ops] if isinstance(ops, str) else list(ops)


# --- run --------------------------------------------------------------------
def run_request(values: Mapping[str, Any]) -> RunRequest:
    """``mpiscope run``'s request of its parsed options."""
    return RunRequest.of(values)


def measure_run(request: RunRequest, show: bool = False) -> Result | None:
    """Measure ``request.ops`` (``mpiscope run``): one run, or
    ``--runs`` runs merged; the run profile folded in or
    recorded. The result, or None with ``dry_run`` (the plan printed)."""
    from mpiscope.reports.ledger import closing_lines
    from mpiscope.reports.report import render_report

    def render(result: Result) -> str:  # the report, then the ledger's short form against OSU
        return "\n".join([render_report(result, per_rank=request.per_rank),
                          *closing_lines(result)])  # fmt: skip

    plan = plan_run(request)
    bench = find_bench(request)
    plan = replace(plan, ops=check_ops(plan, bench.profile, request.timeout))
    finish = profile_step(request.run_profile, request.runs)
    return measure_plan(request, plan, bench, _echo(show, render), finish,
                        ledger=request.ledger_on())  # fmt: skip


def run(ops: Ops, *, show: bool = False, **options: Any) -> Result | None:
    """Measure MPI operations, as ``mpiscope run OPS [options]`` does.

    ``ops``: ``"bcast"``, ``"bcast,allreduce"`` or a list of names.
    ``options``: the options of ``mpiscope run`` by name (``np=2``,
    ``sizes="8,1K"``, ``target_rse=0.02``, ``runs=5``, ``out="r.json"``,
    ``option={"mode": "nonblocking"}``), checked as the command line checks
    them. Quiet unless ``quiet=False`` (progress on stderr); ``show=True``
    prints what the command prints. Returns the result document as
    :func:`mpiscope.load_result` reads it (written to ``out``, by default
    ``mpiscope-YYYYmmdd-HHMMSS.json`` here); None with ``dry_run=True``,
    which prints the plan and runs nothing.
    """
    with api_call(options):
        words = [ops if isinstance(ops, str) else ",".join(ops)]
        values = parse_options("run", defined.add_run_options, words, options)
        return measure_run(run_request(values), show)


# --- methods ----------------------------------------------------------------
def methods_request(values: Mapping[str, Any]) -> MeasureRequest:
    """``mpiscope methods``' request: the operations joined, ``--method``
    every method that applies to them unless given, window always in."""
    request = MeasureRequest.of(values, ops=join_ops(list(values["ops"])))
    if request.method is None:
        return request.with_options(method=methods_for_ops(request.ops.split(",")))
    if DEFAULT_METHOD not in request.method:
        return request.with_options(method=[DEFAULT_METHOD, *request.method])
    return request


def measure_methods(request: MeasureRequest, show: bool = False) -> Result | None:
    """Every method of ``request.method`` on the same points, interleaved in
    one run (``mpiscope methods``)."""
    from mpiscope.reports.method_compare import render_methods

    plan = plan_run(request)
    bench = find_bench(request)
    plan = replace(plan, ops=check_ops(plan, bench.profile, request.timeout))
    display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)
    with private_dir(plan.out) as tmp:
        own = replace(plan, out=Path(tmp) / "methods.json")
        run = BenchRun(bench_plan(request, own, bench.profile, bench.launcher))
        return run_bench_runs([run], bench, Path(tmp), request, display, plan.out,
                            _echo(show, render_methods))  # fmt: skip


def methods(ops: Ops, *, show: bool = False, **options: Any) -> Result | None:
    """Compare the timing methods on the same operations and sizes, as
    ``mpiscope methods OP... [options]`` does (``method=`` defaults to every
    method that applies; window is always added). Options, ``show`` and the
    return value as :func:`run`'s (without ``runs``)."""
    with api_call(options):
        values = parse_options("methods", defined.add_methods_options, _ops_words(ops), options)
        return measure_methods(methods_request(values), show)


# --- firstcall --------------------------------------------------------------
def firstcall_request(values: Mapping[str, Any]) -> FirstcallRequest:
    """``mpiscope firstcall``'s request: the operations joined."""
    return FirstcallRequest.of(values, ops=join_ops(list(values["ops"])))


def measure_firstcall(request: FirstcallRequest, show: bool = False) -> Result | None:
    """The first call of each operation against its second, each operation
    in a run of its own (``mpiscope firstcall``), merged."""
    from mpiscope.reports.report import render_report

    plan = plan_run(request, sizes=[one_size(request.size, "--size")])
    bench = find_bench(request)
    plan = replace(plan, ops=check_ops(plan, bench.profile, request.timeout))
    display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)
    with private_dir(plan.out) as tmp:
        runs = []
        for index, op in enumerate(plan.ops):
            own = replace(plan, ops=[op], out=Path(tmp) / f"firstcall-{index}.json")
            doc = bench_plan(request, own, bench.profile, bench.launcher, firstcall=True)
            runs.append(BenchRun(doc))
        return run_bench_runs(runs, bench, Path(tmp), request, display, plan.out,
                            _echo(show, render_report))  # fmt: skip


def firstcall(ops: Ops, *, show: bool = False, **options: Any) -> Result | None:
    """The first call of each operation against its second (late
    initialization), as ``mpiscope firstcall OP... [options]`` does: one
    ``size`` (default 8K). Options, ``show`` and the return value as
    :func:`run`'s."""
    with api_call(options):
        values = parse_options("firstcall", defined.add_firstcall_options, _ops_words(ops), options)
        return measure_firstcall(firstcall_request(values), show)


# --- overlap ----------------------------------------------------------------
def overlap_request(values: Mapping[str, Any]) -> OverlapRequest:
    """``mpiscope overlap``'s request: one operation, its compute time left
    to the command (per size, the blocking time)."""
    op = str(values["op"]).strip().lower()
    if "," in op:
        raise MpiscopeError(
            f"overlap takes one operation, not {values['op']!r} (run it once for each)"
        )
    request = OverlapRequest.of(values, op=op)
    if any(name == "compute_us" for name, _ in request.option):
        raise MpiscopeError("overlap sets compute_us itself (per size, to the blocking time)")
    if len(request.cache) > 1 or len(request.method or ()) > 1:
        raise MpiscopeError("overlap measures with one cache mode and one timing method")
    return request


def measure_overlap(request: OverlapRequest, show: bool = False) -> Result | None:
    """The blocking counterpart and the operation, then the operation with
    computation (``mpiscope overlap``): the second pass's result (``out``),
    the first's beside it (``.blocking``) and the summary (``.overlap``)."""
    from mpiscope.measure.overlap import (
        blocking_counterpart,
        compute_option,
        means,
        overlap_rows,
        render_overlap,
        with_infix,
    )
    from mpiscope.outputs import check_output, write_text
    from mpiscope.reports.report import render_report

    op = request.op
    blocking_op = blocking_counterpart(op)
    out = check_out(request.out, request.force)
    first, summary = with_infix(out, "blocking"), with_infix(out, "overlap")
    for path in (first, summary):
        check_output(path, force=request.force)
    request = request.with_options(ops=f"{blocking_op},{op}")
    plan = plan_run(request)
    bench = find_bench(request)
    plan = replace(plan, ops=check_ops(plan, bench.profile, request.timeout), out=first)
    # the second pass, with a stand-in for its compute times (known after the first)
    check_ops(replace(plan, ops=plan.ops[1:], options=(*plan.options, ("compute_us", "0"))),
              bench.profile)
    echo = _echo(show, lambda result: render_report(result, per_rank=request.per_rank))
    if measure_plan(request, plan, bench, echo) is None:  # a dry run: the second pass's
        return None  # compute times come from the first's
    blocking, pure = means(first, blocking_op), means(first, op)
    if not blocking:
        raise RunFailedError(f"no valid time of {blocking_op} in {first}: nothing to compare with")
    compute = ("compute_us", compute_option(blocking))
    result = measure_plan(request, replace(plan, ops=plan.ops[1:], out=out,
                                           options=(*plan.options, compute)), bench, echo)
    rows = overlap_rows(blocking, pure, means(out, op), blocking)
    write_text(summary, json.dumps({
        "op": op, "blocking_op": blocking_op, "blocking_result": str(first),
        "overlap_result": str(out), "points": rows,
    }, indent=2) + "\n")  # fmt: skip
    if show:
        print(f"\n{render_overlap(op, blocking_op, rows)}\n\nsummary: {summary}")
    return result


def overlap(op: str, *, show: bool = False, **options: Any) -> Result | None:
    """How much of a nonblocking or persistent operation overlaps with
    computation, as ``mpiscope overlap OP [options]`` does. Returns the
    result of the pass with computation; the blocking pass is beside it
    (``OUT.blocking.json``) and the summary too (``OUT.overlap.json``, the
    overlap per size). Options and ``show`` as :func:`run`'s."""
    with api_call(options):
        values = parse_options("overlap", defined.add_overlap_options, [op], options)
        return measure_overlap(overlap_request(values), show)


# --- startup ----------------------------------------------------------------
def startup_request(values: Mapping[str, Any]) -> StartupRequest:
    """``mpiscope startup``'s request, its ways checked."""
    request = StartupRequest.of(values)
    hows = [word.strip() for word in request.how.split(",")]
    for how in hows:
        if how not in defined.HOWS:
            raise MpiscopeError(f"--how {request.how!r}: {how!r} is not one of "
                                f"{', '.join(defined.HOWS)}")  # fmt: skip
    if len(set(hows)) != len(hows):
        raise MpiscopeError(f"--how {request.how!r}: a way appears twice")
    return request


def measure_startup(request: StartupRequest, show: bool = False) -> Result | None:
    """Start MPI run after run in each way and process count,
    interleaved (``mpiscope startup``), merged into one result."""
    from mpiscope.reports.report import render_report

    hows = [word.strip() for word in request.how.split(",")]
    size = one_size(request.size, "--size")
    counts = parse_nprocs_spec(request.nprocs) if request.nprocs is not None else [request.np]
    out = check_out(request.out, request.force, prefix="mpiscope-startup")
    benches = {n: find_bench(request.with_options(np=n)) for n in counts}
    display = ProgressDisplay(quiet=request.quiet, nprocs=max(counts))
    with private_dir(out) as tmp:
        runs: list[BenchRun] = []
        for round_ in range(request.runs):
            turn = round_ % len(hows)
            for n in counts:
                own = request.with_options(np=n)
                for how in hows[turn:] + hows[:turn]:
                    where = Path(tmp) / f"startup-{len(runs)}.json"
                    plan = startup_plan(own, how, size, request.thread_level, where,
                                        benches[n].profile, benches[n].launcher)  # fmt: skip
                    runs.append(BenchRun(plan, launcher=tuple(benches[n].launcher)))
        first = benches[counts[0]]
        return run_bench_runs(runs, first, Path(tmp), request, display, out,
                            _echo(show, render_report))  # fmt: skip


def startup(*, show: bool = False, **options: Any) -> Result | None:
    """How long MPI takes to start and the first message to each peer, as
    ``mpiscope startup [options]`` does (``how="init,session"``,
    ``nprocs="2:4"``, ``runs=10``, ...). Options, ``show`` and the
    return value as :func:`run`'s."""
    with api_call(options):
        values = parse_options("startup", defined.add_startup_options, [], options)
        return measure_startup(startup_request(values), show)


# --- check ------------------------------------------------------------------
def check_request(values: Mapping[str, Any]) -> CheckRequest:
    """``mpiscope check``'s request of its parsed options."""
    return CheckRequest.of(values)


def _render_check(brief: bool, syncs: tuple[str, ...]) -> Render:
    from mpiscope.reports.check import verdict_lines
    from mpiscope.reports.report import render_report

    def render(result: Result) -> str:
        check = result.data.get("check")
        if check is None:
            raise RunFailedError("mpiscope-bench wrote no machine check (no 'check' in its result)")
        check["sync"] = [s for s in check.get("sync") or () if s.get("algorithm") in syncs]
        return "\n".join(verdict_lines(result)) if brief else render_report(result)

    return render


def measure_check(request: CheckRequest, show: bool = False) -> Result | None:
    """The machine check (``mpiscope check``): every timer and clock sync
    algorithm. Without ``out`` the document is not kept (the result is
    returned, its file gone)."""
    check_cores(request, harm="would judge the scheduler, not the clocks")
    out = check_out(request.out, request.force) if request.out is not None else None
    bench = find_bench(request)
    display = ProgressDisplay(quiet=request.quiet or request.brief, nprocs=request.np)
    # without --out the document is not kept
    import tempfile

    keep = private_dir(out) if out is not None else tempfile.TemporaryDirectory(prefix="mpiscope-")
    with keep as tmp:
        plan = check_plan(request, Path(tmp) / "check.json", bench.profile, bench.launcher,
                          request.drift_seconds)  # fmt: skip
        echo = _echo(show, _render_check(request.brief, request.sync), path=out is not None)
        return run_bench_runs([BenchRun(plan)], bench, Path(tmp), request, display,
                            out or Path(tmp) / "result.json", echo)  # fmt: skip


def check(*, show: bool = False, **options: Any) -> Result | None:
    """Can this machine's clocks be trusted? As ``mpiscope check [options]``
    does: the result holds the machine check (``result.data["check"]``);
    ``show=True`` prints the report with its VERDICT lines (``brief=True``:
    those alone). Kept only with ``out=``."""
    with api_call(options):
        values = parse_options("check", defined.add_check_options, [], options)
        return measure_check(check_request(values), show)
