"""The bias ledger: why mpiscope's number differs from what OSU and IMB print.

mpiscope times each launch from a synchronized start on cold buffers and
reports the median over launches of the max over ranks. The classic suites
time a loop on one warm buffer and report a mean: OSU's collectives (a
barrier between calls, the average over ranks of each rank's mean),
``osu_latency`` (rank 0's round trip in a back-to-back loop, halved), IMB
(calls back to back, ``t_avg`` over ranks). With ``mpiscope run`` (plan
field ``ledger``), each window point is followed by companions measured on
the same op, size and ranks (docs/method.md section 12):

* ``warm``: the window method on one warm buffer;
* ``barrier_each``: a barrier before each call, warm (OSU's collective loop);
* ``loop``: calls back to back after one barrier, warm (IMB's loop and
  ``osu_latency``; the first call after each barrier is left out).

Each writes its per-launch series (max over ranks, mean over ranks, the
root's own time). A *path* is a chain of statistics of those series, from
mpiscope's number to a suite's; each *part* is the difference between two
consecutive links, so the parts add up exactly to mpiscope's number minus
the suite-equivalent figure, and every one is measured. Intervals: a
bootstrap over launches (each series resampled with replacement,
independently per companion, the links of one companion from the same
resample), percentiles at the result's confidence.

numpy is imported only for the intervals' bootstrap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from mpiscope.record import Record
from mpiscope.result.center import mean, median

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_RESAMPLES",
    "Ledger",
    "LedgerPart",
    "Link",
    "Path",
    "has_ledger",
    "ledger_of",
    "missing",
    "paths_for",
]

#: Bootstrap resamples of the launches.
DEFAULT_RESAMPLES = 400
#: OSU 7.4's warm-up calls (COLL_SKIP_SMALL, LAT_SKIP_SMALL; ..._LARGE above 8 KiB).
OSU_SKIP_SMALL, OSU_SKIP_LARGE, OSU_LARGE_BYTES = 100, 10, 8192


class Link(Record):
    """One statistic of one series: ``companion``'s ``field`` (max_ns,
    mean_ns, root_ns), its ``statistic`` (median or mean) over launches,
    times ``scale``; ``back_to_back`` leaves out each stage's first call."""

    companion: str
    field: str
    statistic: str
    label: str
    back_to_back: bool = False
    scale: float = 1.0


class Path(Record):
    """From mpiscope's number to one suite's: ``links[0]`` is mpiscope's, the
    last the suite-equivalent; ``parts[i]`` names the step links[i] ->
    links[i+1]."""

    suite: str
    reads: str  # what the suite prints
    links: tuple[Link, ...]
    parts: tuple[tuple[str, str], ...]  # (name, short name)


_MPISCOPE = Link("main", "max_ns", "median", "mpiscope (window, cold, max over ranks, median)")
_WARM_MAX = Link("warm", "max_ns", "median", "warm buffer")
_COLD = ("cold buffers -> one warm buffer", "cold buffers")
_MEDIAN_MEAN = ("median -> mean over calls", "median vs mean")
_BACK_TO_BACK = ("synchronized start -> calls back to back", "synchronized start")


def paths_for(op: str) -> tuple[Path, ...]:
    """The suites an op is compared with: osu_latency for a ping-pong (rank
    0's round trip, halved); osu_<op> and IMB for every other op."""
    if op in ("pingpong", "roundtrip"):
        return (Path("OSU", "osu_latency Latency (one way)", (
            _MPISCOPE, _WARM_MAX,
            Link("warm", "root_ns", "median", "rank 0's own time"),
            Link("warm", "root_ns", "mean", "its mean"),
            Link("loop", "root_ns", "mean", "back to back", back_to_back=True),
            Link("loop", "root_ns", "mean", "one way", back_to_back=True, scale=0.5),
        ), (_COLD, ("max over ranks -> rank 0 (osu_latency times rank 0)", "max over ranks"),
            _MEDIAN_MEAN, _BACK_TO_BACK, ("round trip -> one way (halved)", "round trip")),),)
    common = (_MPISCOPE, _WARM_MAX,
              Link("warm", "mean_ns", "median", "average over ranks"),
              Link("warm", "mean_ns", "mean", "its mean"))  # fmt: skip
    head = (_COLD, ("max over ranks -> average over ranks", "max over ranks"), _MEDIAN_MEAN)
    return (
        Path("OSU", f"osu_{op} Avg Latency", (
            *common, Link("barrier_each", "mean_ns", "mean", "barrier between calls")),
            (*head, ("synchronized start -> a barrier between calls", "synchronized start"))),
        Path("IMB", "IMB-MPI1 t_avg", (
            *common, Link("loop", "mean_ns", "mean", "back to back", back_to_back=True)),
            (*head, _BACK_TO_BACK)),
    )  # fmt: skip


