"""The link matrix: every pair's latency and bandwidth, the slow ones, and
the nodes whose links are slow.

Input: the document of a link launch (one point of ``multi_lat`` or
``mbw_mr`` with ``--raw``, the pairs option a :class:`Schedule`), whose
raw launches say, by the op's launch number (``raw.launch``), which round
ran. A pair's sample in a launch is the longer of its two ranks' own
durations (the round trip for ``multi_lat``; the window of messages and
its acknowledgment for ``mbw_mr``, whose bandwidth is window x size over
it), taken when the two ranks started within the method's late tolerance
of each other, or within 1% of the sample: a rank descheduled at the start,
or still busy with an earlier launch, makes its partner wait, and the wait
is not the link's (1% of a 5 ms bandwidth sample is 50 us, which a busy
machine often makes; a round trip of 3 us allows the tolerance alone).

The outlier rule, per metric (latency: higher is worse; bandwidth: lower):
the typical value is the median of the pairs' medians, the spread 1.4826
x their MAD; the threshold is the typical value worsened by the larger of
``z`` spreads and ``threshold`` (a fraction of it: a deterministic
simulation has no spread at all). A pair is slow when the whole
distribution-free interval of its median lies beyond the threshold: its
own samples, not one unlucky launch, must say so. How sure: the sign test
of its samples beyond the threshold against one half (p, one-sided).

A node whose links are mostly slow (at least ``node_share`` of its
measured pairs, two at least) is named as the node, the most slow first,
and its pairs leave the count of the others; the slow pairs left are
named as links. Fewer than ``MIN_UNITS`` units cannot tell a bad link from
a typical one (3 nodes and a bad one: 2 of the 3 pairs are slow, the median
is slow): the matrix is kept, no pair or node is named, and the document
says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.health.robust import binomial_tail, mad_sigma, median, median_interval
from mpiscope.health.schedule import Schedule

__all__ = [
    "METRICS",
    "MIN_UNITS",
    "LinkRule",
    "Metric",
    "analyse_links",
    "pair_samples",
]

#: A pair's sample counts when its ranks started within this share of it
#: of each other (or the method's late tolerance).
LATE_SHARE = 0.01
#: Units (nodes or ranks) needed before a pair or a node is named.
MIN_UNITS = 5


@dataclass(frozen=True)
class Metric:
    """One row of the link matrix: the op that measures it and how."""

    name: str  # "latency", "bandwidth"
    op: str  # the bench op
    unit: str  # of the values
    higher_is_worse: bool
    what: str  # one line for the report


METRICS = {
    "latency": Metric(
        "latency",
        "multi_lat",
        "ns",
        True,
        "round trip of a small message, ns (the longer of the pair's two ranks)",
    ),
    "bandwidth": Metric(
        "bandwidth",
        "mbw_mr",
        "bytes/s",
        False,
        "window x size over the time of the window and its acknowledgment",
    ),
}


@dataclass(frozen=True)
class LinkRule:
    """The outlier rule's parameters (module docstring)."""

    threshold: float = 0.25  # least worsening, a fraction of the typical value
    z: float = 5.0  # least worsening, in robust standard deviations
    confidence: float = 0.95  # of each pair's median interval
    node_share: float = 0.75  # of a node's pairs that must be slow to name the node


@dataclass
class MetricResult:
    metric: Metric
    pairs: list[tuple[int, int]]  # (a, b), a < b
    samples: list[list[float]]  # per pair
    medians: list[float | None] = field(default_factory=list)
    lows: list[float | None] = field(default_factory=list)
    highs: list[float | None] = field(default_factory=list)
    typical: float | None = None
    spread: float | None = None
    limit: float | None = None
    slow: list[bool] = field(default_factory=list)
    beyond: list[int] = field(default_factory=list)  # samples beyond the limit
    p_values: list[float | None] = field(default_factory=list)


