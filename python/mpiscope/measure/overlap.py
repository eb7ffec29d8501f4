"""Overlap of a nonblocking (or persistent) collective with computation,
measured as MPIPerf and OSU do (``mpiscope overlap``; :func:`mpiscope.api.overlap`).

Two passes with the options of ``run``:

1. the blocking counterpart (``iallreduce`` -> ``allreduce``) and the
   operation itself without computation, at every size: the blocking time
   t_b(s) and the pure nonblocking time;
2. the operation with ``compute_us`` set, per size, to t_b(s): it starts
   the operation, computes (busy, calling MPI_Test every ``test_us``) for
   that long, then waits. Its time is the total t(s).

overlap(s) = 1 - (t(s) - t_compute(s)) / t_b(s): 100 % when the
communication hides entirely behind the computation, 0 % when none of it
does (below 0 when computing slowed the communication down).
"""

from __future__ import annotations

import math
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.result import load_result

__all__ = [
    "blocking_counterpart",
    "compute_option",
    "means",
    "overlap_rows",
    "render_overlap",
    "with_infix",
]

#: One row of the overlap table: times in ns, overlap 0..1 (None: no blocking time).
Row = dict[str, float | int | None]


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


def means(path: Path, op: str) -> dict[int, float]:
    """The mean time of ``op`` at each size in the result ``path``."""
    found: dict[int, float] = {}
    for point in load_result(path).points:
        if point.op == op and point.mean_ns is not None and math.isfinite(point.mean_ns):
            found[point.size_bytes or 0] = point.mean_ns
    return found


def overlap_rows(
    blocking: dict[int, float],
    pure: dict[int, float],
    total: dict[int, float],
    compute: dict[int, float],
) -> list[Row]:
    """One row per size measured in both passes (times in ns, overlap 0..1)."""
    rows: list[Row] = []
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


def render_overlap(op: str, blocking_op: str, rows: list[Row]) -> str:
    """The overlap table, times in microseconds."""
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


def with_infix(path: Path, infix: str) -> Path:
    """``r.json`` -> ``r.INFIX.json``."""
    return path.with_name(f"{path.stem}.{infix}{path.suffix or '.json'}")
