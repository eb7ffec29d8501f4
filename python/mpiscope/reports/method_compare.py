"""Timing methods side by side: each method's result and its ratio to the window method.

:func:`method_rows` is the pure bookkeeping (which window point is the
baseline of which point, and the ratio); :func:`comparison_lines` and
:func:`views_lines` render it. A point's baseline is the ``window`` point
with the same operation, size, process count, cache mode, arrival pattern
and launch; without one, the ratio is unknown (``-``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.reports.header import PARTIAL_BANNER, header_rows
from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.methods import DEFAULT_METHOD, METHODS
from mpiscope.result.units import format_bytes, format_ns, format_number, pick_time_unit

__all__ = [
    "BARRIER_VIEWS",
    "MethodRow",
    "comparison_lines",
    "method_rows",
    "point_method",
    "ratio",
    "render_methods",
    "rows_of",
    "views_lines",
]

#: The barrier method's views: what the classic suites report, in order.
BARRIER_VIEWS: tuple[tuple[str, str], ...] = (
    ("rank0_ns", "rank 0"),
    ("mean_over_ranks_ns", "mean over ranks"),
    ("max_over_ranks_ns", "max of per-rank means"),
    ("per_launch_max_ns", "per-launch max"),
)


@dataclass(frozen=True)
class MethodRow:
    """One point, with its method and its ratio to the window method."""

    op: str
    size_bytes: int | None
    nprocs: int
    cache: str | None
    method: str
    median_ns: float | None
    mean_ns: float | None
    error_ns: float | None
    window_median_ns: float | None  # the baseline's median
    ratio: float | None  # median / window median
    gap_median_ns: float | None
    views: Mapping[str, float | None]
    unstable: bool


def point_method(point: Mapping[str, Any], default: str = DEFAULT_METHOD) -> str:
    """The method of a point: its own, else the document's ``default``."""
    return str(point.get("method") or default)


def _group(point: Mapping[str, Any], default_cache: str | None) -> tuple[Any, ...]:
    arrival = point.get("arrival")
    if arrival is None and point.get("arrival_ns") is not None:
        arrival = tuple(point["arrival_ns"])
    return (
        point["op"],
        point.get("size_bytes"),
        point["nprocs"],
        point.get("cache") or default_cache,
        arrival,
        point.get("launch"),
    )


def ratio(value: float | None, baseline: float | None) -> float | None:
    """value / baseline, None when either is unknown or the baseline is not > 0."""
    if value is None or baseline is None or not baseline > 0:
        return None
    return value / baseline


def method_rows(
    points: Sequence[Mapping[str, Any]],
    default_method: str = DEFAULT_METHOD,
    default_cache: str | None = None,
) -> list[MethodRow]:
    """Every measured point with its ratio to its window baseline, ordered by
    operation (first appearance), size, process count, cache mode, then
    method (in the order of METHODS)."""
    measured = [p for p in points if p.get("kind", "measure") == "measure"]
    baselines = {
        _group(p, default_cache): p.get("median_ns")
        for p in measured
        if point_method(p, default_method) == "window"
    }
    op_order = {op: i for i, op in reversed(list(enumerate(p["op"] for p in measured)))}
    method_order = {name: i for i, name in enumerate(METHODS)}

    def order(p: Mapping[str, Any]) -> tuple[Any, ...]:
        size = p.get("size_bytes")
        return (
            op_order[p["op"]],
            -1 if size is None else size,
            p["nprocs"],
            str(p.get("cache") or default_cache),
            str(p.get("arrival") or p.get("arrival_ns") or ""),
            p.get("launch") or 0,
            method_order.get(point_method(p, default_method), len(method_order)),
        )

    rows = []
    for p in sorted(measured, key=order):
        base = baselines.get(_group(p, default_cache))
        rows.append(
            MethodRow(
                op=p["op"],
                size_bytes=p.get("size_bytes"),
                nprocs=p["nprocs"],
                cache=p.get("cache") or default_cache,
                method=point_method(p, default_method),
                median_ns=p.get("median_ns"),
                mean_ns=p.get("mean_ns"),
                error_ns=p.get("error_ns"),
                window_median_ns=base,
                ratio=ratio(p.get("median_ns"), base),
                gap_median_ns=(p.get("gap") or {}).get("median_ns"),
                views=dict(p.get("views") or {}),
                unstable=bool(p.get("unstable")),
            )
        )
    return rows


