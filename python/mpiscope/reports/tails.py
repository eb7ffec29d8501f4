"""The clock's limit and the tails of a point, as text: the floor line of
the header, the ``at clock resolution`` flag, the p90/p99 cells of the
point table and the tail table with the distribution-free intervals
(``mpiscope report --tails``, the HTML report). The engine computes them
(docs/method.md sections 4 and 13)."""

from __future__ import annotations

from collections.abc import Mapping

from mpiscope.reports.deterministic import DETERMINISTIC, is_exact
from mpiscope.reports.texttable import format_table
from mpiscope.result import Point, Result
from mpiscope.result.units import format_bytes, format_ns, format_percent

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "TOO_FEW_MARK",
    "floor_line",
    "resolution_flag",
    "tail_cell",
    "tail_note",
    "tail_rows",
    "tail_table_lines",
    "too_few",
]

#: Marks a quantile whose distribution-free interval has no upper bound.
TOO_FEW_MARK = "\u2020"
TAIL_TITLES = ["op", "size", "np", "launches", "p90", "p90 interval", "p99", "p99 interval", "max"]


def floor_line(result: Result) -> str | None:
    """The header's floor line, or None for a document from before 1.6."""
    floor = result.data.get("floor")
    if not floor:
        return None
    value = format_ns(floor.get("median_ns"))
    exact = floor.get("stop_reason") == DETERMINISTIC  # (1.10) no interval: a simulated clock
    text = (f"{value}{' deterministic' if exact else ' ± ' + format_ns(floor.get('error_ns'))} "
            f"(WaitPatternNull median, {floor.get('samples')} launches: the engine's empty "
            f"timed region")  # fmt: skip
    if floor.get("at_resolution"):
        text += ", at the clock's resolution"
    ranks = [v for v in floor.get("per_rank_median_ns") or [] if v is not None]
    if 0 < len(ranks) <= 4:
        text += "; per rank " + " / ".join(format_ns(v) for v in ranks)
    elif ranks:
        text += f"; per rank {format_ns(min(ranks))} .. {format_ns(max(ranks))} over {len(ranks)}"
    text += ")"
    return text + ("; SUBTRACTED from every time" if floor.get("subtracted")
                   else "; not subtracted (--floor subtract)")  # fmt: skip


def resolution_flag(point: Point, result: Result) -> str | None:
    """``at clock resolution`` for a point whose interval is the half step."""
    if not point.get("at_resolution"):
        return None
    step = result.environment["timer"].get("resolution_ns")
    return f"at clock resolution (E = half a {format_ns(step)} step)"


def _tail(point: Point) -> Mapping[str, Any] | None:
    tail = point.get("tail")
    return tail if tail else None


def too_few(quantile: Mapping[str, Any]) -> bool:
    """No upper bound: fewer launches than the quantile's interval needs."""
    bounds = quantile.get("ci_ns") or [None, None]
    return bounds[1] is None


def tail_cell(point: Point, key: str, timed: Any = format_ns) -> str:
    """A table cell: the quantile, marked when its interval has no upper bound
    (never for a point measured to its exact value: every launch read it)."""
    tail = _tail(point)
    if tail is None or tail[key].get("value_ns") is None:
        return "-"
    marked = too_few(tail[key]) and not is_exact(point)
    return timed(tail[key]["value_ns"]) + (TOO_FEW_MARK if marked else "")


def tail_note(result: Result) -> str | None:
    """The footnote of a table with marked p99 (or p90) cells."""
    needs = sorted({
        (key, int(tail[key]["min_samples"])) for p in result.points
        if (tail := _tail(p)) and not is_exact(p) for key in ("p90", "p99") if too_few(tail[key])
    })  # fmt: skip
    if not needs:
        return None
    what = ", ".join(f"{key} {n}" for key, n in needs)
    return (f"{TOO_FEW_MARK}: too few valid launches for this quantile to mean much (its "
            f"{format_percent(result.confidence)} distribution-free interval has no upper "
            f"bound: it needs {what}); report --tails shows the intervals")


def _interval(quantile: Mapping[str, Any]) -> str:
    low, high = quantile.get("ci_ns") or [None, None]
    if low is None and high is None:
        return "-"
    return f"[{format_ns(low) if low is not None else '-'}, " + \
        (format_ns(high) if high is not None else f"none: needs {quantile['min_samples']}") + "]"


def tail_rows(result: Result) -> list[list[str]]:
    """One row per point with a tail: p90, p99 with their intervals, max."""
    rows = []
    for point in result.points:
        tail = _tail(point)
        if tail is None:
            continue
        rows.append([point.op, format_bytes(point.size_bytes), str(point.nprocs),
                     str(tail.get("samples")), format_ns(tail["p90"].get("value_ns")),
                     _interval(tail["p90"]), format_ns(tail["p99"].get("value_ns")),
                     _interval(tail["p99"]), format_ns(tail.get("max_ns"))])  # fmt: skip
    return rows


def tail_table_lines(result: Result) -> list[str]:
    """``report --tails``: the tail table with its intervals."""
    rows = tail_rows(result)
    if not rows:
        return ["no point of this result has tail percentiles (a document from before 1.6)"]
    lines = [f"tails of the valid launches ({format_percent(result.confidence)} "
             "distribution-free intervals: order statistics of the binomial):"]
    return lines + format_table(TAIL_TITLES, "<>>>>>>>>", rows)
