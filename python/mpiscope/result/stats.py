"""Statistics across runs, shared by ``run --runs`` and comparisons.

One run of the bench measures each point many times and summarizes it
(median, quartiles, a confidence interval of the mean: docs/method.md).
Runs of the same point can still disagree with each other - different
process placement, a noisy neighbor - by far more than one run's
interval admits. This module works on the runs' summaries:

* :func:`bootstrap_median_ci`: the percentile-bootstrap confidence interval
  of the median of the run medians (resampling runs; seeded, so the
  same document always gives the same interval);
* :func:`cv`: the coefficient of variation (sample standard deviation over
  the mean) - of the run medians, the *between-run* variation;
* :func:`robust_cv`: a run's own spread, its interquartile range scaled
  to a standard deviation (IQR / 1.349, exact for normal data) over its
  median - their median over runs is the *within-run* variation;
* :func:`run_groups` and :func:`disagreement`: whether the runs
  disagree (see :data:`DISAGREE_RULE`).

numpy is imported inside the functions (``mpiscope --help`` stays instant).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mpiscope.record import Record
from mpiscope.result import center

__all__ = [
    "DEFAULT_RESAMPLES",
    "DISAGREE_MIN_CV",
    "DISAGREE_RULE",
    "DISAGREE_SPREAD_FACTOR",
    "IQR_PER_SIGMA",
    "RunStats",
    "RunSummary",
    "bootstrap_median_ci",
    "cv",
    "disagreement",
    "run_groups",
    "median",
    "robust_cv",
    "summarize_runs",
]

#: Bootstrap resamples of the run medians.
DEFAULT_RESAMPLES = 10_000
#: Interquartile range of a normal distribution in standard deviations,
#: 2 * Phi^-1(0.75).
IQR_PER_SIGMA = 1.3489795003921634
#: Runs whose medians vary by less than this CV never disagree: smaller
#: differences are below the precision a run asks for by default
#: (--target-rse 0.05).
DISAGREE_MIN_CV = 0.05
#: "spread": the run medians vary more than this many times the typical
#: within-run variation.
DISAGREE_SPREAD_FACTOR = 2.0
#: The disagreement rule in words (docs/cli.md repeats it).
DISAGREE_RULE = (
    f"runs disagree when the CV of their medians exceeds {DISAGREE_MIN_CV:g} and either "
    f"(spread) exceeds {DISAGREE_SPREAD_FACTOR:g} x the within-run CV, or (modes) the "
    "runs form two or more groups of at least two runs each whose interquartile "
    "ranges do not overlap"
)


class RunStats(Record):
    """What one run measured for a point (ns)."""

    median_ns: float
    q25_ns: float | None = None
    q75_ns: float | None = None


class RunSummary(Record):
    """One point over several runs; ``None`` where it cannot be computed."""

    runs: int
    median_ns: float | None
    ci_low_ns: float | None
    ci_high_ns: float | None
    within_cv: float | None
    between_cv: float | None
    group_members: tuple[tuple[int, ...], ...]  # run_groups: the runs' indices
    disagree: bool
    disagree_reasons: tuple[str, ...]

    @property
    def groups(self) -> int:
        """How many groups the runs' interquartile ranges form."""
        return len(self.group_members)


def median(values: Sequence[float]) -> float | None:
    """The median (mean of the two middle values for an even count); None
    for no values."""
    return center.median(values) if values else None


