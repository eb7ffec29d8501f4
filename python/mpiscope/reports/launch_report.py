"""The launch summary of a merged result (``run --launches R``) as text.

One row per (op, size, nprocs, method, cache): how many launches measured
it, the median of their medians with its bootstrap interval over launches,
the range of the launch medians, the within-launch and between-launch
coefficients of variation, and ``DISAGREE`` where the launches disagree
(:data:`mpiscope.result.stats.DISAGREE_RULE`), with the values of the
launches' modes (``MODES 130 us (6 launches) / 500 us (4)``) where they fall
into separate groups; then each launch's median per point, in launch order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.estimate import group_points, summary_index
from mpiscope.result.modes import MODES_RULE, format_modes, modes_from_records
from mpiscope.result.stats import DISAGREE_RULE
from mpiscope.result.units import format_bytes, format_ns, format_number

__all__ = ["summary_lines"]


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{format_number(value * 100, 2)}%"


def _flags(row: Mapping[str, Any]) -> str:
    if not row.get("disagree"):
        return ""
    reasons = ", ".join(row.get("disagree_reasons") or ()) or "no reason given"
    modes = modes_from_records(row.get("modes"))
    shown = f"; {format_modes(modes, 'launches', format_ns)}" if modes else ""
    return f"DISAGREE: {reasons}{shown}"


def per_launch_lines(result: Result) -> list[str]:
    """Each launch's median per point, in launch order (``-``: not measured)."""
    rows = summary_index(result)
    count = len(result.data.get("launches") or ())
    if not rows or count < 2:
        return []
    points = group_points(result)
    lines = ["", f"each launch's median, launches 0..{count - 1} in order:"]
    cells = []
    for key, row in rows.items():
        values = ["-"] * count
        for point in points.get(key, ()):
            launch = point.get("launch")
            if launch is not None and 0 <= launch < count:
                values[launch] = format_ns(point.median_ns)
        cells.append([row["op"], format_bytes(row.get("size_bytes")), str(row["nprocs"]),
                      " ".join(values)])  # fmt: skip
    return lines + format_table(["op", "size", "np", "launch medians"], "<>><", cells)


def summary_values(row: Mapping[str, Any], beyond: bool) -> list[str]:
    """A summary row's launches, median, interval, launch medians, within and
    between CV, and (``beyond``: the table has it) its launch-to-launch part:
    the cells the text table and the HTML report share."""
    return [
        str(row["launches"]),
        format_ns(row.get("median_ns")),
        f"[{format_ns(row.get('ci_low_ns'))}, {format_ns(row.get('ci_high_ns'))}]",
        f"{format_ns(row.get('launch_min_ns'))} .. {format_ns(row.get('launch_max_ns'))}",
        _percent(row.get("within_cv")),
        _percent(row.get("between_cv")),
        *([_percent(row.get("between_rsd"))] if beyond else []),
    ]


def has_between(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether any row has a launch-to-launch part (its column is shown)."""
    return any(row.get("between_rsd") is not None for row in rows)


def summary_lines(result: Result) -> list[str]:
    """The summary table with a blank line before it; empty without a summary."""
    rows: list[Mapping[str, Any]] = result.data.get("launch_summary") or []
    if not rows:
        return []
    show = {
        key: len({str(row.get(key)) for row in rows}) > 1 for key in ("nprocs", "method", "cache")
    }
    stats = result.data.get("launch_statistics") or {}
    confidence = float(stats.get("confidence", result.confidence))
    launches = len(result.data.get("launches") or ()) or max(row["launches"] for row in rows)
    conf = f"{format_number(confidence * 100, 3)}%"
    titles = ["op", "size"] + [key for key in ("nprocs", "method", "cache") if show[key]]
    titles += ["launches", "median", f"{conf} CI (bootstrap)", "launch medians", "within CV",
               "between CV"]  # fmt: skip
    aligns = "<>" + "".join(">" if k == "nprocs" else "<" for k in show if show[k]) + ">>>>>>"
    beyond = has_between(rows)
    if beyond:
        titles.append("launch-to-launch")
        aligns += ">"
    titles.append("flags")
    aligns += "<"
    cells = []
    for row in rows:
        line = [row["op"], format_bytes(row.get("size_bytes"))]
        line += [str(row.get(key) or "-") for key in ("nprocs", "method", "cache") if show[key]]
        line += [*summary_values(row, beyond), _flags(row)]
        cells.append(line)
    disagreeing = sum(1 for row in rows if row.get("disagree"))
    lines = [
        "",
        f"across {launches} launches: median of the launch medians, its {conf} bootstrap "
        f"interval over launches (seed {stats.get('seed', '-')}); within CV: a launch's IQR/1.349 "
        "over its median (median over launches); between CV: of the launch medians"
        + ("; launch-to-launch: relative SD of the launches' means beyond their own errors "
           "(random effects, docs/method.md section 11)" if beyond else ""),
    ]
    lines += format_table(titles, aligns, cells)
    if disagreeing:
        lines.append(
            f"{disagreeing} of {len(rows)} point(s) disagree across launches: one launch's "
            f"interval does not describe them. DISAGREE: {DISAGREE_RULE}."
        )
    if any(row.get("modes") for row in rows):
        lines.append(f"MODES: the machine was in different states between launches; {MODES_RULE}.")
    return lines + per_launch_lines(result)
