"""The two-sided Student t coefficient, without scipy.

The C engine has an exact quantile for any real degrees of freedom
(``mpiscope_student_t_quantile``); the few intervals Python builds itself
(:mod:`mpiscope.result.run_variation`) need it for whole degrees of
freedom only, and importing scipy for one number would cost a single-run
``mpiscope run`` ~0.7 s. For whole ``df`` the t distribution has a closed
form (Abramowitz and Stegun 26.7.3 and 26.7.4): with
theta = atan(t / sqrt(df)), A(t | df) = P(|T| <= t) is a finite sum in
sin(theta) and cos(theta), increasing in theta; the coefficient is found
by bisection on theta in (0, pi/2) to double precision.
"""

from __future__ import annotations

import functools
import math

__all__ = ["MAX_DF", "t_upper_tail", "two_sided_t"]

#: Degrees of freedom above this are taken as this (t_{0.975, 1000} = 1.9623
#: against the normal 1.9600: at most 0.12% wider at the usual levels).
MAX_DF = 1000
_BISECTIONS = 80


def _central_probability(theta: float, df: int) -> float:
    """P(|T| <= sqrt(df) tan(theta)) for T ~ t(df), df >= 1 (A&S 26.7.3-4)."""
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2 == 1:
        total, term = 0.0, c
        for k in range(3, df, 2):  # 1, 2/3 c^2, 2*4/(3*5) c^4, ... times c
            total += term
            term *= c2 * (k - 1) / k
        if df > 1:
            total += term
        return 2 / math.pi * (theta + s * total) if df > 1 else 2 * theta / math.pi
    total, term = 0.0, 1.0
    for k in range(2, df + 1, 2):  # 1, 1/2 c^2, 1*3/(2*4) c^4, ...
        total += term
        term *= c2 * (k - 1) / k
    return s * total


@functools.lru_cache(maxsize=256)
def two_sided_t(confidence: float, df: int) -> float:
    """t such that P(|T| <= t) = ``confidence`` for T ~ Student t(``df``).

    ``df`` below 1 is an error; above :data:`MAX_DF` it counts as MAX_DF.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    df = min(int(df), MAX_DF)
    low, high = 0.0, math.pi / 2
    for _ in range(_BISECTIONS):
        mid = 0.5 * (low + high)
        if _central_probability(mid, df) < confidence:
            low = mid
        else:
            high = mid
    return math.sqrt(df) * math.tan(0.5 * (low + high))


def t_upper_tail(t: float, df: int) -> float:
    """P(T >= t) for T ~ Student t(``df``), df >= 1 (counted as at most
    :data:`MAX_DF`): one-sided, from the same closed form."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    df = min(int(df), MAX_DF)
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    central = _central_probability(math.atan(abs(t) / math.sqrt(df)), df)
    tail = max(0.0, 0.5 * (1.0 - central))
    return tail if t >= 0 else 1.0 - tail
