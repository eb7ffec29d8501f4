"""The robust statistics of the health check: medians with a
distribution-free interval, the MAD, and the binomial tails of the sign
tests ("how sure").

A link's time, a rank's lateness and a core's detours are skewed and often
bimodal (a preempted launch is a thousand times its neighbors), so every
verdict rests on medians and counts, never on means: a median's interval
from order statistics, a spread from the median absolute deviation, and
the probability of a count under a null that says "nothing stands out".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from mpiscope.result.stats import median

__all__ = ["MAD_TO_SIGMA", "binomial_tail", "mad_sigma", "median", "median_interval"]

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
