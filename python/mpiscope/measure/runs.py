"""Several runs as one result document, and their summary.

``mpiscope run --runs R`` starts the bench R times (each measuring the
points in its own random order), ``mpiscope firstcall`` once per
operation. :func:`merge_documents` joins what the runs wrote:

* the first run's ``environment`` (its ``end_time_utc`` from the last
  run), ``method``, ``varied`` and ``units``;
* ``runs``: one record per run (``run``, ``status``, ``error``,
  ``start_time_utc``, ``end_time_utc``, ``command``, ``shuffle_seed``,
  ``points``, ``hosts``, ``max_abs_residual_ns``,
  ``max_abs_end_residual_ns``, ``sync_rtt_min_ns``: the clock sync's
  shortest round trip, taken before any point, which tells the state of
  the machine the run met);
* every run's points, each with ``"run": i`` (the index into
  ``runs``);
* the warnings of all runs, once each; a warning not every run gave
  is prefixed ``run i:``.

A run that failed keeps what it wrote, and so do the runs before it;
the merged document is then ``failed`` with the first run's error.

:func:`run_summary` adds, per (op, size, nprocs, method, cache), the
statistics of :mod:`mpiscope.result.stats` over the runs' medians,
``between_rsd`` (the run-to-run part beyond each run's own error,
:mod:`mpiscope.result.run_variation`) and ``modes`` where the runs
fall into separate groups (:mod:`mpiscope.result.modes`); a point whose raw
samples (``--raw``) form two modes gets ``modes`` too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mpiscope.record import Record
from mpiscope.result.methods import METHODS
from mpiscope.result.modes import mode_records, run_modes, sample_modes
from mpiscope.result.run_variation import (
    SUMMARY_KEYS,
    between_runs,
    schema_version_with,
    summary_key,
)
from mpiscope.result.stats import (
    DEFAULT_RESAMPLES,
    DISAGREE_MIN_CV,
    DISAGREE_SPREAD_FACTOR,
    RunStats,
    summarize_runs,
)

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "RunOutcome",
    "sync_rtt_min",
    "run_seeds",
    "run_summary",
    "merge_documents",
]

class RunOutcome(Record):
    """What one run left: its document (None if it wrote nothing)
    and why it failed (None: it completed)."""

    command: str
    start_time_utc: str
    end_time_utc: str
    doc: Mapping[str, Any] | None
    error: str | None = None
    shuffle_seed: int | None = None


def run_seeds(seed: int, count: int) -> list[int]:
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
    outcomes: Sequence[RunOutcome], planned: int | None = None
) -> dict[str, Any] | None:
    """One document from several runs (see the module doc); None when no
    run wrote anything. ``planned``: the runs meant to be made (default:
    as many as ``outcomes``), for the error message."""
    import copy  # only series of runs merge: copy's import looks for Jython's org.python

    docs = [outcome.doc for outcome in outcomes if outcome.doc is not None]
    if not docs:
        return None
    merged = copy.deepcopy(dict(docs[0]))
    merged["environment"]["end_time_utc"] = docs[-1]["environment"].get("end_time_utc")
    failures = [(i, o.error) for i, o in enumerate(outcomes) if o.error is not None]
    merged["status"] = "failed" if failures else "complete"
    if failures:
        index, error = failures[0]
        merged["error"] = f"run {index} of {planned or len(outcomes)}: {error}"
    else:
        merged.pop("error", None)
    methods = list(dict.fromkeys(m for doc in docs for m in doc.get("methods") or ()))
    if methods:
        merged["methods"] = methods
    merged["runs"] = [_record(i, outcome) for i, outcome in enumerate(outcomes)]
    merged["points"] = [
        _with_modes(dict(copy.deepcopy(point), run=i))
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


def _record(index: int, outcome: RunOutcome) -> dict[str, Any]:
    doc = outcome.doc or {}
    env = doc.get("environment") or {}
    sync = env.get("clock_sync") or {}
    return {
        "run": index,
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
        "sync_rtt_min_ns": sync_rtt_min(sync),
    }


def sync_rtt_min(clock_sync: Mapping[str, Any]) -> float | None:
    """A run's clock-sync round trip: the shortest of each rank, the largest
    of those (it moves with the machine's state); None when not recorded."""
    return max((float(t) for t in clock_sync.get("rtt_min_ns") or () if t is not None),
               default=None)  # fmt: skip


def _merged_warnings(outcomes: Sequence[RunOutcome]) -> list[str]:
    per_run = [
        (i, list(o.doc.get("warnings") or ())) for i, o in enumerate(outcomes) if o.doc is not None
    ]
    merged: list[str] = []
    for index, warnings in per_run:
        for text in warnings:
            everywhere = all(text in others for _, others in per_run)
            line = text if everywhere else f"run {index}: {text}"
            if line not in merged:
                merged.append(line)
    return merged


def run_summary(
    doc: Mapping[str, Any], seed: int, resamples: int = DEFAULT_RESAMPLES
) -> dict[str, Any]:
    """``run_summary`` and ``run_statistics`` for a merged document.

    Every point with a median counts once for its key; the bootstrap uses
    ``seed`` and the document's confidence level.
    """
    confidence = float(doc["method"]["confidence"])
    # the clock's limit: runs whose medians sit on one clock step give a
    # bootstrap interval of width 0; it is never narrower than half a step
    half_step = 0.5 * float(((doc.get("environment") or {}).get("timer") or {})
                            .get("resolution_ns") or 0.0)  # fmt: skip
    groups: dict[tuple[Any, ...], list[RunStats]] = {}
    centers: dict[tuple[Any, ...], list[tuple[float, float | None]]] = {}
    for point in doc["points"]:
        if point.get("kind", "measure") != "measure" or point.get("median_ns") is None:
            continue
        stats = RunStats(point["median_ns"], point.get("q25_ns"), point.get("q75_ns"))
        groups.setdefault(summary_key(doc, point), []).append(stats)
        if point.get("mean_ns") is not None:
            centers.setdefault(summary_key(doc, point), []).append(
                (point["mean_ns"], point.get("se_ns"))
            )
    rows = []
    for key, runs in sorted(groups.items(), key=lambda item: _order(item[0])):
        s = summarize_runs(runs, confidence, seed, resamples)
        medians = [run.median_ns for run in runs]
        modes = run_modes(medians, s.group_members, s.disagree_reasons)
        means = centers.get(key, [])
        between = between_runs([m for m, _ in means], [e for _, e in means])
        rows.append(
            {
                **dict(zip(SUMMARY_KEYS, key, strict=True)),
                "runs": s.runs,
                "median_ns": s.median_ns,
                "ci_low_ns": _widened(s.ci_low_ns, s.median_ns, -half_step),
                "ci_high_ns": _widened(s.ci_high_ns, s.median_ns, half_step),
                "run_min_ns": min(medians),
                "run_max_ns": max(medians),
                "within_cv": s.within_cv,
                "between_cv": s.between_cv,
                "between_rsd": None if between is None else between.rsd,
                "groups": s.groups,
                "disagree": s.disagree,
                "disagree_reasons": list(s.disagree_reasons),
                **({"modes": mode_records(modes, "runs")} if modes else {}),
            }
        )
    return {
        "schema_version": schema_version_with(str(doc["schema_version"])),
        "run_summary": rows,
        "run_statistics": {
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
