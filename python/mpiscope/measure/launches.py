"""Several bench launches as one result document, and their summary.

``mpiscope run --launches R`` starts the bench R times (each measuring the
points in its own random order), ``mpiscope firstcall`` once per
operation. :func:`merge_documents` joins what the launches wrote:

* the first launch's ``environment`` (its ``end_time_utc`` from the last
  launch), ``method``, ``varied`` and ``units``;
* ``launches``: one record per launch (``launch``, ``status``, ``error``,
  ``start_time_utc``, ``end_time_utc``, ``command``, ``shuffle_seed``,
  ``points``, ``hosts``, ``max_abs_residual_ns``,
  ``max_abs_end_residual_ns``);
* every launch's points, each with ``"launch": i`` (the index into
  ``launches``);
* the warnings of all launches, once each; a warning not every launch gave
  is prefixed ``launch i:``.

A launch that failed keeps what it wrote, and so do the launches before it;
the merged document is then ``failed`` with the first launch's error.

:func:`launch_summary` adds, per (op, size, nprocs, method, cache), the
statistics of :mod:`mpiscope.result.stats` over the launches' medians,
``between_rsd`` (the launch-to-launch part beyond each launch's own error,
:mod:`mpiscope.result.launch_variation`) and ``modes`` where the launches
fall into separate groups (:mod:`mpiscope.result.modes`); a point whose raw
samples (``--raw``) form two modes gets ``modes`` too.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.result.launch_variation import between_launch, schema_version_with
from mpiscope.result.methods import METHODS
from mpiscope.result.modes import launch_modes, mode_records, sample_modes
from mpiscope.result.stats import (
    DEFAULT_RESAMPLES,
    DISAGREE_MIN_CV,
    DISAGREE_SPREAD_FACTOR,
    LaunchStats,
    summarize_launches,
)

__all__ = [
    "SUMMARY_KEYS",
    "LaunchOutcome",
    "launch_seeds",
    "launch_summary",
    "merge_documents",
    "summary_key",
]

SUMMARY_KEYS = ("op", "size_bytes", "nprocs", "method", "cache")


@dataclass(frozen=True)
class LaunchOutcome:
    """What one bench launch left: its document (None if it wrote nothing)
    and why it failed (None: it completed)."""

    command: str
    start_time_utc: str
    end_time_utc: str
    doc: Mapping[str, Any] | None
    error: str | None = None
    shuffle_seed: int | None = None


def launch_seeds(seed: int, count: int) -> list[int]:
    """``count`` distinct point-order seeds in [1, 2**31) drawn from ``seed``
    (the bench takes 0 as "no shuffle")."""
    import random

    rng = random.Random(seed)
    seeds: list[int] = []
    while len(seeds) < count:
        value = rng.randrange(1, 2**31)
        if value not in seeds:
            seeds.append(value)
    return seeds


def merge_documents(
    outcomes: Sequence[LaunchOutcome], planned: int | None = None
) -> dict[str, Any] | None:
    """One document from several launches (see the module doc); None when no
    launch wrote anything. ``planned``: the launches meant to run (default:
    as many as ``outcomes``), for the error message."""
    docs = [outcome.doc for outcome in outcomes if outcome.doc is not None]
    if not docs:
        return None
    merged = copy.deepcopy(dict(docs[0]))
    merged["environment"]["end_time_utc"] = docs[-1]["environment"].get("end_time_utc")
    failures = [(i, o.error) for i, o in enumerate(outcomes) if o.error is not None]
    merged["status"] = "failed" if failures else "complete"
    if failures:
        index, error = failures[0]
        merged["error"] = f"launch {index} of {planned or len(outcomes)}: {error}"
    else:
        merged.pop("error", None)
    methods = _unique(m for doc in docs for m in doc.get("methods") or ())
    if methods:
        merged["methods"] = methods
    merged["launches"] = [_record(i, outcome) for i, outcome in enumerate(outcomes)]
    merged["points"] = [
        _with_modes(dict(copy.deepcopy(point), launch=i))
        for i, outcome in enumerate(outcomes)
        if outcome.doc is not None
        for point in outcome.doc.get("points") or ()
    ]
    merged["warnings"] = _merged_warnings(outcomes)
    return merged


def _with_modes(point: dict[str, Any]) -> dict[str, Any]:
    """``point`` with ``modes`` when its raw samples (``--raw``) form two."""
    modes = sample_modes(point)
    if modes:
        point["modes"] = mode_records(modes, "samples")
    return point


def _record(index: int, outcome: LaunchOutcome) -> dict[str, Any]:
    doc = outcome.doc or {}
    env = doc.get("environment") or {}
    sync = env.get("clock_sync") or {}
    return {
        "launch": index,
        "status": "complete" if outcome.error is None else "failed",
        "error": outcome.error,
        "start_time_utc": outcome.start_time_utc,
        "end_time_utc": outcome.end_time_utc,
        "command": outcome.command,
        "shuffle_seed": outcome.shuffle_seed,
        "points": len(doc.get("points") or ()),
        "hosts": list(env.get("hosts") or ()),
        "max_abs_residual_ns": sync.get("max_abs_residual_ns"),
        "max_abs_end_residual_ns": sync.get("max_abs_end_residual_ns"),
    }


def _merged_warnings(outcomes: Sequence[LaunchOutcome]) -> list[str]:
    per_launch = [
        (i, list(o.doc.get("warnings") or ())) for i, o in enumerate(outcomes) if o.doc is not None
    ]
    merged: list[str] = []
    for index, warnings in per_launch:
        for text in warnings:
            everywhere = all(text in others for _, others in per_launch)
            line = text if everywhere else f"launch {index}: {text}"
            if line not in merged:
                merged.append(line)
    return merged


def _unique(items: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def summary_key(doc: Mapping[str, Any], point: Mapping[str, Any]) -> tuple[Any, ...]:
    """(op, size_bytes, nprocs, method, cache) of a point; method and cache
    default to the document's."""
    method = point.get("method") or (doc.get("method") or {}).get("name") or "window"
    cache = point.get("cache") or ((doc.get("environment") or {}).get("cache") or {}).get("mode")
    return (point["op"], point.get("size_bytes"), point["nprocs"], method, cache)


