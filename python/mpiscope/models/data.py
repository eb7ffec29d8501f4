"""The measured series a fit reads from a result document, and the
bootstrap that gives every fitted parameter its confidence interval.

A :class:`Series` is one experiment (an op with some options) over sizes:
per size the samples of one view (the default time: the max over ranks of
each rank's duration; or one rank's own duration), taken from the point's
raw launches (``mpiscope run --raw``; ``mpiscope model measure`` always
keeps them). The statistic of a size is the median of its samples, or
another of :data:`STATISTICS` (``model fit --statistic``: the minimum is
MPIBlib's choice, robust when a loaded machine descheduled some launches).

Confidence intervals (:func:`bootstrap`): the fit is repeated on
resampled data and the percentiles of each parameter taken. With raw
samples every size's samples are resampled with replacement (a
nonparametric bootstrap over the measured samples); a point without them
contributes a normal draw around its median with its standard error (a
parametric bootstrap). The document says which (``ci.method``).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.result.document import kept_times, launch_is_kept
from mpiscope.result.run_variation import summary_key, summary_rows
from mpiscope.result.units import format_bytes, format_ns

__all__ = ["STATISTICS", "Estimate", "Series", "across_runs", "bootstrap", "find_series",
           "option_text", "STATE_CHANGE", "state_change"]


def _low_quantile(q: float) -> Callable[[Sequence[float]], float]:
    def stat(values: Sequence[float]) -> float:
        return _quantile(sorted(values), q)

    return stat


#: The statistic of a size's samples, by name.
STATISTICS: dict[str, Callable[[Sequence[float]], float]] = {
    "median": statistics.median,
    "min": min,
    "q10": _low_quantile(0.10),
    "q25": _low_quantile(0.25),
}


@dataclass(frozen=True)
class Series:
    """One experiment: sizes (ascending) and, per size, its samples (ns) or,
    without raw samples, its median and standard error."""

    name: str
    sizes: tuple[int, ...]
    samples: tuple[tuple[float, ...], ...]
    medians: tuple[float, ...]
    errors: tuple[float, ...]
    statistic: str = "median"
    skipped: tuple[int, ...] = ()  # sizes without a valid launch, left out

    @property
    def raw(self) -> bool:
        return all(self.samples)

    def values(self, rng: random.Random | None = None) -> list[float]:
        """The statistic of each size; with ``rng``, of one bootstrap resample."""
        if rng is None:
            return list(self.medians)
        stat = STATISTICS[self.statistic]
        out = []
        for samples, median, error in zip(self.samples, self.medians, self.errors, strict=True):
            if samples:
                out.append(stat(rng.choices(samples, k=len(samples))))
            else:
                out.append(max(rng.gauss(median, error), 0.0))
        return out


def _matches(
    point: Mapping[str, Any],
    op: str,
    options: Mapping[str, str],
    root: int | None,
    absent: Sequence[str],
) -> bool:
    if point.get("op") != op or point.get("size_bytes") is None:
        return False
    if root is not None and point.get("root") != root:
        return False
    have = point.get("options") or {}
    if any(k in have for k in absent):
        return False
    return all(str(have.get(k)) == str(v) for k, v in options.items())


def across_runs(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """``doc`` with its runs folded into one: in a document of several runs
    (``run --runs R``, its ``run_summary``) each op, size, ranks, method and
    cache becomes one point, whose median is the median of the run medians
    and whose error is their bootstrap interval's half-width over its
    normal quantile; any other document as it is. One run's points would
    tie a model to that run's state of the machine (and one point per size
    is the last run's)."""
    rows = {key: row for key, row in summary_rows(doc).items()
            if (row.get("runs") or 0) > 1 and row.get("median_ns")}  # fmt: skip
    if not rows:
        return doc
    confidence = float((doc.get("method") or {}).get("confidence") or 0.95)
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    folded: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for point in doc.get("points") or ():
        key = summary_key(doc, point)
        row = rows.get(key)
        if row is None:
            folded.setdefault(key, point)  # a point the summary has no row for
            continue
        median = float(row["median_ns"])
        low, high = row.get("ci_low_ns"), row.get("ci_high_ns")
        error = 0.0 if low is None or high is None else (float(high) - float(low)) / (2 * z)
        one = {k: v for k, v in point.items() if k not in ("raw", "run", "se_ns")}
        folded[key] = {**one, "median_ns": median, "rse": error / median}
    return {**doc, "points": list(folded.values())}


#: What a state change's line says (:func:`state_change`), to know it again.
STATE_CHANGE = "the machine changed state between runs"


