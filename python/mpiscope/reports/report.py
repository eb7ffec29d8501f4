"""The text report of a result document: a header block, one row per point.

The header (:mod:`mpiscope.reports.header`) says what was measured with
what; the table gives per point the launch
counts and the statistics of section 5 of the measurement spec. Each time
column has one unit, chosen for its typical value. A result that did not
finish says so loudly, first and last.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from mpiscope.record import Record
from mpiscope.reports.deterministic import deterministic_lines, differed, is_exact
from mpiscope.reports.header import MISSING, PARTIAL_BANNER, header_lines, partial_lines
from mpiscope.reports.method_compare import comparison_lines
from mpiscope.reports.parts import notes_lines, parts_lines
from mpiscope.reports.run_interval import (
    between_cell,
    has_run_intervals,
    interval_lines,
    states_flag,
)
from mpiscope.reports.run_report import summary_lines
from mpiscope.reports.tails import resolution_flag, tail_cell, tail_note, tail_table_lines
from mpiscope.result import Point, Result
from mpiscope.result.modes import format_modes, point_modes
from mpiscope.result.units import (
    format_bytes,
    format_number,
    format_percent,
    pick_time_unit,
)

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["render_report", "table_cells"]

def render_report(result: Result, per_rank: bool = False, tails: bool = False) -> str:
    """The whole report as text (no trailing newline); ``tails``: with the
    table of p90/p99 intervals."""
    lines: list[str] = []
    partial = partial_lines(result)
    lines += partial
    lines += header_lines(result)
    lines.append("")
    lines += _body_lines(result, per_rank)
    if tails and result.points:
        lines += ["", *tail_table_lines(result)]
    if result.warnings:
        lines.append("")
        lines.append("warnings:")
        lines += [f"  - {text}" for text in result.warnings]
    if partial:
        lines.append("")
        lines.append(f"{PARTIAL_BANNER}: {len(result)} point(s) were measured before it stopped")
    return "\n".join(lines)


def _body_lines(result: Result, per_rank: bool) -> list[str]:
    """The point table (then the run summary and the comparison of timing
    methods, when there are), or what a check, first-call or start-up document
    shows."""
    # each kind's module only for its documents (a run's report imports none)
    if result.data.get("check") is not None:
        from mpiscope.reports.check import check_lines

        return check_lines(result)
    if result.points_kind == "firstcall":
        from mpiscope.reports.firstcall import firstcall_lines

        return firstcall_lines(result)
    if result.points_kind == "startup":
        from mpiscope.reports.startup import startup_lines

        return startup_lines(result)
    return _table_lines(result, per_rank) + summary_lines(result) + comparison_lines(result)


# --- table ------------------------------------------------------------------


class _Column(Record):
    title: str
    align: str  # "<" or ">"
    cell: Callable[[Point], str]
    rank_cell: Callable[[Any], str] | None = None


def _table_lines(result: Result, per_rank: bool) -> list[str]:
    points = result.points
    if not points:
        return ["no measurement point in this result"]
    columns = _columns(result, points)
    rows: list[list[str]] = []
    for point in points:
        rows.append([column.cell(point) for column in columns])
        ranks = point.per_rank if per_rank else None
        for rank in ranks or []:
            rows.append([column.rank_cell(rank) if column.rank_cell else "" for column in columns])
        if per_rank and ranks is None:
            rows.append(["  (no per-rank data in this result)"] + [""] * (len(columns) - 1))
    lines = _layout(columns, rows)
    lines.append("")
    if result.method["name"] == "window" and all(
        p.get("method", "window") == "window" for p in points
    ):
        lines.append("time: max over ranks of each rank's own duration of a launch")
    if per_rank:
        lines.append(
            "rank rows: the rank's own durations; skew med: how late the rank started after the "
            "first rank (median over valid launches; needs --raw)"
        )
    counts = "n_t/n_c/n_s: launches / valid / kept after trimming"
    if all(is_exact(p) for p in points):  # no interval to explain
        lines.append(counts)
    else:
        lines.append(
            f"E: half-width of the {format_percent(result.confidence)} confidence interval of "
            "the mean from this run's samples (within-run), never below half a timer step "
            f"when they do not dither; {counts}"
        )
    note = tail_note(result)
    if note:
        lines.append(note)
    lines += interval_lines(result, format_percent(result.confidence))
    lines += deterministic_lines(result)
    return lines + parts_lines(result) + notes_lines(result)


def table_cells(result: Result) -> tuple[list[str], list[str], list[list[str]]]:
    """The point table for other renderings (HTML): titles, alignments ("<" or
    ">") and one row of cell texts per point, as in the text report."""
    points = result.points
    columns = _columns(result, points)
    rows = [[column.cell(point) for column in columns] for point in points]
    return [c.title for c in columns], [c.align for c in columns], rows


def _columns(result: Result, points: Sequence[Point]) -> list[_Column]:
    """Every time cell carries its own unit: a column runs from ns to ms."""
    conf = format_percent(result.confidence)
    columns = [
        _Column("op", "<", lambda p: p.op, lambda r: f"  rank {r.rank}"),
        _Column("size", ">", lambda p: format_bytes(p.size_bytes)),
    ]
    if result.varied == "nprocs" or len({p.nprocs for p in points}) > 1:
        columns.append(_Column("np", ">", lambda p: str(p.nprocs)))
    columns += _variant_columns(result, points)
    columns += [
        _Column(
            "n_t/n_c/n_s", ">", lambda p: f"{p.launches_total}/{p.launches_valid}/{p.samples_used}"
        ),
        _Column("median", ">", lambda p: _timed(p.median_ns), lambda r: _timed(r.median_ns)),
        _Column(f"mean ± E({conf})", ">", _mean_pm, lambda r: _timed(r.mean_ns)),
    ]
    if has_run_intervals(points):
        columns += [
            _Column("± E'", ">", _run_pm),
            _Column("runs ±", ">", between_cell),
        ]
    columns += [
        _Column("min", ">", lambda p: _timed(p.min_ns), lambda r: _timed(r.min_ns)),
        _Column("max", ">", lambda p: _timed(p.max_ns), lambda r: _timed(r.max_ns)),
    ]
    if any(p.get("tail") for p in points):
        columns += [_tail_column(key) for key in ("p90", "p99")]
    columns += [
        _Column("span med", ">", lambda p: _timed(_summary_median(p, "global_span"))),
        _Column(
            "skew med",
            ">",
            lambda p: _timed(_summary_median(p, "start_skew")),
            lambda r: _timed(r.start_delay_ns),
        ),
    ]
    if any(p.get("gap") is not None for p in points):
        columns.append(
            _Column("gap med", ">", lambda p: _timed((p.get("gap") or {}).get("median_ns")))
        )
    columns.append(_Column("flags", "<", lambda p: _flags(p, result)))
    return columns


def _variant_columns(result: Result, points: Sequence[Point]) -> list[_Column]:
    """method, cache, arrival and run: shown when they vary among the points."""
    defaults = {
        "method": result.method.get("name"),
        "cache": result.environment["cache"].get("mode"),
        "arrival": None,
        "run": None,
    }
    texts = {key: _value_text(key, defaults[key]) for key in defaults}
    return [
        _Column(key, "<" if key != "run" else ">", texts[key])
        for key in defaults
        if len({texts[key](p) for p in points}) > 1
    ]


def _text(value: Any) -> str:
    return MISSING if value is None else str(value)


def _point_value(point: Point, key: str, default: Any) -> Any:
    if key == "arrival" and point.get("arrival") is None and point.get("arrival_ns"):
        delays = point["arrival_ns"]  # the bench's planned delays per rank
        return "late " + "/".join(_timed(d) if d else "0" for d in delays)
    return point.get(key, default)


def _layout(columns: Sequence[_Column], rows: Sequence[Sequence[str]]) -> list[str]:
    titles = [c.title for c in columns]
    widths = [len(t) for t in titles]
    for row in rows:
        # The first cell of a note row may be wide: let it overflow instead.
        for i, cell in enumerate(row):
            if not (i == 0 and cell.startswith("  (")):
                widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        out = [
            f"{cell:{col.align}{width}}"
            for cell, col, width in zip(cells, columns, widths, strict=True)
        ]
        return "  ".join(out).rstrip()

    return [line(titles), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def _summary_median(point: Point, key: str) -> float | None:
    summary = point.get(key)
    return None if summary is None else summary.get("median_ns")


def _timed(value: float | None) -> str:
    """3 significant digits (trailing zeros kept) in the value's own unit."""
    if value is None:
        return MISSING
    if abs(value) < 0.005:  # a floor subtracted from a time on the same clock steps
        return "0 ns"
    name, scale = pick_time_unit([value])
    return f"{format_number(value / scale, 3, trim_zeros=False)} {name}"


