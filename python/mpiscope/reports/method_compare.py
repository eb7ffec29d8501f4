"""Timing methods side by side: each method's result and its ratio to the window method.

:func:`method_rows` is the pure bookkeeping (which window point is the
baseline of which point, and the ratio); :func:`comparison_lines` and
:func:`views_lines` render it. A point's baseline is the ``window`` point
with the same operation, size, process count, cache mode, arrival pattern
and run; without one, the ratio is unknown (``-``).

For the operations whose bias in the IMB/OSU loop has a closed form
(:data:`mpiscope.result.methods.LOOP_BIAS`: the linear broadcast's
r_i(n,k)), :func:`bias_rows` sets each rank's time in the barrier loop
against its time in the window method and the formula, and
:func:`bias_lines` renders them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from mpiscope.record import Record
from mpiscope.reports.deterministic import DETERMINISTIC
from mpiscope.reports.header import PARTIAL_BANNER, header_rows
from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.methods import (
    DEFAULT_METHOD,
    LOOP_BIAS,
    METHODS,
    linear_loop_ratio_of_times,
)
from mpiscope.result.units import format_bytes, format_ns, format_number, pick_time_unit

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "BARRIER_VIEWS",
    "BiasRow",
    "MethodRow",
    "bias_lines",
    "bias_rows",
    "bias_rows_of",
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


class MethodRow(Record):
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
    exact: bool = False  # stopped at its exact value (a simulated clock: no interval)


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
        point.get("run"),
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
            p.get("run") or 0,
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
                exact=p.get("stop_reason") == DETERMINISTIC,
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
    if row.exact:
        return f"{format_number(row.mean_ns / scale, 3)} {name} deterministic"
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
    return lines + views_lines(rows) + bias_lines(bias_rows_of(result))


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


class BiasRow(Record):
    """One rank of a barrier-loop point of an operation with a known loop
    bias, against the window method's point of the same op, size, process
    count and cache mode."""

    op: str
    size_bytes: int | None
    nprocs: int
    cache: str | None
    k: int  # launches per loop (the plan's k)
    i: int  # the rank counted from the root: (rank - root) mod n
    loop_ns: float | None  # the rank's mean launch time in the barrier loop
    window_ns: float | None  # the rank's mean launch time in the window method
    measured: float | None  # loop_ns / window_ns
    formula: float  # r_i(n, k)
    of_times: float | None  # the same from the window method's t_i and t_{n-1}

    @property
    def error(self) -> float | None:
        """measured / formula - 1."""
        return None if self.measured is None else self.measured / self.formula - 1


def _rank_means(point: Mapping[str, Any]) -> dict[int, float | None]:
    return {int(row["rank"]): row.get("mean_ns") for row in point.get("per_rank") or []}


def bias_rows(
    points: Sequence[Mapping[str, Any]],
    k: int,
    default_method: str = DEFAULT_METHOD,
    default_cache: str | None = None,
) -> list[BiasRow]:
    """Every non-root rank of every barrier point whose op is in LOOP_BIAS
    and has a window baseline, in the order of the points, then of i."""
    measured = [p for p in points if p.get("kind", "measure") == "measure"]
    windows = {
        _group(p, default_cache): p for p in measured if point_method(p, default_method) == "window"
    }
    rows = []
    for p in measured:
        formula = LOOP_BIAS.get(p["op"])
        base = windows.get(_group(p, default_cache))
        if formula is None or base is None or point_method(p, default_method) != "barrier":
            continue
        n, root = int(p["nprocs"]), int(p.get("root") or 0)
        loop, window = _rank_means(p), _rank_means(base)
        t_last = window.get((root + n - 1) % n)
        for rank in sorted(loop, key=lambda r: (r - root) % n):
            i = (rank - root) % n
            t_i = window.get(rank)
            if i == 0:
                continue
            of_times = None
            if t_i is not None and t_i > 0 and t_last is not None and k >= 1:
                of_times = linear_loop_ratio_of_times(t_i, t_last, k)
            rows.append(
                BiasRow(
                    op=p["op"], size_bytes=p.get("size_bytes"), nprocs=n,
                    cache=p.get("cache") or default_cache, k=k, i=i, loop_ns=loop[rank],
                    window_ns=window.get(rank), measured=ratio(loop[rank], window.get(rank)),
                    formula=formula(n, k, i), of_times=of_times,
                )
            )  # fmt: skip
    return rows


def bias_rows_of(result: Result) -> list[BiasRow]:
    return bias_rows(
        [point.data for point in result.points],
        int(result.method.get("k") or 0),
        str(result.method.get("name") or DEFAULT_METHOD),
        (result.environment.get("cache") or {}).get("mode"),
    )


def shown_ranks(nprocs: int) -> set[int]:
    """The ranks (counted from the root) a table shows: every one up to 8
    ranks, else 1, 2, 3, n/4, n/2, 3n/4 and n-1."""
    if nprocs <= 9:
        return set(range(1, nprocs))
    return {1, 2, 3, nprocs // 4, nprocs // 2, 3 * nprocs // 4, nprocs - 1}


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}x"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.2f}%"


def bias_lines(rows: Sequence[BiasRow]) -> list[str]:
    """Measured per-rank ratio next to the formula's; for more than 9 ranks a
    representative set of ranks and the largest error over all of them."""
    if not rows:
        return []
    groups: dict[tuple[Any, ...], list[BiasRow]] = {}
    for row in rows:
        groups.setdefault((row.op, row.size_bytes, row.nprocs, row.cache), []).append(row)
    titles = ["op", "size", "np", "k", "i", "barrier loop", "window", "measured", "r_i(n,k)"]
    titles += ["error", "of t_i"]
    cells, notes = [], []
    for (op, size, n, _), group in groups.items():
        shown = shown_ranks(n)
        for row in group:
            if row.i in shown:
                cells.append([
                    op, format_bytes(size), str(n), str(row.k), str(row.i), format_ns(row.loop_ns),
                    format_ns(row.window_ns), _times(row.measured), _times(row.formula),
                    _percent(row.error), _times(row.of_times),
                ])  # fmt: skip
        known = [row for row in group if row.error is not None]
        if len(group) > len(shown & {row.i for row in group}) and known:
            worst = max(known, key=lambda row: abs(row.error or 0.0))
            notes.append(
                f"{op} {format_bytes(size)} np {n}: all {len(group)} ranks, largest error "
                f"{_percent(worst.error)} (i = {worst.i})"
            )
    lines = [
        "",
        "per-rank bias of the barrier loop: each rank's mean time in the loop / in the window "
        "method (i: rank counted from the root), and the formula's r_i(n,k) = "
        "((n-1)(k-1)+i)/(ik); of t_i: ((k-1) t_n-1 + t_i)/(k t_i) from the window method's "
        "per-rank times (the formula when sends differ in cost, e.g. on and off the root's node)",
    ]
    lines += format_table(titles, "<>>>>>>>>>>", cells)
    return lines + [f"  {note}" for note in notes]


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
