"""How much a point varies from one launch to the next, beyond its own error.

One launch's interval (the engine's ``ci_low_ns``..``ci_high_ns``) says how
well that launch pins its own trimmed mean; another launch of the same
point reads another value (page placement, the VM's state), and no sample
of one launch carries that. Several launches (``run --launches K``) do.

:func:`between_launch` estimates, from K launches' centers y_i (trimmed
means) and standard errors s_i, the random-effects model
log y_i = mu + b_i + e_i, b_i ~ N(0, tau^2), e_i ~ N(0, v_i), v_i =
(s_i / y_i)^2 (the delta method): Hedges' unweighted method-of-moments
estimator (metafor's "HE"), tau^2 = max(0, S^2 - mean(v_i)), S^2 the
sample variance (K - 1) of the log y_i. Unbiased before the floor at 0,
needing no weights (launches of one point have nearly equal v_i). tau is
a relative standard deviation: the launch-to-launch part of the spread.

:func:`launch_interval` folds it into one launch's interval: what another
launch would read, mean +- t * sqrt(se^2 + (tau * mean)^2), t the
two-sided Student coefficient at the Welch-Satterthwaite degrees of
freedom of the two variance terms (se^2 with n_s - 1, the tau term with
K - 1): with K = 5 launches and tau dominating, t = 2.78, the honest price
of estimating tau from five values. docs/method.md section 11.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mpiscope.result.student import two_sided_t

__all__ = [
    "MIN_LAUNCHES",
    "FIELDS_SINCE",
    "BetweenLaunch",
    "LaunchInterval",
    "between_launch",
    "launch_interval",
    "schema_version_with",
]

#: The result document version that added the fields built from this
#: module (``launch_summary[].between_rsd``, ``points[].launch_interval``,
#: ``launch_profile``): a document given them says at least this.
FIELDS_SINCE = "1.5"
#: Launches needed for a between-launch estimate (2 leave one degree of
#: freedom: an estimate, but one whose t coefficient is 12.7).
MIN_LAUNCHES = 3


@dataclass(frozen=True)
class BetweenLaunch:
    """The estimate: ``rsd`` = tau, from ``launches`` launches whose log
    centers had the variance ``observed_var`` and mean within-launch
    variance ``within_var`` (both of logarithms: relative, squared)."""

    rsd: float
    launches: int
    observed_var: float
    within_var: float


@dataclass(frozen=True)
class LaunchInterval:
    """mean +- error_ns, at ``confidence``, with ``df`` degrees of freedom."""

    low_ns: float
    high_ns: float
    error_ns: float
    df: int
    confidence: float


def between_launch(
    centers_ns: Sequence[float], se_ns: Sequence[float | None]
) -> BetweenLaunch | None:
    """The HE estimate of tau from the launches' centers and standard errors;
    None with fewer than :data:`MIN_LAUNCHES` launches having both (center > 0,
    se >= 0)."""
    pairs = [
        (c, s)
        for c, s in zip(centers_ns, se_ns, strict=True)
        if c is not None and s is not None and c > 0 and s >= 0
        and math.isfinite(c) and math.isfinite(s)
    ]  # fmt: skip
    if len(pairs) < MIN_LAUNCHES:
        return None
    logs = [math.log(c) for c, _ in pairs]
    mean = sum(logs) / len(logs)
    observed = sum((x - mean) ** 2 for x in logs) / (len(logs) - 1)
    within = sum((s / c) ** 2 for c, s in pairs) / len(pairs)
    return BetweenLaunch(math.sqrt(max(0.0, observed - within)), len(pairs), observed, within)


def launch_interval(
    mean_ns: float | None,
    se_ns: float | None,
    samples_used: int,
    rsd: float,
    launches: int,
    confidence: float,
    error_floor_ns: float = 0.0,
) -> LaunchInterval | None:
    """One launch's mean with the between-launch part ``rsd`` (from
    ``launches`` launches) folded in, the half-width never below
    ``error_floor_ns`` (the point's clock limit, docs/method.md section 4);
    None without a mean, a standard error, two samples, or with fewer than
    :data:`MIN_LAUNCHES` launches."""
    if mean_ns is None or se_ns is None or samples_used < 2 or launches < MIN_LAUNCHES:
        return None
    within = se_ns * se_ns
    between = (rsd * mean_ns) ** 2
    total = within + between
    if total == 0:
        df = samples_used - 1
    else:  # Welch-Satterthwaite; whole degrees of freedom, rounded down (wider)
        share = within**2 / (samples_used - 1) + between**2 / (launches - 1)
        df = max(1, min(samples_used - 1 + launches - 1, math.floor(total**2 / share)))
    error = max(two_sided_t(confidence, df) * math.sqrt(total), error_floor_ns)
    return LaunchInterval(mean_ns - error, mean_ns + error, error, df, confidence)


def schema_version_with(version: str) -> str:
    """``version`` ("1.MINOR"), raised to :data:`FIELDS_SINCE` if older."""
    major, _, minor = version.partition(".")
    least = int(FIELDS_SINCE.partition(".")[2])
    return version if not minor.isdigit() or int(minor) >= least else f"{major}.{least}"
