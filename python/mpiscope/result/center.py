"""The median and the mean of a few numbers, for the commands that must
start fast: the statistics module imports fractions and decimal, 4-9 ms
of every `mpiscope run` on the AMD EPYC VM (its closing lines, the
report). The same values as ``statistics.median`` and ``statistics.fmean``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

__all__ = ["mean", "median"]


def median(values: Iterable[float]) -> float:
    """The middle value (the mean of the two middle ones of an even count);
    ValueError when there are none."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no median of no values")
    middle = n // 2
    return ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (an exact sum); ValueError when there are none."""
    if not values:
        raise ValueError("no mean of no values")
    return math.fsum(values) / len(values)