def _mean_pm(point: Point) -> str:
    """``mean ± E unit`` with E to 2 significant digits and the mean to the same place;
    ``value unit deterministic`` for a point measured to its exact value (no noise)."""
    if is_exact(point):
        return f"{_timed(point.mean_ns)} deterministic"
    mean_text, error_text, name = _plus_minus(point.mean_ns, point.error_ns)
    return MISSING if mean_text is None else f"{mean_text} ± {error_text} {name}"


def _run_pm(point: Point) -> str:
    """``± E' unit``: the run interval's half-width, in the unit and to the
    place of the mean (``-`` for a point without one)."""
    interval = point.get("run_interval")
    if not interval:
        return MISSING
    mean_text, error_text, name = _plus_minus(point.mean_ns, interval.get("error_ns"))
    return MISSING if mean_text is None else f"± {error_text} {name}"


def _plus_minus(mean: float | None, error: float | None) -> tuple[str | None, str, str]:
    """The texts of a mean and its error (2 significant digits, the mean to the
    same place) and their unit; None for no mean."""
    if mean is None:
        return None, MISSING, ""
    name, scale = pick_time_unit([mean])
    if error == 0:  # every kept sample equal
        return format_number(mean / scale, 3, trim_zeros=False), "0", name
    if error is None or error < 0 or not math.isfinite(error):
        return format_number(mean / scale, 3, trim_zeros=False), MISSING, name
    e = error / scale
    decimals = min(3, max(0, 1 - math.floor(math.log10(e))))
    return f"{mean / scale:.{decimals}f}", f"{e:.{decimals}f}", name