class LedgerPart(Record):
    """What one step adds to mpiscope's number (ns; its share of it), with
    the bootstrap interval."""

    name: str
    short: str  # in the run's closing lines
    ns: float
    share: float
    low_ns: float
    high_ns: float


class Ledger(Record):
    """One point against one suite: mpiscope's number, the parts, and the
    figure they lead to (``equivalent_ns`` = ``mpiscope_ns`` - sum of parts)."""

    suite: str
    reads: str
    mpiscope_ns: float
    parts: tuple[LedgerPart, ...]
    equivalent_ns: float
    equivalent_low_ns: float
    equivalent_high_ns: float
    confidence: float
    first_call_ns: float | None
    suite_skips: int | None  # the suite's warm-up calls, for the first-call line
    launches: Mapping[str, int]

    @property
    def first_call_note(self) -> str:
        """The first-call part: excluded on both sides, and what it measured."""
        from mpiscope.result.units import format_ns

        skipped = (f"{self.suite} skips its first {self.suite_skips} calls" if self.suite_skips
                   else f"{self.suite} warms up before timing")
        measured = ("" if self.first_call_ns is None
                    else f"; this point's first call took {format_ns(self.first_call_ns)}")
        return f"first call: 0 (excluded by both: {skipped}, mpiscope discards stage 0{measured})"


def has_ledger(point: Mapping[str, Any]) -> bool:
    """Whether a point carries its companions' series (``run --ledger on``)."""
    ledger = point.get("ledger")
    return isinstance(ledger, Mapping) and all(k in ledger for k in ("main", "warm"))


def missing(point: Mapping[str, Any]) -> list[str]:
    """The companions a point's paths need that have no valid launch (a
    loaded machine can leave a window companion without one)."""
    needed = {link.companion for path in paths_for(str(point["op"])) for link in path.links}
    return sorted(c for c in needed if _series(point, Link(c, "max_ns", "median", "")) is None)


def _series(point: Mapping[str, Any], link: Link) -> list[float] | None:
    entry = point["ledger"].get(link.companion)
    if entry is None:
        return None
    series = entry["series"]
    values = [math.nan if v is None else float(v) for v in series[link.field]]
    if link.back_to_back:
        firsts = set(series.get("stage_first", []))
        values = [v for i, v in enumerate(values) if i not in firsts]
    values = [v for v in values if math.isfinite(v)]
    return values or None


def _statistic(values: Sequence[float], statistic: str) -> float:
    return median(values) if statistic == "median" else mean(values)