def bootstrap_median_ci(
    values: Sequence[float],
    confidence: float,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile-bootstrap confidence interval of the median of ``values``.

    ``resamples`` samples of len(values) values are drawn with replacement
    (``numpy.random.default_rng(seed).integers(0, n, (resamples, n))``); the
    interval runs between the (1-p)/2 and (1+p)/2 quantiles (linear
    interpolation) of their medians. This is exactly what
    ``scipy.stats.bootstrap(..., method="percentile")`` computes with the
    same generator. None for fewer than two values.
    """
    import numpy as np

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    sample = np.asarray(values, dtype=float)
    if sample.size < 2:
        return None
    rng = np.random.default_rng(seed)
    index = rng.integers(0, sample.size, (resamples, sample.size))
    medians = np.median(sample[index], axis=-1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(medians, [alpha, 1 - alpha])
    return float(low), float(high)


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation: sample standard deviation (n - 1) / mean.

    None for fewer than two values or a mean of zero.
    """
    import numpy as np

    sample = np.asarray(values, dtype=float)
    if sample.size < 2:
        return None
    mean = float(np.mean(sample))
    if mean == 0:
        return None
    return float(np.std(sample, ddof=1)) / abs(mean)


def robust_cv(median_ns: float | None, q25_ns: float | None, q75_ns: float | None) -> float | None:
    """One run's spread: (q75 - q25) / 1.349 / median; None when unknown."""
    if median_ns is None or q25_ns is None or q75_ns is None or median_ns <= 0:
        return None
    return (q75_ns - q25_ns) / IQR_PER_SIGMA / median_ns


def run_groups(runs: Sequence[RunStats]) -> list[list[int]]:
    """Groups of runs whose interquartile ranges overlap.

    Two runs are in the same group when their [q25, q75] intervals
    overlap, directly or through other runs (the connected parts of the
    union of the intervals). A run without quartiles counts as the
    single value of its median. Returns the runs' indices, groups in
    increasing order of their values.
    """
    spans = sorted(
        (
            (
                run.median_ns if run.q25_ns is None else min(run.q25_ns, run.median_ns),
                run.median_ns if run.q75_ns is None else max(run.q75_ns, run.median_ns),
                index,
            )
            for index, run in enumerate(runs)
        ),
    )
    groups: list[list[int]] = []
    reach = -math.inf
    for low, high, index in spans:
        if not groups or low > reach:
            groups.append([index])
            reach = high
        else:
            groups[-1].append(index)
            reach = max(reach, high)
    return groups


def disagreement(
    between_cv: float | None,
    within_cv: float | None,
    groups: Sequence[Sequence[int]],
    min_cv: float = DISAGREE_MIN_CV,
    spread_factor: float = DISAGREE_SPREAD_FACTOR,
) -> list[str]:
    """Why the runs disagree (empty: they agree); see :data:`DISAGREE_RULE`.

    ``"spread"``: ``between_cv > spread_factor * within_cv``;
    ``"modes"``: at least two ``groups`` hold two or more runs each.
    Neither counts unless ``between_cv > min_cv``. Without a within-run
    CV, only ``"modes"`` can apply.
    """
    if between_cv is None or not between_cv > min_cv:
        return []
    reasons: list[str] = []
    if within_cv is not None and between_cv > spread_factor * within_cv:
        reasons.append("spread")
    if sum(1 for group in groups if len(group) >= 2) >= 2:
        reasons.append("modes")
    return reasons


def summarize_runs(
    runs: Sequence[RunStats],
    confidence: float,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
) -> RunSummary:
    """Median over runs with its bootstrap interval, the within- and
    between-run CVs, and the disagreement verdict."""
    medians = [run.median_ns for run in runs]
    interval = bootstrap_median_ci(medians, confidence, resamples, seed)
    within = [robust_cv(x.median_ns, x.q25_ns, x.q75_ns) for x in runs]
    within_known = [value for value in within if value is not None]
    within_cv = median(within_known)
    between_cv = cv(medians)
    groups = run_groups(runs)
    reasons = disagreement(between_cv, within_cv, groups)
    return RunSummary(
        runs=len(runs),
        median_ns=median(medians),
        ci_low_ns=None if interval is None else interval[0],
        ci_high_ns=None if interval is None else interval[1],
        within_cv=within_cv,
        between_cv=between_cv,
        group_members=tuple(tuple(group) for group in groups),
        disagree=bool(reasons),
        disagree_reasons=tuple(reasons),
    )
