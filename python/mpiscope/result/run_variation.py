"""How much a point varies from one run to the next, beyond its own error.

One run's interval (the engine's ``ci_low_ns``..``ci_high_ns``) says how
well that run pins its own trimmed mean; another run of the same
point reads another value (page placement, the VM's state), and no sample
of one run carries that. Several runs (``run --runs K``) do.

:func:`between_runs` estimates, from K runs' centers y_i (trimmed
means) and standard errors s_i, the random-effects model
log y_i = mu + b_i + e_i, b_i ~ N(0, tau^2), e_i ~ N(0, v_i), v_i =
(s_i / y_i)^2 (the delta method): Hedges' unweighted method-of-moments
estimator (metafor's "HE"), tau^2 = max(0, S^2 - mean(v_i)), S^2 the
sample variance (K - 1) of the log y_i. Unbiased before the floor at 0,
needing no weights (runs of one point have nearly equal v_i). tau is
a relative standard deviation: the run-to-run part of the spread.

:func:`run_interval` folds it into one run's interval: what another
run would read, mean +- t * sqrt(se^2 + (tau * mean)^2), t the
two-sided Student coefficient at the Welch-Satterthwaite degrees of
freedom of the two variance terms (se^2 with n_s - 1, the tau term with
K - 1): with K = 5 runs and tau dominating, t = 2.78, the honest price
of estimating tau from five values. docs/method.md section 11.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from mpiscope.record import Record
from mpiscope.result.old_names import RENAMED_IN
from mpiscope.result.student import two_sided_t

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "SUMMARY_KEYS",
    "MIN_RUNS",
    "FIELDS_SINCE",
    "BetweenRuns",
    "RunInterval",
    "between_runs",
    "run_interval",
    "schema_version_with",
    "summary_key",
    "summary_rows",
]

#: What makes two points of a run series the same point (``run_summary``).
SUMMARY_KEYS = ("op", "size_bytes", "nprocs", "method", "cache")


def summary_key(doc: Mapping[str, Any], point: Mapping[str, Any]) -> tuple[Any, ...]:
    """(op, size_bytes, nprocs, method, cache) of a point; method and cache
    default to the document's."""
    method = point.get("method") or (doc.get("method") or {}).get("name") or "window"
    cache = point.get("cache") or ((doc.get("environment") or {}).get("cache") or {}).get("mode")
    return (point["op"], point.get("size_bytes"), point["nprocs"], method, cache)


def summary_rows(doc: Mapping[str, Any]) -> dict[tuple[Any, ...], Mapping[str, Any]]:
    """The ``run_summary`` rows of ``doc`` by their :func:`summary_key`
    (empty without one): a point finds its row with the same key."""
    return {summary_key(doc, row): row for row in doc.get("run_summary") or ()}

#: The result document version that gave the fields built from this
#: module (``run_summary[].between_rsd``, ``points[].run_interval``,
#: ``run_profile``) their names (added in 1.5 as launch_*): a document
#: given them says at least this.
FIELDS_SINCE = RENAMED_IN
#: Runs needed for a between-run estimate (2 leave one degree of
#: freedom: an estimate, but one whose t coefficient is 12.7).
MIN_RUNS = 3


class BetweenRuns(Record):
    """The estimate: ``rsd`` = tau, from ``runs`` runs whose log
    centers had the variance ``observed_var`` and mean within-run
    variance ``within_var`` (both of logarithms: relative, squared)."""

    rsd: float
    runs: int
    observed_var: float
    within_var: float


class RunInterval(Record):
    """mean +- error_ns, at ``confidence``, with ``df`` degrees of freedom."""

    low_ns: float
    high_ns: float
    error_ns: float
    df: int
    confidence: float


def between_runs(
    centers_ns: Sequence[float], se_ns: Sequence[float | None]
) -> BetweenRuns | None:
    """The HE estimate of tau from the runs' centers and standard errors;
    None with fewer than :data:`MIN_RUNS` runs having both (center > 0,
    se >= 0)."""
    pairs = [
        (c, s)
        for c, s in zip(centers_ns, se_ns, strict=True)
        if c is not None and s is not None and c > 0 and s >= 0
        and math.isfinite(c) and math.isfinite(s)
    ]  # fmt: skip
    if len(pairs) < MIN_RUNS:
        return None
    logs = [math.log(c) for c, _ in pairs]
    mean = sum(logs) / len(logs)
    observed = sum((x - mean) ** 2 for x in logs) / (len(logs) - 1)
    within = sum((s / c) ** 2 for c, s in pairs) / len(pairs)
    return BetweenRuns(math.sqrt(max(0.0, observed - within)), len(pairs), observed, within)


def run_interval(
    mean_ns: float | None,
    se_ns: float | None,
    samples_used: int,
    rsd: float,
    runs: int,
    confidence: float,
    error_floor_ns: float = 0.0,
) -> RunInterval | None:
    """One run's mean with the between-run part ``rsd`` (from
    ``runs`` runs) folded in, the half-width never below
    ``error_floor_ns`` (the point's clock limit, docs/method.md section 4);
    None without a mean, a standard error, two samples, or with fewer than
    :data:`MIN_RUNS` runs."""
    if mean_ns is None or se_ns is None or samples_used < 2 or runs < MIN_RUNS:
        return None
    within = se_ns * se_ns
    between = (rsd * mean_ns) ** 2
    total = within + between
    if total == 0:
        df = samples_used - 1
    else:  # Welch-Satterthwaite; whole degrees of freedom, rounded down (wider)
        share = within**2 / (samples_used - 1) + between**2 / (runs - 1)
        df = max(1, min(samples_used - 1 + runs - 1, math.floor(total**2 / share)))
    error = max(two_sided_t(confidence, df) * math.sqrt(total), error_floor_ns)
    return RunInterval(mean_ns - error, mean_ns + error, error, df, confidence)


def schema_version_with(version: str) -> str:
    """``version`` ("1.MINOR"), raised to :data:`FIELDS_SINCE` if older."""
    major, _, minor = version.partition(".")
    least = int(FIELDS_SINCE.partition(".")[2])
    return version if not minor.isdigit() or int(minor) >= least else f"{major}.{least}"
