"""The text report of a result document: a header block, one row per point.

The header says what was measured with what (MPI library, hosts, ranks,
timer, clock sync, method, cache); the table gives per point the launch
counts and the statistics of section 5 of the measurement spec. Each time
column has one unit, chosen for its typical value. A result that did not
finish says so loudly, first and last.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.result import Point, Result
from mpiscope.result.units import format_bytes, format_ns, format_number, pick_time_unit

__all__ = ["header_rows", "render_report", "table_cells"]

MISSING = "-"
PARTIAL_BANNER = "PARTIAL RESULT: the run did not finish"


def render_report(result: Result, per_rank: bool = False) -> str:
    """The whole report as text (no trailing newline)."""
    lines: list[str] = []
    partial = _partial_lines(result)
    lines += partial
    lines += _header_lines(result)
    lines.append("")
    lines += _body_lines(result, per_rank)
    if result.warnings:
        lines.append("")
        lines.append("warnings:")
        lines += [f"  - {text}" for text in result.warnings]
    if partial:
        lines.append("")
        lines.append(f"{PARTIAL_BANNER}: {len(result)} point(s) were measured before it stopped")
    return "\n".join(lines)


def _body_lines(result: Result, per_rank: bool) -> list[str]:
    """The point table (then the launch summary and the comparison of timing
    methods, when there are), or what a check or first-call document shows."""
    # lazy: these modules render their own parts of a report
    from mpiscope.reports.check import check_lines
    from mpiscope.reports.firstcall import firstcall_lines, is_firstcall
    from mpiscope.reports.launch_report import summary_lines
    from mpiscope.reports.method_compare import comparison_lines

    if result.data.get("check") is not None:
        return check_lines(result)
    if is_firstcall(result):
        return firstcall_lines(result)
    return _table_lines(result, per_rank) + summary_lines(result) + comparison_lines(result)


# --- header -----------------------------------------------------------------


def _partial_lines(result: Result) -> list[str]:
    if result.complete:
        return []
    line = f"{PARTIAL_BANNER} (status: {result.status})"
    if result.error:
        line += f": {result.error}"
    return [line, ""]


def _header_lines(result: Result) -> list[str]:
    rows = header_rows(result)
    width = max(len(name) for name, _ in rows)
    return [f"{name:<{width}}  {value}" for name, value in rows]


def header_rows(result: Result) -> list[tuple[str, str]]:
    """The header block as (name, text) pairs, for other renderings (HTML)."""
    env = result.environment
    return [
        ("MPI library", _mpi_line(env)),
        ("hosts", _hosts_line(env)),
        ("launcher", env.get("launcher") or MISSING),
        ("timer", _timer_line(env["timer"])),
        ("clock sync", _sync_line(env["clock_sync"])),
        ("method", _method_line(result.method)),
        ("stopping", _stop_line(result.method)),
        ("cache", _cache_line(env["cache"])),
        ("cpu", str(env.get("cpu_model") or MISSING)),
        ("compiler", str(env.get("compiler") or MISSING)),
        ("time (UTC)", f"{env['start_time_utc']} .. {env.get('end_time_utc') or 'not finished'}"),
        ("command", env.get("command_line") or MISSING),
        ("mpiscope", f"{env.get('mpiscope_version')} (result schema {result.schema_version})"),
    ]


def _mpi_line(env: Mapping[str, Any]) -> str:
    library = str(env.get("mpi_library_version") or "").strip()
    first = " ".join(library.splitlines()[0].split()) if library else "unknown"
    extra = [f"MPI {env.get('mpi_version')}"]
    if env.get("mpi_implementation"):
        extra.append(str(env["mpi_implementation"]))
    return f"{first} ({', '.join(extra)})"


def _hosts_line(env: Mapping[str, Any]) -> str:
    hosts = list(env.get("hosts") or [])
    shown = ", ".join(hosts[:4]) + (f", ... ({len(hosts)} hosts)" if len(hosts) > 4 else "")
    nodes = env.get("nodes")
    text = (
        f"{shown} ({nodes} node{'s' if nodes != 1 else ''}, {env.get('ranks')} ranks, "
        f"{env.get('ranks_per_node')} per node"
    )
    if env.get("oversubscribed"):
        text += ", OVERSUBSCRIBED"
    return text + ")"


def _timer_line(timer: Mapping[str, Any]) -> str:
    text = f"{timer['name']}"
    if timer.get("source"):
        text += f" ({timer['source']})"
    text += (
        f", resolution {format_ns(timer['resolution_ns'])}, "
        f"read overhead {format_ns(timer['read_overhead_ns'])}"
    )
    if timer.get("frequency_hz"):
        text += f", {format_number(timer['frequency_hz'] / 1e9, 4)} GHz"
    if timer.get("invariant") is False:
        text += ", NOT INVARIANT"
    if timer.get("wtime_is_global"):
        text += ", MPI_WTIME_IS_GLOBAL"
    return text


def _sync_line(sync: Mapping[str, Any]) -> str:
    text = f"{sync['algorithm']}, max residual {format_ns(sync.get('max_abs_residual_ns'))}"
    if sync.get("max_abs_end_residual_ns") is not None:
        text += f" (at the end {format_ns(sync['max_abs_end_residual_ns'])})"
    text += f", {sync.get('exchanges')} exchanges in {format_ns(sync.get('duration_ns'))}"
    return text


def _method_line(method: Mapping[str, Any]) -> str:
    name = str(method["name"])
    if name != "window":
        params = ""
    else:
        params = (
            f": k={method['k']}, k_init={method['k_init']}, gamma={method['gamma']}, "
            f"invalid threshold {_percent(method['invalid_threshold'])}, "
            f"min window {format_ns(method['window_min_ns'])}, "
            f"late tolerance {format_ns(method['late_tolerance_ns'])}"
            + (
                f" or {_percent(method['late_tolerance_fraction'])} of the window"
                if method.get("late_tolerance_fraction")
                else ""
            )
            + ", "
            f"t_bcast {format_ns(method['t_bcast_ns'])}"
        )
    return (
        f"{name}{params}; trim {_percent(method['trim_fraction'])} each side, "
        f"confidence {_percent(method['confidence'])}"
    )


def _stop_line(method: Mapping[str, Any]) -> str:
    if method["stop_rule"] == "error":
        rule = (
            f"error rule: RSE <= {_percent(method['target_rse'])} "
            f"with >= {method['min_valid']} valid launches"
        )
    else:
        rule = f"count rule: {method['max_valid']} valid launches"
    return (
        f"{rule}; at most {method['max_launches']} launches "
        f"and {format_number(method['max_point_seconds'])} s per point"
    )


def _cache_line(cache: Mapping[str, Any]) -> str:
    parts = [f"alignment {format_bytes(cache.get('alignment_bytes'))}"]
    if cache.get("llc_bytes") is not None:
        parts.append(f"LLC {format_bytes(cache['llc_bytes'])}")
    if cache.get("pool_limit_bytes") is not None:
        parts.append(f"buffer pool limit {format_bytes(cache['pool_limit_bytes'])}")
    return f"{cache['mode']} ({', '.join(parts)})"


def _percent(fraction: float) -> str:
    return f"{format_number(fraction * 100, 3)}%"


# --- table ------------------------------------------------------------------


@dataclass(frozen=True)
class _Column:
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
    lines.append(
        f"E: half-width of the {_percent(result.confidence)} confidence interval of the mean; "
        "n_t/n_c/n_s: launches / valid / kept after trimming"
    )
    return lines


def table_cells(result: Result) -> tuple[list[str], list[str], list[list[str]]]:
    """The point table for other renderings (HTML): titles, alignments ("<" or
    ">") and one row of cell texts per point, as in the text report."""
    points = result.points
    columns = _columns(result, points)
    rows = [[column.cell(point) for column in columns] for point in points]
    return [c.title for c in columns], [c.align for c in columns], rows


def _columns(result: Result, points: Sequence[Point]) -> list[_Column]:
    """Every time cell carries its own unit: a column runs from ns to ms."""
    conf = _percent(result.confidence)
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
        _Column("min", ">", lambda p: _timed(p.min_ns), lambda r: _timed(r.min_ns)),
        _Column("max", ">", lambda p: _timed(p.max_ns), lambda r: _timed(r.max_ns)),
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
    columns.append(_Column("flags", "<", _flags))
    return columns


def _variant_columns(result: Result, points: Sequence[Point]) -> list[_Column]:
    """method, cache, arrival and launch: shown when they vary among the points."""
    defaults = {
        "method": result.method.get("name"),
        "cache": result.environment["cache"].get("mode"),
        "arrival": None,
        "launch": None,
    }
    texts: dict[str, Callable[[Point], str]] = {
        key: (lambda p, key=key: _text(_point_value(p, key, defaults[key])))
        for key in defaults
    }
    return [
        _Column(key, "<" if key != "launch" else ">", texts[key])
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
    name, scale = pick_time_unit([value])
    return f"{format_number(value / scale, 3, trim_zeros=False)} {name}"


def _mean_pm(point: Point) -> str:
    """``mean ± E unit`` with E to 2 significant digits and the mean to the same place."""
    mean, error = point.mean_ns, point.error_ns
    if mean is None:
        return MISSING
    name, scale = pick_time_unit([mean])
    if error == 0:  # every kept sample equal
        return f"{format_number(mean / scale, 3, trim_zeros=False)} ± 0 {name}"
    if error is None or error < 0 or not math.isfinite(error):
        return f"{format_number(mean / scale, 3, trim_zeros=False)} ± {MISSING} {name}"
    e = error / scale
    decimals = min(3, max(0, 1 - math.floor(math.log10(e))))
    return f"{mean / scale:.{decimals}f} ± {e:.{decimals}f} {name}"


def _flags(point: Point) -> str:
    flags: list[str] = []
    if point.unstable:
        reasons = ", ".join(point.unstable_reasons) or "no reason given"
        flags.append(f"UNSTABLE: {reasons}")
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