def _flags(point: Point, result: Result) -> str:
    flags: list[str] = []
    if point.unstable:
        reasons = ", ".join(point.unstable_reasons) or "no reason given"
        flags.append(f"UNSTABLE: {reasons}")
    at_resolution = resolution_flag(point, result)
    if at_resolution:
        flags.append(at_resolution)
    if differed(point, result):
        flags.append("launches differed: statistics")
    modes = point_modes(point.data)
    if modes:
        flags.append(format_modes(modes, "samples", _timed))
    states = states_flag(point)
    if states:
        flags.append(states)
    if point.oversubscribed:
        flags.append("oversubscribed")
    if point.actual_bytes is not None and point.actual_bytes != point.size_bytes:
        flags.append(f"actual {format_bytes(point.actual_bytes)}")
    validation = point.get("validation")
    if validation:
        if not validation.get("supported", True):
            flags.append("not validated (no check for this op)")
        elif validation.get("failures"):
            flags.append(
                f"VALIDATION FAILED on rank {validation.get('first_mismatch_rank')}, launch "
                f"{validation.get('first_mismatch_launch')}: {validation.get('first_mismatch')}"
            )
        else:
            flags.append(f"validated ({validation.get('launches_checked')} launches)")
    return "; ".join(flags)


def _tail_column(key: str) -> _Column:
    """The column of one tail percentile (p90, p99)."""
    return _Column(key, ">", lambda p: tail_cell(p, key, _timed))


def _value_text(key: str, default: Any) -> Callable[[Point], str]:
    """A point's value of ``key`` as text (``default`` when it has none)."""
    return lambda p: _text(_point_value(p, key, default))