def _bytes_per_launch(point: Mapping[str, Any]) -> float:
    window = float((point.get("options") or {}).get("window", 64))
    return window * float(point.get("actual_bytes") or point.get("size_bytes") or 0)


def pair_samples(
    doc: Mapping[str, Any], schedule: Schedule, metric: Metric
) -> dict[tuple[int, int], list[float]]:
    """Each pair's samples (unit indices, lower first) in the link launch ``doc``."""
    point = next((p for p in doc.get("points") or [] if p.get("op") == metric.op), None)
    if point is None:
        return {}
    raw = point.get("raw") or {}
    launches = raw.get("launch")
    if launches is None:
        raise MpiscopeError(
            f"the {metric.op} point has no raw.launch (a bench older than schema 1.7): "
            "rebuild mpiscope"
        )
    tolerance = float((doc.get("method") or {}).get("late_tolerance_ns") or 0.0)
    per_launch = _bytes_per_launch(point)
    out: dict[tuple[int, int], list[float]] = {}
    for i, number in enumerate(launches):
        starts, ends = raw["start_ns"][i], raw["end_ns"][i]
        for a, b in schedule.pairs_of(int(number)):
            ra, rb = schedule.ranks[a], schedule.ranks[b]
            time = max(ends[ra] - starts[ra], ends[rb] - starts[rb])
            if time <= 0 or abs(starts[ra] - starts[rb]) > max(tolerance, LATE_SHARE * time):
                continue  # one rank late: its partner waited for it
            value = time if metric.higher_is_worse else per_launch / time * 1e9
            out.setdefault((min(a, b), max(a, b)), []).append(value)
    return out


def _metric_result(
    metric: Metric, samples: Mapping[tuple[int, int], list[float]], units: int, rule: LinkRule
) -> MetricResult:
    pairs = sorted(samples)
    result = MetricResult(metric, pairs, [samples[p] for p in pairs])
    for values in result.samples:
        low, high = median_interval(values, rule.confidence)
        result.medians.append(median(values))
        result.lows.append(low)
        result.highs.append(high)
    known = [m for m in result.medians if m is not None]
    result.typical = median(known)
    result.spread = mad_sigma(known)
    if result.typical is not None and result.spread is not None:
        margin = max(rule.z * result.spread, rule.threshold * abs(result.typical))
        result.limit = (
            result.typical + margin if metric.higher_is_worse else result.typical - margin
        )
    judged = units >= MIN_UNITS and result.limit is not None
    for values, low, high in zip(result.samples, result.lows, result.highs, strict=True):
        worse = _worse(metric, result.limit)
        beyond = sum(1 for v in values if worse(v)) if result.limit is not None else 0
        edge = low if metric.higher_is_worse else high
        result.beyond.append(beyond)
        result.p_values.append(binomial_tail(beyond, len(values), 0.5) if values else None)
        result.slow.append(bool(judged and edge is not None and worse(edge)))
    return result


def _worse(metric: Metric, limit: float | None) -> Any:
    if limit is None:
        return lambda value: False
    if metric.higher_is_worse:
        return lambda value: value > limit
    return lambda value: value < limit


@dataclass
class LinkAnalysis:
    """The matrix of each metric and what it names."""

    units: int
    results: dict[str, MetricResult]
    judged: bool
    why_not: str | None
    nodes: list[dict[str, Any]]  # named units: unit, slow, of, p_value, evidence per metric
    links: list[dict[str, Any]]  # named pairs: a, b, metric, median, typical, p_value


def analyse_links(
    docs: Mapping[str, Mapping[str, Any]],
    schedules: Mapping[str, Schedule],
    units: int,
    rule: LinkRule = LinkRule(),
) -> LinkAnalysis:
    """The matrix and its verdict from the link launches (``docs`` and
    ``schedules`` by metric name; a metric whose launch failed is absent)."""
    results = {
        name: _metric_result(
            METRICS[name], pair_samples(docs[name], schedules[name], METRICS[name]), units, rule
        )
        for name in METRICS
        if name in docs
    }
    why_not = None
    if units < 2:
        why_not = "one unit: there is no link"
    elif units == 2:
        why_not = "one link: no other link to compare it with; its values are shown, no verdict"
    elif units < MIN_UNITS:
        why_not = (
            f"{units} units: with fewer than {MIN_UNITS} a bad unit makes most pairs slow "
            "and the typical value cannot be told; the matrix is shown, no verdict"
        )
    analysis = LinkAnalysis(units, results, why_not is None, why_not, [], [])
    if why_not is None:
        _attribute(analysis, rule)
    return analysis


