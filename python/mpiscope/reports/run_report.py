"""The run summary of a merged result (``run --runs R``) as text.

One row per (op, size, nprocs, method, cache): how many runs measured
it, the median of their medians with its bootstrap interval over runs,
the range of the run medians, the within-run and between-run
coefficients of variation, and ``DISAGREE`` where the runs disagree
(:data:`mpiscope.result.stats.DISAGREE_RULE`), with the values of the
runs' modes (``MODES 130 us (6 runs) / 500 us (4)``) where they fall
into separate groups; then each run's median per point, in run order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.estimate import group_points, summary_index
from mpiscope.result.modes import MODES_RULE, format_modes, modes_from_records
from mpiscope.result.stats import DISAGREE_RULE
from mpiscope.result.units import format_bytes, format_ns, format_number

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["summary_lines"]


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{format_number(value * 100, 2)}%"


def _flags(row: Mapping[str, Any]) -> str:
    if not row.get("disagree"):
        return ""
    reasons = ", ".join(row.get("disagree_reasons") or ()) or "no reason given"
    modes = modes_from_records(row.get("modes"))
    shown = f"; {format_modes(modes, 'runs', format_ns)}" if modes else ""
    return f"DISAGREE: {reasons}{shown}"


def per_run_lines(result: Result) -> list[str]:
    """Each run's median per point, in run order (``-``: not measured)."""
    rows = summary_index(result)
    count = len(result.data.get("runs") or ())
    if not rows or count < 2:
        return []
    points = group_points(result)
    lines = ["", f"each run's median, runs 0..{count - 1} in order:"]
    cells = []
    for key, row in rows.items():
        values = ["-"] * count
        for point in points.get(key, ()):
            run = point.get("run")
            if run is not None and 0 <= run < count:
                values[run] = format_ns(point.median_ns)
        cells.append([row["op"], format_bytes(row.get("size_bytes")), str(row["nprocs"]),
                      " ".join(values)])  # fmt: skip
    return lines + format_table(["op", "size", "np", "run medians"], "<>><", cells) + _rtt_line(
        result.data.get("runs") or ())


def _rtt_line(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each run's shortest clock-sync round trip: measured before any point,
    it moves with the machine's state, not with what a point measured
    (docs/method.md section 11)."""
    rtts = [r.get("sync_rtt_min_ns") for r in runs]
    if not any(rtts):
        return []
    return ["clock sync, shortest round trip, same order: "
            + " ".join(format_ns(t) if t else "-" for t in rtts)]


def summary_values(row: Mapping[str, Any], beyond: bool) -> list[str]:
    """A summary row's runs, median, interval, run medians, within and
    between CV, and (``beyond``: the table has it) its run-to-run part:
    the cells the text table and the HTML report share."""
    return [
        str(row["runs"]),
        format_ns(row.get("median_ns")),
        f"[{format_ns(row.get('ci_low_ns'))}, {format_ns(row.get('ci_high_ns'))}]",
        f"{format_ns(row.get('run_min_ns'))} .. {format_ns(row.get('run_max_ns'))}",
        _percent(row.get("within_cv")),
        _percent(row.get("between_cv")),
        *([_percent(row.get("between_rsd"))] if beyond else []),
    ]


def has_between(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether any row has a run-to-run part (its column is shown)."""
    return any(row.get("between_rsd") is not None for row in rows)


def summary_lines(result: Result) -> list[str]:
    """The summary table with a blank line before it; empty without a summary."""
    rows: list[Mapping[str, Any]] = result.data.get("run_summary") or []
    if not rows:
        return []
    show = {
        key: len({str(row.get(key)) for row in rows}) > 1 for key in ("nprocs", "method", "cache")
    }
    stats = result.data.get("run_statistics") or {}
    confidence = float(stats.get("confidence", result.confidence))
    runs = len(result.data.get("runs") or ()) or max(row["runs"] for row in rows)
    conf = f"{format_number(confidence * 100, 3)}%"
    titles = ["op", "size"] + [key for key in ("nprocs", "method", "cache") if show[key]]
    titles += ["runs", "median", f"{conf} CI (bootstrap)", "run medians", "within CV",
               "between CV"]  # fmt: skip
    aligns = "<>" + "".join(">" if k == "nprocs" else "<" for k in show if show[k]) + ">>>>>>"
    beyond = has_between(rows)
    if beyond:
        titles.append("run-to-run")
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
        f"across {runs} runs: median of the run medians, its {conf} bootstrap "
        f"interval over runs (seed {stats.get('seed', '-')}); within CV: a run's IQR/1.349 "
        "over its median (median over runs); between CV: of the run medians"
        + ("; run-to-run: relative SD of the runs' means beyond their own errors "
           "(random effects, docs/method.md section 11)" if beyond else ""),
    ]
    lines += format_table(titles, aligns, cells)
    if disagreeing:
        lines.append(
            f"{disagreeing} of {len(rows)} point(s) disagree across runs: one run's "
            f"interval does not describe them. DISAGREE: {DISAGREE_RULE}."
        )
    if any(row.get("modes") for row in rows):
        lines.append(f"MODES: the machine was in different states between runs; {MODES_RULE}.")
        lines += _round_trips_agree(rows, result.data.get("runs") or ())
    return lines + per_run_lines(result)


def _round_trips_agree(rows: Sequence[Mapping[str, Any]],
                       runs: Sequence[Mapping[str, Any]]) -> list[str]:  # fmt: skip
    """One line when the runs' clock-sync round trips, taken before any
    point, split as the runs of the widest modes do: the state was the
    machine's (docs/method.md section 11). Nothing when they do not, or
    are not known."""
    rtt = {int(r["run"]): float(r["sync_rtt_min_ns"]) for r in runs
           if "run" in r and r.get("sync_rtt_min_ns")}  # fmt: skip
    split = [sorted(modes_from_records(row.get("modes")), key=lambda m: m.value_ns)
             for row in rows if row.get("modes")]  # fmt: skip
    modes = max(split, key=lambda m: m[-1].value_ns / m[0].value_ns if m else 0.0)
    members = [i for m in modes for i in m.members]
    if len(modes) < 2 or any(i not in rtt for i in members):
        return []
    fast = [rtt[i] for i in modes[0].members]
    slow = [rtt[i] for m in modes[1:] for i in m.members]
    if max(fast) >= min(slow):
        return []
    return [f"The runs' clock-sync round trips split the same way: {format_ns(min(fast))} .. "
            f"{format_ns(max(fast))} in the runs of {format_ns(modes[0].value_ns)}, "
            f"{format_ns(min(slow))} .. {format_ns(max(slow))} in the others (taken before any "
            "point): the state was the machine's."]
