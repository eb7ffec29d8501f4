"""The robust statistics of the health check: medians with a
distribution-free interval, the MAD, and the binomial tails of the sign
tests ("how sure").

A link's time, a rank's lateness and a core's detours are skewed and often
bimodal (a preempted launch is a thousand times its neighbors), so every
verdict rests on medians and counts, never on means: a median's interval
from order statistics, a spread from the median absolute deviation, and
the probability of a count under a null that says "nothing stands out".

Whether one rank or core stands out *materially* rests on blocks of time
(:func:`excess_test`): the run is cut into consecutive blocks, in each the
unit's loss (time the others waited for it, time its core lost to other
work) minus the others' as a share of the block's time; the mean of those
differences is the effect, Student's t over the blocks gives its interval
and the probability that it does not exceed a floor. Blocks, not single
events, because what makes a unit late comes in runs (an agent's burst
delays ten launches; a preemption, several detours) and because a block
that holds one long outlier widens the interval instead of deciding it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from mpiscope.result.stats import median
from mpiscope.result.student import t_upper_tail, two_sided_t

__all__ = [
    "MAD_TO_SIGMA",
    "MIN_BLOCKS",
    "binomial_tail",
    "excess_test",
    "fisher_pair",
    "mad_sigma",
    "median",
    "differences_from_others",
    "median_interval",
    "median_without",
]

#: The MAD of a normal sample times this is its standard deviation.
MAD_TO_SIGMA = 1.4826


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed exactly (n up to some 10^5)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(n + 1)
        - math.lgamma(i + 1)
        - math.lgamma(n - i + 1)
        + i * log_p
        + (n - i) * log_q
        for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


@functools.lru_cache(maxsize=256)
def _lower_rank(n: int, confidence: float) -> int:
    """The largest l whose order statistics x_(l), x_(n+1-l) cover the
    median with ``confidence`` (1 when none does)."""
    lower = 1
    for cand in range(1, n // 2 + 1):
        below = 1.0 - binomial_tail(cand, n, 0.5)  # P(X <= cand - 1)
        if 1.0 - 2.0 * below < confidence:
            break
        lower = cand
    return lower


def median_interval(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[float | None, float | None]:
    """The distribution-free interval of the median: order statistics
    x_(l) and x_(n+1-l) with the largest l whose coverage, 1 - 2 P(X < l)
    for X ~ Binomial(n, 1/2), is at least ``confidence`` (for n = 10 at 95%:
    the 2nd and 9th values, 97.9%). With too few values for the confidence
    (n < 6 at 95%) the whole range, which covers less: (min, max)."""
    xs = sorted(values)
    if not xs:
        return None, None
    lower = _lower_rank(len(xs), confidence)
    return xs[lower - 1], xs[len(xs) - lower]


def mad_sigma(values: Sequence[float]) -> float | None:
    """1.4826 x the median absolute deviation from the median (a standard
    deviation that a minority of outliers cannot move)."""
    center = median(values)
    if center is None:
        return None
    deviation = median([abs(v - center) for v in values])
    return None if deviation is None else MAD_TO_SIGMA * deviation


#: Fewer blocks than this give no test (an interval of 2 blocks says nothing).
MIN_BLOCKS = 4


def excess_test(
    differences: Sequence[float], floor: float, tests: int = 1, confidence: float = 0.95
) -> dict[str, float | int | None]:
    """The effect of per-block ``differences`` (a unit's share minus the
    others' in each block): their mean (``excess``), its two-sided Student
    t interval at ``confidence`` (``low``, ``high``), and ``p_value``, the
    one-sided t probability that the true mean is at most ``floor``, times
    ``tests`` (one per unit tested, Bonferroni), at most 1. Blocks that all
    differ by the same amount have no spread: the mean is exact, p 0 above
    the floor and 1 at or below it. Fewer than :data:`MIN_BLOCKS` blocks:
    the mean alone, no interval, p None."""
    n = len(differences)
    mean = sum(differences) / n if n else None
    out: dict[str, float | int | None] = {
        "excess": mean, "low": None, "high": None, "blocks": n, "p_value": None, "floor": floor,
    }  # fmt: skip
    if mean is None or n < MIN_BLOCKS:
        return out
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    se = math.sqrt(variance / n)
    if se <= 1e-15 * max(1.0, abs(mean)):
        out.update(low=mean, high=mean, p_value=0.0 if mean > floor else 1.0)
        return out
    half = two_sided_t(confidence, n - 1) * se
    p_value = t_upper_tail((mean - floor) / se, n - 1)
    out.update(low=mean - half, high=mean + half, p_value=min(1.0, p_value * max(1, tests)))
    return out


def fisher_pair(p_one: float, p_two: float) -> float:
    """Fisher's combination of two independent p-values: with
    x = p_one * p_two, P(chi2(4) >= -2 ln x) = x (1 - ln x)."""
    x = p_one * p_two
    if x <= 0.0:
        return 0.0
    return min(1.0, x * (1.0 - math.log(x)))


def median_without(ordered: Sequence[float], k: int) -> float:
    """The median of ``ordered`` (sorted) without its k-th value: "the
    others" of a unit among many, in one pass of a sorted list (0 when it
    is alone)."""
    m = len(ordered) - 1
    if m <= 0:
        return 0.0

    def at(j: int) -> float:
        return ordered[j] if j < k else ordered[j + 1]

    return at(m // 2) if m % 2 else 0.5 * (at(m // 2 - 1) + at(m // 2))


def differences_from_others(
    rows: Sequence[Sequence[float]], spans: Sequence[float]
) -> list[list[float]]:
    """Per unit, per block: its value minus the median of the other units'
    in that block, over the block's span (``rows[block][unit]``); blocks
    without a span are left out."""
    units = len(rows[0]) if rows else 0
    out: list[list[float]] = [[] for _ in range(units)]
    for row, span in zip(rows, spans, strict=True):
        if span <= 0:
            continue
        order = sorted(range(units), key=lambda u: row[u])
        ordered = [row[u] for u in order]
        for k, u in enumerate(order):
            out[u].append((row[u] - median_without(ordered, k)) / span)
    return out