def _slow_pairs(analysis: LinkAnalysis) -> dict[tuple[int, int], list[str]]:
    slow: dict[tuple[int, int], list[str]] = {}
    for name, result in analysis.results.items():
        for pair, is_slow in zip(result.pairs, result.slow, strict=True):
            if is_slow:
                slow.setdefault(pair, []).append(name)
    return slow


def _measured_pairs(analysis: LinkAnalysis) -> set[tuple[int, int]]:
    return {pair for result in analysis.results.values() for pair in result.pairs}


def _attribute(analysis: LinkAnalysis, rule: LinkRule) -> None:
    """Nodes first (the one with the largest share of slow pairs, again and
    again), then the slow pairs no named node explains."""
    slow = _slow_pairs(analysis)
    measured = _measured_pairs(analysis)
    named: list[int] = []
    while True:
        best = None
        for unit in range(analysis.units):
            if unit in named:
                continue
            mine = [p for p in measured if unit in p and not set(p) & set(named)]
            bad = [p for p in mine if p in slow]
            if len(bad) >= 2 and len(bad) >= rule.node_share * len(mine):
                key = (len(bad) / len(mine), len(bad))
                if best is None or key > best[0]:
                    best = (key, unit, mine, bad)
        if best is None:
            break
        _, unit, mine, bad = best
        named.append(unit)
        analysis.nodes.append(_node_entry(analysis, unit, mine, bad, slow, measured))
    for pair, metrics in sorted(slow.items()):
        if set(pair) & set(named):
            continue
        for name in metrics:
            analysis.links.append(_link_entry(analysis.results[name], pair))


def _node_entry(
    analysis: LinkAnalysis,
    unit: int,
    mine: Sequence[tuple[int, int]],
    bad: Sequence[tuple[int, int]],
    slow: Mapping[tuple[int, int], list[str]],
    measured: set[tuple[int, int]],
) -> dict[str, Any]:
    """How sure: the chance of so many slow links if slow links fell on
    pairs at the rate seen among the pairs without this unit."""
    others = [p for p in measured if unit not in p]
    rate = (sum(1 for p in others if p in slow) + 1) / (len(others) + 2)
    evidence = {}
    for name, result in analysis.results.items():
        values = [
            m
            for p, m in zip(result.pairs, result.medians, strict=True)
            if unit in p and m is not None
        ]
        if values:
            evidence[name] = {
                "median": median(values),
                "typical": result.typical,
                "slow": sum(1 for p in bad if name in slow.get(p, ())),
            }
    return {
        "unit": unit,
        "slow": len(bad),
        "of": len(mine),
        "p_value": binomial_tail(len(bad), len(mine), rate),
        "metrics": evidence,
    }


def _link_entry(result: MetricResult, pair: tuple[int, int]) -> dict[str, Any]:
    i = result.pairs.index(pair)
    return {
        "a": pair[0],
        "b": pair[1],
        "metric": result.metric.name,
        "median": result.medians[i],
        "low": result.lows[i],
        "high": result.highs[i],
        "samples": len(result.samples[i]),
        "beyond": result.beyond[i],
        "typical": result.typical,
        "limit": result.limit,
        "p_value": result.p_values[i],
    }


def ratio(value: float | None, typical: float | None) -> float | None:
    """value / typical, None when either is missing or typical is 0."""
    if value is None or typical is None or typical == 0 or not math.isfinite(value):
        return None
    return value / typical