def ledger_of(point: Mapping[str, Any], confidence: float = 0.95,
              resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
              floor_ns: float = 0.0, resolution_ns: float = 0.0) -> list[Ledger]:  # fmt: skip
    """Every suite's ledger of a point with companions (none without, or when
    a companion a path needs is missing). ``floor_ns``: the floor the run
    subtracted (``--floor subtract``); the suites' figures hold their own
    timer reads, so it is added back as a last part. ``resamples`` 0: no
    intervals (NaN), and no numpy (the default run's closing lines: its
    import was a sixth of the command's wall). An interval is at least half
    a timer step (``resolution_ns``) either side of its value where a
    series behind it does not dither (its interquartile range within 1.25
    steps, as the engine's rule for a point: docs/method.md section 4)."""
    if not has_ledger(point):
        return []
    boot = _Bootstrap(resamples, seed, resolution_ns) if resamples else None
    ledgers = []
    for path in paths_for(str(point["op"])):
        values = [_series(point, link) for link in path.links]
        if any(v is None for v in values):
            continue
        series = [v for v in values if v is not None]
        points = [_statistic(v, link.statistic) * link.scale
                  for link, v in zip(path.links, series, strict=True)]  # fmt: skip
        resampled = boot.links(path.links, series) if boot else [math.nan] * len(points)
        steady = [boot.steady(v) if boot else False for v in series]
        names = list(path.parts)
        if floor_ns > 0:
            points.append(points[-1] + floor_ns)
            resampled.append(resampled[-1] + floor_ns)
            steady.append(steady[-1])
            names.append(("net of the floor -> with the timer's own reads (as the suites time)",
                          "floor"))
        counts = {link.companion: len(v) for link, v in zip(path.links, series, strict=True)}
        ledgers.append(_ledger(point, path, names, points, resampled, confidence, counts,
                               [0.5 * resolution_ns * s for s in steady]))  # fmt: skip
    return ledgers


class _Bootstrap:
    """The resampled statistics of a point's links: one resample of each
    companion's launches, shared by the links of that companion."""

    def __init__(self, resamples: int, seed: int, resolution_ns: float) -> None:
        import numpy as np

        self._np = np
        self._rng = np.random.default_rng(seed)
        self._resamples = resamples
        self._resolution_ns = resolution_ns
        self._draws: dict[tuple[str, bool], Any] = {}

    def links(self, links: Sequence[Link], series: Sequence[list[float]]) -> list[Any]:
        np = self._np
        out = []
        for link, values in zip(links, series, strict=True):
            key = (link.companion, link.back_to_back)
            if key not in self._draws:
                self._draws[key] = self._rng.integers(0, len(values),
                                                      size=(self._resamples, len(values)))
            resampled = np.asarray(values)[self._draws[key]]
            center = np.median if link.statistic == "median" else np.mean
            out.append(center(resampled, axis=1) * link.scale)
        return out

    def steady(self, values: Sequence[float]) -> bool:
        """The series does not dither: its middle half within 1.25 clock steps."""
        if self._resolution_ns <= 0:
            return False
        q25, q75 = self._np.percentile(values, [25, 75])
        return bool(q75 - q25 <= 1.25 * self._resolution_ns)


def _interval(values: Any, confidence: float, center: float,
              half_step: float) -> tuple[float, float]:  # fmt: skip
    if isinstance(values, float):  # no resamples
        return math.nan, math.nan
    import numpy as np

    if not np.all(np.isfinite(values)):
        return float("nan"), float("nan")
    return (min(float(np.percentile(values, 50 * (1 - confidence))), center - half_step),
            max(float(np.percentile(values, 50 * (1 + confidence))), center + half_step))


def _ledger(point: Mapping[str, Any], path: Path, names: Sequence[tuple[str, str]],
            points: Sequence[float], boot: Sequence[Any], confidence: float,
            counts: Mapping[str, int], half_steps: Sequence[float]) -> Ledger:  # fmt: skip
    top = points[0]
    parts = []
    for i, (name, short) in enumerate(names):
        ns = points[i] - points[i + 1]
        parts.append(LedgerPart(name, short, ns, ns / top if top else float("nan"),
                                *_interval(boot[i] - boot[i + 1], confidence, ns,
                                           max(half_steps[i], half_steps[i + 1]))))
    size = point.get("size_bytes") or 0
    skips = (OSU_SKIP_LARGE if size > OSU_LARGE_BYTES else OSU_SKIP_SMALL) \
        if path.suite == "OSU" else None
    first = point["ledger"]["main"].get("first_launch_ns")
    return Ledger(path.suite, path.reads, top, tuple(parts), points[-1],
                  *_interval(boot[-1], confidence, points[-1], half_steps[-1]), confidence, first,
                  skips, counts)
