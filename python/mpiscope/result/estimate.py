"""The headline estimate of a measured (operation, size, processes, method).

One result document may hold several points for the same key: one per
run when runs were merged (``mpiscope run --runs``, each point
with ``"run": i``). The views (plots, comparisons) then need one value
with an interval; this module decides it, in one place:

- one point: its trimmed mean T and T's confidence interval
  (``ci_low_ns``, ``ci_high_ns``);
- several runs with a ``run_summary`` entry: the median of the
  runs' medians and its interval over runs;
- several runs without one: the median of the runs' means, with
  the union of their intervals.

Where the samples of the point, or its runs, fall into separate modes
(:mod:`mpiscope.result.modes`), the estimate is flagged and carries the
modes: one value between them describes neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mpiscope.record import Record
from mpiscope.result.document import Point, Result
from mpiscope.result.methods import DEFAULT_METHOD
from mpiscope.result.modes import Mode, modes_from_records, point_modes
from mpiscope.result.run_variation import summary_rows
from mpiscope.result.stats import median

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Estimate",
    "Key",
    "estimate",
    "group_points",
    "is_measurement",
    "point_cache",
    "point_key",
    "point_method",
    "summary_index",
]

#: (op, size_bytes, nprocs, method, cache mode): what makes two points
#: comparable (the key of ``run_summary`` too).
Key = tuple[str, "int | None", int, str, "str | None"]


class Estimate(Record):
    """A value (ns) with its interval; ``flagged``: do not trust it as is
    (an unstable point, runs that disagree, modes); ``statistic`` says
    what the value is; ``modes``: the separate modes, if any."""

    value_ns: float | None
    low_ns: float | None
    high_ns: float | None
    flagged: bool
    runs: int
    statistic: str
    modes: tuple[Mode, ...] = ()


def point_method(result: Result, point: Point) -> str:
    """The timing method of a point: its own ``method``, else the document's."""
    name = point.get("method")
    if name is None:
        name = result.method.get("name", DEFAULT_METHOD)
    return str(name)


def point_cache(result: Result, point: Point) -> str | None:
    """The cache mode of a point: its own ``cache``, else the document's."""
    cache = point.get("cache") or result.environment.get("cache", {}).get("mode")
    return None if cache is None else str(cache)


def is_measurement(point: Point) -> bool:
    """A timed point (``kind`` "measure" or absent), not a first-call record."""
    return point.get("kind", "measure") == "measure"


def point_key(result: Result, point: Point) -> Key:
    return (
        point.op,
        point.size_bytes,
        point.nprocs,
        point_method(result, point),
        point_cache(result, point),
    )


def group_points(result: Result) -> dict[Key, list[Point]]:
    """The timed points of ``result`` by key, in document order."""
    groups: dict[Key, list[Point]] = {}
    for point in result.points:
        if is_measurement(point):
            groups.setdefault(point_key(result, point), []).append(point)
    return groups


def summary_index(result: Result) -> dict[Key, Mapping[str, Any]]:
    """The ``run_summary`` entries of ``result`` by key (empty without one)."""
    return summary_rows(result.data)


def estimate(points: Sequence[Point], summary: Mapping[str, Any] | None = None) -> Estimate:
    """The estimate of one key from its points (one per run) and its
    ``run_summary`` entry, if any (see the module doc)."""
    unstable = any(p.unstable for p in points)
    if len(points) == 1:
        p = points[0]
        modes = tuple(point_modes(p.data))
        return Estimate(
            p.mean_ns,
            p.get("ci_low_ns"),
            p.get("ci_high_ns"),
            unstable or bool(modes),
            1,
            "trimmed mean",
            modes,
        )
    if summary is not None:
        return Estimate(
            summary.get("median_ns"),
            summary.get("ci_low_ns"),
            summary.get("ci_high_ns"),
            unstable or bool(summary.get("disagree")),
            len(points),
            "median of the runs' medians",
            tuple(modes_from_records(summary.get("modes"))),
        )
    means = [p.mean_ns for p in points if p.mean_ns is not None]
    lows = [p.get("ci_low_ns") for p in points if p.get("ci_low_ns") is not None]
    highs = [p.get("ci_high_ns") for p in points if p.get("ci_high_ns") is not None]
    return Estimate(
        median(means),
        min(lows) if lows else None,
        max(highs) if highs else None,
        unstable,
        len(points),
        "median of the runs' means",
    )
