"""The start of MPI (``mpiscope startup``): each way and process count over
its runs.

A point of ``"kind": "startup"`` is one run: every rank's start calls
(their own clock's durations, and when it called and was through on the
global clock made afterwards) and the round trips to each peer. One run
is one sample of a start, so the table gives per way and process count the
median over the runs and their range; the calls' table splits the
start into its calls (a session's three).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.center import median
from mpiscope.result.units import format_bytes, format_median_range, format_ns

__all__ = ["is_startup", "startup_lines", "startup_tables"]


def is_startup(result: Result) -> bool:
    """True when the document's points are start-up measurements."""
    return result.points_kind == "startup"


def _groups(result: Result) -> dict[tuple[str, int], list[Mapping[str, Any]]]:
    groups: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for point in result.points:
        groups.setdefault((point.get("how"), point["nprocs"]), []).append(point.data)
    return groups


def _values(points: Sequence[Mapping[str, Any]], *path: str) -> list[float]:
    out = []
    for point in points:
        value: Any = point
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if isinstance(value, int | float):
            out.append(float(value))
    return out


def _median(values: Sequence[float]) -> str:
    return format_ns(median(values)) if values else "-"


def _level(points: Sequence[Mapping[str, Any]]) -> str:
    levels = sorted({str(p.get("thread_level", "-")).removeprefix("MPI_THREAD_").lower()
                     for p in points})  # fmt: skip
    return ",".join(levels)


_TITLES = ["how", "ranks", "runs", "level", "start, median rank", "slowest rank",
           "all ready", "first contact", "second", "warm"]  # fmt: skip
_CALL_TITLES = ["how", "ranks", "call", "median rank", "fastest rank", "slowest rank"]


def startup_tables(result: Result) -> tuple[list[list[str]], list[list[str]]]:
    """The rows of the two tables: per way and process count, and per call."""
    rows, calls = [], []
    for (how, nprocs), points in _groups(result).items():
        global_clock = all(p.get("global_clock") for p in points)
        rows.append([
            how, str(nprocs), str(len(points)), _level(points),
            format_median_range(_values(points, "total", "median_ns")),
            _median(_values(points, "total", "max_ns")),
            _median(_values(points, "all_ready_ns")) if global_clock else "-",
            format_median_range(_values(points, "first_contact", "median_ns")),
            _median(_values(points, "second_contact", "median_ns")),
            _median(_values(points, "warm_contact", "median_ns")),
        ])  # fmt: skip
        for index, name in enumerate(points[0].get("calls") or ()):
            key = f"call_{index}"
            medians = _values(points, key, "median_ns")
            calls.append([how, str(nprocs), name, format_median_range(medians),
                          _median(_values(points, key, "min_ns")),
                          _median(_values(points, key, "max_ns"))])  # fmt: skip
    return rows, calls


def startup_lines(result: Result) -> list[str]:
    """The text report's body for a start-up document."""
    rows, calls = startup_tables(result)
    sizes = sorted({format_bytes(p.get("size_bytes")) for p in result.points})
    lines = [
        "the start of MPI: each run starts fresh processes; per way and process count, the "
        "median over its runs [their range]",
        "start: each rank's time in the calls that start MPI (its own clock); slowest rank: its "
        "largest; all ready: from the first rank's call to the last rank through, on the global "
        "clock",
        f"first contact: the first round trip ({', '.join(sizes)} each way) between two ranks, "
        "the time the partner had not yet posted its receive taken out (median over the pairs); "
        "second, warm: the next one and the median of nine more",
        "",
        *format_table(_TITLES, "<>><>>>>>>", rows),
        "",
        "each call that starts MPI, over the ranks (median over the runs):",
        *format_table(_CALL_TITLES, "<><>>>", calls),
    ]
    failures = [p for p in result.points if (p.get("validation") or {}).get("failures")]
    checked = [p for p in result.points if p.get("validation")]
    if checked:
        messages = sum(int(p["validation"].get("messages_checked") or 0) for p in checked)
        lines += ["", f"validated: {messages} messages checked in {len(checked)} runs, "
                      f"{len(failures)} with a failure"]  # fmt: skip
        lines += [f"  VALIDATION FAILED (run {p.get('run', 0)}, {p.get('how')}): "
                  f"{p['validation'].get('first_mismatch')}" for p in failures]  # fmt: skip
    return lines