def rows_of(result: Result) -> list[MethodRow]:
    return method_rows(
        [point.data for point in result.points],
        str(result.method.get("name") or DEFAULT_METHOD),
        (result.environment.get("cache") or {}).get("mode"),
    )


def _ratio_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _mean_pm(row: MethodRow) -> str:
    """``mean ± E unit``: one unit, E to 2 significant digits, the mean to the
    same decimal place."""
    if row.mean_ns is None:
        return "-"
    name, scale = pick_time_unit([row.mean_ns])
    error = row.error_ns
    if error is None or not math.isfinite(error) or error <= 0:
        shown = "0" if error == 0 else "-"
        return f"{format_number(row.mean_ns / scale, 3)} ± {shown} {name}"
    decimals = min(3, max(0, 1 - math.floor(math.log10(error / scale))))
    return f"{row.mean_ns / scale:.{decimals}f} ± {error / scale:.{decimals}f} {name}"


def comparison_lines(result: Result) -> list[str]:
    """The comparison table (empty when the points have a single method)."""
    rows = rows_of(result)
    if len({row.method for row in rows}) < 2:
        return []
    show_np = len({row.nprocs for row in rows}) > 1
    show_cache = len({row.cache for row in rows}) > 1
    conf = format_number(result.confidence * 100, 3)
    titles = ["op", "size"] + (["np"] if show_np else []) + (["cache"] if show_cache else [])
    titles += ["method", "median", f"mean ± E({conf}%)", "vs window", "gap med", "flags"]
    aligns = "<>" + (">" if show_np else "") + ("<" if show_cache else "") + "<>>>><"
    cells = []
    for row in rows:
        line = [row.op, format_bytes(row.size_bytes)]
        line += [str(row.nprocs)] if show_np else []
        line += [row.cache or "-"] if show_cache else []
        line += [
            row.method,
            format_ns(row.median_ns),
            _mean_pm(row),
            _ratio_text(row.ratio),
            format_ns(row.gap_median_ns),
            "UNSTABLE" if row.unstable else "",
        ]
        cells.append(line)
    lines = [
        "",
        "methods compared: median of each method; vs window = median / the window method's "
        "median at the same op, size and cache",
    ]
    lines += format_table(titles, aligns, cells)
    return lines + views_lines(rows)


def views_lines(rows: Sequence[MethodRow]) -> list[str]:
    """What the classic suites report, from the barrier method's views."""
    barrier = [row for row in rows if row.method == "barrier" and row.views]
    if not barrier:
        return []
    titles = ["op", "size"] + [title for _, title in BARRIER_VIEWS] + ["window median"]
    cells = []
    for row in barrier:
        line = [row.op, format_bytes(row.size_bytes)]
        for key, _ in BARRIER_VIEWS:
            value = row.views.get(key)
            text = format_ns(value)
            if value is not None and ratio(value, row.window_median_ns) is not None:
                text += f" ({_ratio_text(ratio(value, row.window_median_ns))})"
            line.append(text)
        line.append(format_ns(row.window_median_ns))
        cells.append(line)
    lines = [
        "",
        "barrier method (IMB/OSU loop): what the suites report, medians over repetitions "
        "(x the window method's median)",
    ]
    return lines + format_table(titles, "<>" + ">" * (len(BARRIER_VIEWS) + 1), cells)


def render_methods(result: Result) -> str:
    """The ``mpiscope methods`` output: the report's header block, the
    comparison and the warnings (``mpiscope report FILE`` shows every point)."""

    partial = [] if result.complete else [f"{PARTIAL_BANNER} (status: {result.status})", ""]
    header = header_rows(result)
    width = max(len(name) for name, _ in header)
    lines = partial + [f"{name:<{width}}  {value}" for name, value in header]
    comparison = comparison_lines(result)
    lines += comparison or ["", "only one timing method in this result: nothing to compare"]
    lines += ["", "every point with its launch counts and flags: mpiscope report FILE"]
    if result.warnings:
        lines += ["", "warnings:"] + [f"  - {text}" for text in result.warnings]
    if partial:
        lines += ["", PARTIAL_BANNER]
    return "\n".join(lines)