def state_change(doc: Mapping[str, Any], runs: str) -> str | None:
    """One line, about ``runs`` (what they are), when the runs of ``doc``
    form groups that do not overlap
    (``run_summary[].disagree_reasons`` "modes") at a quarter of its points
    or more: the machine changed state between them, and a model of their
    median predicts neither state. None when they agree, or for a single
    run. (On the AMD EPYC VM a state change split 24-29 of 33 points; runs
    in one state, 0-3.)"""
    summary = doc.get("run_summary") or []
    rows = [r for r in summary if "modes" in (r.get("disagree_reasons") or ())
            and r.get("run_min_ns") and r.get("run_max_ns")]  # fmt: skip
    if not rows or 4 * len(rows) < len(summary):
        return None
    worst = max(rows, key=lambda r: float(r["run_max_ns"]) / float(r["run_min_ns"]))
    size = worst.get("size_bytes")
    point = f"{worst['op']}{'' if size is None else ' ' + format_bytes(size)}"
    return (f"{runs} form groups that do not overlap at {len(rows)} of "
            f"{len(doc['run_summary'])} points ({point}: run medians "
            f"{format_ns(worst['run_min_ns'])} .. {format_ns(worst['run_max_ns'])}): "
            f"{STATE_CHANGE}, and a model of their median predicts neither state; measure "
            "again, or keep to the runs of one state")


def _samples(point: Mapping[str, Any], rank: int | None) -> tuple[float, ...]:
    raw = point.get("raw")
    if not raw:
        return ()
    if rank is None:
        return tuple(kept_times(point) or ())
    out = []
    for i, (starts, ends) in enumerate(zip(raw["start_ns"], raw["end_ns"], strict=False)):
        if not launch_is_kept(raw, i) or rank >= len(starts) or rank >= len(ends):
            continue
        if starts[rank] is not None and ends[rank] is not None:
            out.append(float(ends[rank]) - float(starts[rank]))
    return tuple(out)


def _median_and_error(point: Mapping[str, Any], rank: int | None) -> tuple[float, float] | None:
    median = point.get("median_ns")
    if rank is not None:
        rows = [r for r in point.get("per_rank") or [] if r.get("rank") == rank]
        median = rows[0].get("median_ns") if rows else None
    if median is None:
        return None
    rse = point.get("rse")
    error = float(median) * float(rse) if rse is not None else float(point.get("se_ns") or 0.0)
    return float(median), error


def option_text(value: float) -> str:
    """A number as an option's text: ``100``, not ``100.0`` (how ``model
    measure`` writes the delays and :func:`find_series` matches them)."""
    return str(int(value)) if value == int(value) else str(value)


def find_series(
    doc: Mapping[str, Any],
    op: str,
    options: Mapping[str, str] | None = None,
    rank: int | None = None,
    root: int | None = None,
    scale: float = 1.0,
    offset_ns: float = 0.0,
    absent: Sequence[str] = (),
    statistic: str = "median",
) -> Series | None:
    """The points of ``op`` whose options include ``options`` (one per
    size: the last measured), as a series of the default time (``rank``
    None) or of one rank's duration; each time becomes
    ``time * scale - offset_ns``; points with an option named in ``absent``
    are left out. None when there is no such point."""
    options = dict(options or {})
    chosen: dict[int, Mapping[str, Any]] = {}
    for point in doc.get("points") or ():
        if _matches(point, op, options, root, absent):
            chosen[int(point["size_bytes"])] = point
    if not chosen:
        return None
    sizes, samples, medians, errors, skipped = [], [], [], [], []
    for size in sorted(chosen):
        point = chosen[size]
        raw = _samples(point, rank)
        stats = _median_and_error(point, rank)
        if stats is None and not raw:
            skipped.append(size)
            continue
        median, error = stats or (0.0, 0.0)
        if raw:
            median = STATISTICS[statistic](raw)
            error = error or median * 0.01
        sizes.append(size)
        samples.append(tuple(t * scale - offset_ns for t in raw))
        medians.append(median * scale - offset_ns)
        errors.append(error * scale)
    if not sizes:
        return None
    label = op + "".join(f" {k}={v}" for k, v in options.items())
    if rank is not None:
        label += f" (rank {rank})"
    return Series(label, tuple(sizes), tuple(samples), tuple(medians), tuple(errors), statistic,
                  tuple(skipped))


@dataclass(frozen=True)
class Estimate:
    """A parameter's value and its confidence interval (same unit)."""

    value: float
    low: float | None
    high: float | None


def bootstrap(
    fit: Callable[[random.Random | None], Mapping[str, float]],
    replicates: int = 200,
    confidence: float = 0.95,
    seed: int = 1,
) -> dict[str, Estimate]:
    """``fit(None)`` on the data as measured, and the ``confidence`` interval
    of each of its parameters from ``replicates`` fits on resampled data
    (``fit(rng)``; see the module doc), percentile method."""
    point = dict(fit(None))
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {name: [] for name in point}
    for _ in range(replicates):
        try:
            values = fit(rng)
        except (MpiscopeError, ZeroDivisionError, ValueError):
            continue  # a degenerate resample: it does not count
        for name in point:
            if name in values:
                draws[name].append(float(values[name]))
    tail = (1 - confidence) / 2
    out = {}
    for name, value in point.items():
        got = sorted(draws[name])
        if len(got) < 2:
            out[name] = Estimate(value, None, None)
            continue
        out[name] = Estimate(value, _quantile(got, tail), _quantile(got, 1 - tail))
    return out


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)