def launch_summary(
    doc: Mapping[str, Any], seed: int, resamples: int = DEFAULT_RESAMPLES
) -> dict[str, Any]:
    """``launch_summary`` and ``launch_statistics`` for a merged document.

    Every point with a median counts once for its key; the bootstrap uses
    ``seed`` and the document's confidence level.
    """
    confidence = float(doc["method"]["confidence"])
    # the clock's limit: launches whose medians sit on one clock step give a
    # bootstrap interval of width 0; it is never narrower than half a step
    half_step = 0.5 * float(((doc.get("environment") or {}).get("timer") or {})
                            .get("resolution_ns") or 0.0)  # fmt: skip
    groups: dict[tuple[Any, ...], list[LaunchStats]] = {}
    centers: dict[tuple[Any, ...], list[tuple[float, float | None]]] = {}
    for point in doc["points"]:
        if point.get("kind", "measure") != "measure" or point.get("median_ns") is None:
            continue
        stats = LaunchStats(point["median_ns"], point.get("q25_ns"), point.get("q75_ns"))
        groups.setdefault(summary_key(doc, point), []).append(stats)
        if point.get("mean_ns") is not None:
            centers.setdefault(summary_key(doc, point), []).append(
                (point["mean_ns"], point.get("se_ns"))
            )
    rows = []
    for key, launches in sorted(groups.items(), key=lambda item: _order(item[0])):
        s = summarize_launches(launches, confidence, seed, resamples)
        medians = [launch.median_ns for launch in launches]
        modes = launch_modes(medians, s.group_members, s.disagree_reasons)
        means = centers.get(key, [])
        between = between_launch([m for m, _ in means], [e for _, e in means])
        rows.append(
            {
                **dict(zip(SUMMARY_KEYS, key, strict=True)),
                "launches": s.launches,
                "median_ns": s.median_ns,
                "ci_low_ns": _widened(s.ci_low_ns, s.median_ns, -half_step),
                "ci_high_ns": _widened(s.ci_high_ns, s.median_ns, half_step),
                "launch_min_ns": min(medians),
                "launch_max_ns": max(medians),
                "within_cv": s.within_cv,
                "between_cv": s.between_cv,
                "between_rsd": None if between is None else between.rsd,
                "groups": s.groups,
                "disagree": s.disagree,
                "disagree_reasons": list(s.disagree_reasons),
                **({"modes": mode_records(modes, "launches")} if modes else {}),
            }
        )
    return {
        "schema_version": schema_version_with(str(doc["schema_version"])),
        "launch_summary": rows,
        "launch_statistics": {
            "seed": seed,
            "resamples": resamples,
            "confidence": confidence,
            "disagree_min_cv": DISAGREE_MIN_CV,
            "disagree_spread_factor": DISAGREE_SPREAD_FACTOR,
        },
    }


def _widened(bound: float | None, center: float | None, half: float) -> float | None:
    """``bound`` moved out to ``center + half`` if it is closer (half < 0: below)."""
    if bound is None or center is None:
        return bound
    return min(bound, center + half) if half < 0 else max(bound, center + half)


def _order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Summary rows by op name, size, process count, method (as in METHODS), cache."""
    op, size, nprocs, method, cache = key
    methods = list(METHODS)
    rank = methods.index(method) if method in methods else len(methods)
    return (op, -1 if size is None else size, nprocs, rank, str(method), str(cache))
