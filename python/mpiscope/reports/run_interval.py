"""Which interval is which, in the text and HTML reports.

A point's ``E`` is its within-run error (the engine's interval: how well
this run pins its own mean). With the machine's run profile
(:mod:`mpiscope.measure.run_profile`) a single-run point also has
``run_interval``, E': what another run would read. This module
gives the report its cells for that (the run-to-run part, the
states flag) and its lines: where the run-to-run part came from,
which points have the within-run interval only and how to get the
other, which points were seen in separate states between runs, and
what a ``--runs`` run recorded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from mpiscope.reports.deterministic import is_exact
from mpiscope.result import Point, Result
from mpiscope.result.modes import format_modes, modes_from_records
from mpiscope.result.units import format_ns, format_percent

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "between_cell",
    "has_run_intervals",
    "interval_lines",
    "states_flag",
]

#: Runs the advice suggests for measuring the run-to-run part.
SUGGESTED_RUNS = 5


def has_run_intervals(points: Sequence[Point]) -> bool:
    return any(p.get("run_interval") for p in points)


def between_cell(point: Point) -> str:
    """The run-to-run relative SD folded into the point, ``-`` without."""
    interval = point.get("run_interval")
    return "-" if not interval else f"±{format_percent(float(interval['between_rsd']))}"


def states_flag(point: Point) -> str:
    """``STATES between runs: MODES ...`` (or ``DISAGREE``) where the
    profile's runs of this point did not agree; empty otherwise."""
    interval = point.get("run_interval") or {}
    if not interval.get("disagree"):
        return ""
    modes = modes_from_records(interval.get("modes"))
    if modes:
        text = f"STATES between runs: {format_modes(modes, 'runs', format_ns)}"
        mean = point.mean_ns
        if mean is None or mean <= 0:
            return text
        nearest = min(modes, key=lambda m: abs(math.log(max(m.value_ns, 1e-9) / mean)))
        return f"{text}; this run: the {format_ns(nearest.value_ns)} state"
    reasons = ", ".join(interval.get("disagree_reasons") or ()) or "spread"
    return f"runs DISAGREED ({reasons})"


def _calibrations(intervals: Sequence[Mapping[str, Any]]) -> str:
    """```run --runs 8` on 2026-11-24 08:40 UTC`` (ranges when they differ)."""
    counts = sorted({int(i["runs"]) for i in intervals})
    dates = sorted({_minute(str(i["measured_utc"])) for i in intervals})
    count = str(counts[0]) if len(counts) == 1 else f"{counts[0]}..{counts[-1]}"
    when = f"on {dates[0]}" if len(dates) == 1 else f"between {dates[0]} and {dates[-1]}"
    return f"`run --runs {count}` {when}"


def _minute(stamp: str) -> str:
    """2026-11-24T08:40:12Z -> 2026-11-24 08:40 UTC."""
    return f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) >= 16 else stamp or "?"


def interval_lines(result: Result, confidence: str) -> list[str]:
    """The report's lines on the two intervals (empty for a document that is
    neither a single run nor a recording ``--runs`` run)."""
    profile = result.data.get("run_profile") or {}
    if result.data.get("runs"):  # a merged document: what it recorded
        if profile.get("action") != "recorded":
            return []
        return [
            f"run profile: the run-to-run part of {profile.get('points', 0)} point(s) "
            f"recorded in {profile.get('path')}; a single `mpiscope run` of the same points "
            "folds it into their intervals"
        ]
    # (a point measured to its exact value has no interval: its clock has no noise)
    measured = [p for p in result.points
                if p.get("kind", "measure") == "measure" and not is_exact(p)]  # fmt: skip
    intervals = [p["run_interval"] for p in measured if p.get("run_interval")]
    lines: list[str] = []
    if intervals:
        rsd = sorted(float(i["between_rsd"]) for i in intervals)
        span = (format_percent(rsd[0]) if rsd[0] == rsd[-1]
                else f"{format_percent(rsd[0])}..{format_percent(rsd[-1])}")  # fmt: skip
        lines.append(
            f"E': half-width of the {confidence} interval of what another run would read: "
            f"E's standard error and the run-to-run part (±{span}, column `runs ±`) "
            f"measured by {_calibrations(intervals)} (profile {profile.get('path', '?')})"
        )
    without = len(measured) - len(intervals)
    if without:
        which = "these points" if not intervals else f"{without} point(s) (E' `-`)"
        lines.append(
            f"within-run only: no run-to-run part measured on this machine for {which}: "
            "E says how well this run pins its mean, not what another run would read; to "
            f"get that, run once `mpiscope run` with the same options and --runs "
            f"{SUGGESTED_RUNS}"
        )
    states = sum(1 for p in measured if (p.get("run_interval") or {}).get("disagree"))
    if states:
        lines.append(
            f"{states} point(s) (STATES, DISAGREED): this machine was seen in separate states "
            "between runs; this run read one of them and another run may read "
            "another: E' spans them, but a value between them is not typical"
        )
    return lines
