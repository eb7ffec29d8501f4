"""Paired, robust statistics of the alternating design, and the limit a run states.

The alternating design switches the agent off and on in blocks of packets
in ABBA order (off on on off off on on off ...), so blocks ``2k`` and
``2k + 1`` are always one agent-off and one agent-on block, next to each
other in time: pair ``k``. Each block is summarized by its *median* packet,
so one packet stretched by the VM descheduling a rank moves nothing; each
pair gives the relative slowdown ``d_k = on_k / off_k - 1``, which cancels
the slow drifts (speed states, other tenants) that a pooled comparison
mistakes for an effect or buries one under.

On the pairs:

* ``signed_rank``: the one-sided Wilcoxon signed-rank test (scipy, method
  auto) of "the pair slowdowns lie above 0". Distribution-free; assumes
  the pairs independent and their differences symmetric under no effect.
* ``paired_interval``: the Hodges-Lehmann estimate of the slowdown (median
  of the Walsh averages ``(d_i + d_j) / 2``, i <= j) and its exact
  distribution-free interval: the k-th smallest and k-th largest Walsh
  averages, k from the exact null distribution of the signed-rank
  statistic (Tukey's order-statistic interval; the interval form of the
  same test). It fires when the whole interval lies above 0.
* :func:`limit`: the upper end of the one-sided 95 % interval ("no slowdown
  above X at 95 %") and the smallest slowdown the run would detect with 80 %
  power at the test's alpha, from the interval's standard error.

Two separate runs have no pairs: :func:`unpaired_limit` gives the same limit
from the two-sample Hodges-Lehmann interval (the dual of Mann-Whitney).

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.errors import MpiscopeError

__all__ = [
    "LIMIT_CONFIDENCE",
    "LIMIT_POWER",
    "MIN_PAIRS",
    "block_pairs",
    "finite",
    "limit",
    "paired_criteria",
    "signed_rank_null",
    "unpaired_limit",
    "walsh_interval",
]

#: The one-sided confidence of the stated limit ("no slowdown above X at 95 %").
LIMIT_CONFIDENCE = 0.95
#: The power of the "smallest slowdown detectable" figure.
LIMIT_POWER = 0.8
#: Fewest pairs the paired criteria are computed from.
MIN_PAIRS = 3
#: Up to this many pairs the interval uses the exact null distribution.
_EXACT_MAX = 400
#: The unpaired limit compares every packet with every packet up to this many pairs.
_UNPAIRED_MAX = 20_000_000


def block_pairs(packets: Sequence[Mapping[str, Any]]) -> list[tuple[float, float]]:
    """(agent-off block median, agent-on block median) seconds of each ABBA pair.

    Pair ``k`` is blocks ``2k`` and ``2k + 1``; a pair whose blocks are not one
    of each state (or that lost a block, as a run stopped part-way may) is left
    out.
    """
    import numpy as np

    blocks: dict[int, tuple[bool, list[float]]] = {}
    try:
        for packet in packets:
            block, agent = int(packet["block"]), packet["agent"]
            if not isinstance(agent, bool):
                raise MpiscopeError(f"packet {packet.get('index')} has agent {agent!r}")
            state, times = blocks.setdefault(block, (agent, []))
            if state != agent:
                raise MpiscopeError(f"block {block} holds agent-on and agent-off packets")
            times.append(float(packet["seconds"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise MpiscopeError(f"noise-run packet without block/agent/seconds ({exc})") from None
    pairs = []
    for k in sorted({b // 2 for b in blocks}):
        first, second = blocks.get(2 * k), blocks.get(2 * k + 1)
        if first is None or second is None or first[0] == second[0]:
            continue
        off, on = (first, second) if not first[0] else (second, first)
        pairs.append((float(np.median(off[1])), float(np.median(on[1]))))
    return pairs


def signed_rank_null(n: int) -> Any:
    """P(T+ = t) for t = 0 .. n(n+1)/2: the exact null law of the signed-rank sum.

    Each rank 1..n joins the sum with probability 1/2, independently.
    """
    import numpy as np

    probs = np.zeros(n * (n + 1) // 2 + 1)
    probs[0] = 1.0
    top = 0
    for rank in range(1, n + 1):
        shifted = np.zeros_like(probs)
        shifted[rank : top + rank + 1] = probs[: top + 1]
        probs = 0.5 * (probs + shifted)
        top += rank
    return probs


def _order_index(n: int, tail: float) -> int | None:
    """The largest k with P(T+ <= k - 1) <= tail (1-based), or None when none is."""
    import numpy as np
    from scipy import stats

    if n <= _EXACT_MAX:
        cdf = np.cumsum(signed_rank_null(n))
        k = int(np.searchsorted(cdf, tail * (1 + 1e-12), side="right"))
        return k if k >= 1 else None
    m = n * (n + 1) / 4
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    k = math.floor(m - float(stats.norm.ppf(1 - tail)) * sd + 0.5)
    return k if k >= 1 else None


def walsh_interval(
    diffs: Sequence[float], confidence: float, *, one_sided: bool = False
) -> tuple[float, float, float, float]:
    """(Hodges-Lehmann estimate, low, high, achieved coverage) of the pair differences.

    Two-sided at ``confidence``, or with ``one_sided`` the interval
    (-inf, high] at ``confidence``. An end the data cannot bound (too few
    pairs) is -inf / +inf.
    """
    import numpy as np

    d = np.sort(np.asarray(diffs, dtype=float))
    n = d.size
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    estimate = float(np.median(walsh))
    tail = (1 - confidence) if one_sided else (1 - confidence) / 2
    k = _order_index(n, tail)
    if k is None:
        return estimate, -math.inf, math.inf, 1.0
    high = float(walsh[walsh.size - k])
    low = -math.inf if one_sided else float(walsh[k - 1])
    if n <= _EXACT_MAX:
        miss = float(np.cumsum(signed_rank_null(n))[k - 1])
    else:
        miss = tail
    return estimate, low, high, 1 - miss * (1 if one_sided else 2)


def finite(value: float) -> float | None:
    """The value, or None for an unbounded end (JSON has no infinity)."""
    return value if math.isfinite(value) else None


def limit(
    estimate: float, low: float, high: float, coverage: float, upper: float, alpha: float,
    method: str,
) -> dict[str, Any]:
    """The "limit" object of a verdict: what the run rules out, what it could detect.

    ``upper``: the one-sided upper confidence bound (what is ruled out);
    ``low``/``high``: an interval of achieved ``coverage`` whose width gives
    the standard error, so the detectable slowdown is
    ``(z(1 - alpha) + z(power)) * se`` (the normal approximation of the test).
    """
    from scipy import stats

    detectable = None
    if math.isfinite(low) and math.isfinite(high) and high > low:
        se = (high - low) / (2 * float(stats.norm.ppf(0.5 + coverage / 2)))
        detectable = (float(stats.norm.ppf(1 - alpha)) + float(stats.norm.ppf(LIMIT_POWER))) * se
    return {
        "method": method,
        "estimate": estimate,
        "confidence": LIMIT_CONFIDENCE,
        "rules_out_above": finite(upper),
        "power": LIMIT_POWER,
        "alpha": alpha,
        "detectable": detectable,
    }


def paired_criteria(
    pairs: Sequence[tuple[float, float]], *, confidence: float, alpha: float
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The ``signed_rank`` and ``paired_interval`` criteria and the ``limit`` of ABBA pairs.

    Differences are relative to each pair's agent-off block median
    (0.01 = 1 %). Raises :class:`MpiscopeError` with fewer than
    :data:`MIN_PAIRS` pairs or a non-positive block median.
    """
    import numpy as np
    from scipy import stats

    if len(pairs) < MIN_PAIRS:
        raise MpiscopeError(f"{len(pairs)} ABBA pair(s): the paired criteria need {MIN_PAIRS}")
    arr = np.asarray(pairs, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise MpiscopeError("a block median is not a positive number of seconds")
    d = arr[:, 1] / arr[:, 0] - 1
    n = int(d.size)
    if np.all(d == 0):
        w_plus, p_value = 0.0, 1.0
    else:
        test = stats.wilcoxon(d, alternative="greater")
        w_plus, p_value = float(test.statistic), float(test.pvalue)
    signed_rank = {
        "pairs": n,
        "block_statistic": "median",
        "difference": "on / off - 1",
        "positive_pairs": int(np.count_nonzero(d > 0)),
        "median_difference": float(np.median(d)),
        "w_plus": w_plus,
        "alternative": "greater",
        "p_value": min(max(p_value, 0.0), 1.0),
        "alpha": alpha,
        "detected": bool(p_value < alpha),
    }
    estimate, low, high, coverage = walsh_interval(d, confidence)
    paired_interval = {
        "method": "Hodges-Lehmann, exact signed-rank order statistics",
        "confidence": confidence,
        "achieved_confidence": coverage,
        "estimate": estimate,
        "interval": [finite(low), finite(high)],
        "detected": bool(math.isfinite(low) and low > 0),
    }
    _, _, upper, _ = walsh_interval(d, LIMIT_CONFIDENCE, one_sided=True)
    # The standard error from the central 95 % interval: the 99 % one reaches
    # into the tails of few pairs and would overstate it.
    _, se_low, se_high, se_coverage = walsh_interval(d, LIMIT_CONFIDENCE)
    return signed_rank, paired_interval, limit(
        estimate, se_low, se_high, se_coverage, upper, alpha, "paired blocks (signed rank)"
    )


def unpaired_limit(base: Any, test: Any, alpha: float) -> dict[str, Any] | None:
    """The limit of two unpaired samples (normalised), from the two-sample
    Hodges-Lehmann interval (the dual of Mann-Whitney, normal approximation);
    None when the samples are too large to compare every pair."""
    import numpy as np
    from scipy import stats

    m, n = int(base.size), int(test.size)
    if m * n > _UNPAIRED_MAX:
        return None
    diffs = (np.asarray(test, dtype=float)[:, None] - np.asarray(base, dtype=float)[None, :])
    diffs = np.sort(diffs.ravel())
    sd = math.sqrt(m * n * (m + n + 1) / 12)

    def at(tail: float) -> int:
        return max(1, math.floor(m * n / 2 - float(stats.norm.ppf(1 - tail)) * sd + 0.5))

    estimate = float(np.median(diffs))
    k = at(0.025)
    low, high = float(diffs[k - 1]), float(diffs[diffs.size - k])
    upper = float(diffs[diffs.size - at(1 - LIMIT_CONFIDENCE)])
    return limit(estimate, low, high, 0.95, upper, alpha, "unpaired samples (Mann-Whitney)")
