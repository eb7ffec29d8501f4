"""``mpiscope overlap OP``: how much of a nonblocking (or persistent)
collective overlaps with computation, measured as MPIPerf and OSU do.

Two bench launches (:func:`mpiscope.measure.runner.measure_plan`) with the
options of ``run``:

1. the blocking counterpart (``iallreduce`` -> ``allreduce``) and the
   operation itself without computation, at every size: the blocking time
   t_b(s) and the pure nonblocking time;
2. the operation with ``compute_us`` set, per size, to t_b(s): it starts
   the operation, computes (busy, calling MPI_Test every ``test_us``) for
   that long, then waits. Its time is the total t(s).

overlap(s) = 1 - (t(s) - t_compute(s)) / t_b(s): 100 % when the
communication hides entirely behind the computation, 0 % when none of it
does (below 0 when computing slowed the communication down). Both result
documents are written (``OUT`` and ``OUT`` with ``.blocking`` before the
suffix) and a summary (``.overlap`` before the suffix).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.measure.options import add_measure_options
from mpiscope.measure.plan import check_ops, check_out, plan_run
from mpiscope.measure.runner import find_bench, measure_plan
from mpiscope.outputs import check_output, write_text
from mpiscope.reports.report import render_report
from mpiscope.result import Result, load_result

__all__ = ["add_parser", "blocking_counterpart", "compute_option", "overlap_rows", "run"]


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "overlap",
        help="measure how much of a nonblocking collective overlaps with computation",
        description="Measure the blocking counterpart of a nonblocking or persistent operation, "
        "then the operation with as much computation as the blocking time at each size, and "
        "report overlap = 1 - (total - compute) / blocking (MPIPerf, OSU). Takes the options "
        "of 'run'; --option test_us=US sets how often MPI_Test is called while computing; "
        "--dry-run prints the first pass's plan (the second's compute times are its results).",
    )
    p.add_argument(
        "op",
        metavar="OP",
        help="a nonblocking or persistent operation: ibcast, "
        "iallreduce, allreduce_init, ineighbor_alltoall, ...",
    )
    add_measure_options(p, launches=False)
    p.set_defaults(handler=run)


def blocking_counterpart(op: str) -> str:
    """``ibcast`` -> ``bcast``, ``bcast_init`` -> ``bcast``."""
    if op.endswith("_init"):
        return op[: -len("_init")]
    if op.startswith("i"):
        return op[1:]
    raise MpiscopeError(f"{op} is not a nonblocking (i...) or persistent (..._init) operation")


def compute_option(blocking_ns: dict[int, float]) -> str:
    """The per-size ``compute_us`` value: ``SIZE:US,SIZE:US,...``."""
    return ",".join(f"{size}:{ns / 1e3:.6g}" for size, ns in sorted(blocking_ns.items()))


def _means(path: Path, op: str) -> dict[int, float]:
    means: dict[int, float] = {}
    for point in load_result(path).points:
        if point.op == op and point.mean_ns is not None and math.isfinite(point.mean_ns):
            means[point.size_bytes or 0] = point.mean_ns
    return means


def overlap_rows(
    blocking: dict[int, float],
    pure: dict[int, float],
    total: dict[int, float],
    compute: dict[int, float],
) -> list[dict[str, float | int | None]]:
    """One row per size measured in both passes (times in ns, overlap 0..1)."""
    rows: list[dict[str, float | int | None]] = []
    for size in sorted(set(blocking) & set(total)):
        t_b, t = blocking[size], total[size]
        rows.append({
            "size_bytes": size,
            "blocking_ns": t_b,
            "nonblocking_ns": pure.get(size),
            "compute_ns": compute[size],
            "total_ns": t,
            "overlap": 1.0 - (t - compute[size]) / t_b if t_b > 0 else None,
        })  # fmt: skip
    return rows


def _render(op: str, blocking_op: str, rows: list[dict[str, float | int | None]]) -> str:
    def us(value: float | int | None) -> str:
        return "-" if value is None else f"{value / 1e3:.3f}"

    names = ("size", f"{blocking_op} us", f"{op} us", "compute us", "total us", "overlap")
    table: list[tuple[str, ...]] = [names]
    for r in rows:
        overlap = "-" if r["overlap"] is None else f"{100 * float(r['overlap']):.1f} %"
        times = (us(r[key]) for key in ("blocking_ns", "nonblocking_ns", "compute_ns", "total_ns"))
        table.append((str(r["size_bytes"]), *times, overlap))
    widths = [max(len(row[i]) for row in table) for i in range(len(names))]
    lines = [f"overlap of {op} with computation (blocking time: {blocking_op})", ""]
    lines += [
        "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in table
    ]
    return "\n".join(lines)


def _with_infix(path: Path, infix: str) -> Path:
    return path.with_name(f"{path.stem}.{infix}{path.suffix or '.json'}")


def run(args: argparse.Namespace) -> int:
    op = args.op.strip().lower()
    if "," in op:
        raise MpiscopeError(f"overlap takes one operation, not {args.op!r} (run it once for each)")
    blocking_op = blocking_counterpart(op)
    if any(name == "compute_us" for name, _ in args.option):
        raise MpiscopeError("overlap sets compute_us itself (per size, to the blocking time)")
    if len(args.cache) > 1 or len(args.method or ()) > 1:
        raise MpiscopeError("overlap measures with one cache mode and one timing method")
    out = check_out(args)
    first, summary = _with_infix(out, "blocking"), _with_infix(out, "overlap")
    for path in (first, summary):
        check_output(path, force=args.force)
    args.ops = f"{blocking_op},{op}"
    plan = plan_run(args)
    bench = find_bench(args)
    plan = replace(plan, ops=check_ops(plan, bench.profile, args.timeout), out=first)
    # the second pass, with a stand-in for its compute times (known after the first)
    check_ops(replace(plan, ops=plan.ops[1:], options=(*plan.options, ("compute_us", "0"))),
              bench.profile)

    def render(result: Result) -> str:
        return render_report(result, per_rank=args.per_rank)

    measure_plan(args, plan, bench, render)
    if args.dry_run:  # the second pass's compute times come from the first's
        return 0
    blocking, pure = _means(first, blocking_op), _means(first, op)
    if not blocking:
        raise RunFailedError(f"no valid time of {blocking_op} in {first}: nothing to compare with")
    compute = ("compute_us", compute_option(blocking))
    measure_plan(args, replace(plan, ops=plan.ops[1:], out=out,
                               options=(*plan.options, compute)), bench, render)
    rows = overlap_rows(blocking, pure, _means(out, op), blocking)
    write_text(summary, json.dumps({
        "op": op, "blocking_op": blocking_op, "blocking_result": str(first),
        "overlap_result": str(out), "points": rows,
    }, indent=2) + "\n")  # fmt: skip
    print(f"\n{_render(op, blocking_op, rows)}\n\nsummary: {summary}")
    return 0
