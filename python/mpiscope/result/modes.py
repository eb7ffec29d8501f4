"""Distinct states of the machine: times that fall into separate modes.

A point whose samples (or a set of runs whose medians) cluster around
two values is not one number: on this kind of VM a 1 MiB Bcast reads
~130 us in one state and ~500 us in another, and their mean describes
neither. This module finds such modes so the reports name their values
instead of averaging them (docs/method.md section 10).

:func:`find_modes` on samples: fit a two-component Gaussian mixture to the
logarithms of the times (EM, started from the best two-class split of the
sorted values) and call the two components distinct modes when

1. Ashman's D = sqrt(2) |mu1 - mu2| / sqrt(s1^2 + s2^2) exceeds
   :data:`MODES_MIN_SEPARATION` (2): an equal mixture of two normal
   components has two peaks only from D = 2 on (Ashman, Bird and Zepf 1994);
2. each component holds at least :data:`MODES_MIN_SHARE` of the values and
   at least ``min_count`` of them (a smaller one is a tail, not a state;
   :data:`MODES_MIN_SAMPLES` for a point's samples);
3. their values (the medians of the members) differ by at least the ratio
   :data:`MODES_MIN_RATIO` = (1 + c)/(1 - c), c = the disagreement floor
   :data:`mpiscope.result.stats.DISAGREE_MIN_CV`: an equal mix of two values
   a and r a has a CV of (r - 1)/(r + 1), below c for closer modes, i.e.
   within the precision a run asks for.

:func:`run_modes` on the runs of a ``--runs`` set: the groups
of :func:`mpiscope.result.stats.run_groups` (interquartile ranges that
do not overlap; a summary's ``group_members``) holding two or more
runs each, when the runs disagree by the ``modes`` rule - the
same rule as DISAGREE.

numpy is imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from mpiscope.record import Record
from mpiscope.result.document import kept_times
from mpiscope.result.stats import DISAGREE_MIN_CV

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MODES_MIN_RATIO",
    "MODES_MIN_SAMPLES",
    "MODES_MIN_SEPARATION",
    "MODES_MIN_SHARE",
    "MODES_RULE",
    "Mode",
    "find_modes",
    "format_modes",
    "run_modes",
    "mode_records",
    "modes_from_records",
    "point_modes",
    "sample_modes",
]

#: Ashman's D above which two fitted components are two peaks.
MODES_MIN_SEPARATION = 2.0
#: A mode holds at least this share of the values.
MODES_MIN_SHARE = 0.1
#: ... and at least this many samples: a mixture fitted to a dozen samples
#: splits noise (16-launch points of a quiet run read 13/3 and 7/9 "modes").
MODES_MIN_SAMPLES = 10
#: Modes closer than this ratio are within the run's precision (see the module doc).
MODES_MIN_RATIO = (1 + DISAGREE_MIN_CV) / (1 - DISAGREE_MIN_CV)
#: The rule in words (reports and docs/method.md repeat it).
MODES_RULE = (
    f"samples form modes when a two-component normal mixture fitted to their logarithms has "
    f"Ashman's D > {MODES_MIN_SEPARATION:g}, each component holds >= {MODES_MIN_SHARE:.0%} of "
    f"them and >= {MODES_MIN_SAMPLES} samples, and their medians differ by "
    f">= {MODES_MIN_RATIO:.3f}x; runs form modes when "
    "two or more groups of >= 2 runs have interquartile ranges that do not overlap "
    "(DISAGREE: modes)"
)
_EM_ITERATIONS = 200
#: Numerical floor of a component's log-variance (a component on one repeated value).
_VARIANCE_FLOOR = 1e-12


class Mode(Record):
    """One mode: the median of its members (ns), their range and how many."""

    value_ns: float
    low_ns: float
    high_ns: float
    count: int
    members: tuple[int, ...]  # indices into the values given


def _mode(values: Sequence[float], members: Sequence[int]) -> Mode:
    import numpy as np

    chosen = np.asarray([values[i] for i in members], dtype=float)
    return Mode(
        float(np.median(chosen)),
        float(chosen.min()),
        float(chosen.max()),
        len(members),
        tuple(sorted(members)),
    )


def _best_split(logs: Any) -> int:
    """Index k of the sorted logs minimizing the within-class sum of squares of
    [:k] and [k:] (Otsu's split; k in 1..n-1)."""
    import numpy as np

    n = logs.size
    csum = np.cumsum(logs)
    csq = np.cumsum(logs * logs)
    k = np.arange(1, n)
    left = csq[k - 1] - csum[k - 1] ** 2 / k
    right = (csq[-1] - csq[k - 1]) - (csum[-1] - csum[k - 1]) ** 2 / (n - k)
    return int(k[np.argmin(left + right)])


def _fit_mixture(logs: Any, split: int) -> tuple[Any, Any, Any, Any]:
    """EM for two normal components on sorted ``logs``, from the split at
    ``split``; returns weights, means, variances and each value's component."""
    import numpy as np

    groups = (logs[:split], logs[split:])
    weight = np.array([g.size / logs.size for g in groups])
    mean = np.array([g.mean() for g in groups])
    var = np.array([max(float(g.var()), _VARIANCE_FLOOR) for g in groups])
    for _ in range(_EM_ITERATIONS):
        density = weight / np.sqrt(2 * math.pi * var) * np.exp(
            -((logs[:, None] - mean) ** 2) / (2 * var)
        )
        total = density.sum(axis=1, keepdims=True)
        total[total == 0] = 1.0
        resp = density / total
        mass = resp.sum(axis=0)
        if np.any(mass == 0):
            break
        new_mean = (resp * logs[:, None]).sum(axis=0) / mass
        new_var = np.maximum(
            (resp * (logs[:, None] - new_mean) ** 2).sum(axis=0) / mass, _VARIANCE_FLOOR
        )
        converged = np.allclose(new_mean, mean, rtol=0, atol=1e-12) and np.allclose(
            new_var, var, rtol=1e-9, atol=0
        )
        weight, mean, var = mass / logs.size, new_mean, new_var
        if converged:
            break
    density = weight / np.sqrt(2 * math.pi * var) * np.exp(
        -((logs[:, None] - mean) ** 2) / (2 * var)
    )
    return weight, mean, var, np.argmax(density, axis=1)


def find_modes(
    values: Sequence[float],
    min_count: int = 3,
    min_share: float = MODES_MIN_SHARE,
    min_separation: float = MODES_MIN_SEPARATION,
    min_ratio: float = MODES_MIN_RATIO,
) -> list[Mode]:
    """The two modes of ``values`` (ns, > 0), lower first, or ``[]`` when they
    form one (see the module doc). Non-positive and non-finite values are
    ignored; ``members`` index into ``values``."""
    kept = [i for i, v in enumerate(values) if math.isfinite(v) and v > 0]
    if len(kept) < 2 * min_count:
        return []
    order = sorted(kept, key=lambda i: values[i])
    if values[order[-1]] < min_ratio * values[order[0]]:
        return []  # decided before numpy is imported: a report without samples never needs it
    import numpy as np

    logs = np.log(np.asarray([values[i] for i in order], dtype=float))
    weight, mean, var, label = _fit_mixture(logs, _best_split(logs))
    separation = math.sqrt(2) * abs(mean[1] - mean[0]) / math.sqrt(var[0] + var[1])
    if not separation > min_separation:
        return []
    members = [[order[j] for j in range(len(order)) if label[j] == c] for c in (0, 1)]
    need = max(min_count, math.ceil(min_share * len(order)))
    if any(len(m) < need for m in members):
        return []
    modes = sorted((_mode(values, m) for m in members), key=lambda m: m.value_ns)
    if modes[1].value_ns < min_ratio * modes[0].value_ns:
        return []
    return modes


def sample_modes(point: Mapping[str, Any]) -> list[Mode]:
    """The modes of a point's valid raw launch times (``raw``, ``mpiscope run
    --raw``); ``[]`` without raw samples. ``members`` index the valid ones."""
    return find_modes(kept_times(point) or [], min_count=MODES_MIN_SAMPLES)


def point_modes(point: Mapping[str, Any]) -> list[Mode]:
    """A point's modes: its ``modes`` field, else those of its raw samples."""
    if point.get("modes"):
        return modes_from_records(point["modes"])
    return sample_modes(point)


def run_modes(
    medians: Sequence[float], groups: Sequence[Sequence[int]], reasons: Sequence[str]
) -> list[Mode]:
    """The modes of a ``--runs`` set: its run groups of two or more
    runs, when the runs disagree by ``"modes"`` (else ``[]``)."""
    if "modes" not in reasons:
        return []
    return [_mode(medians, group) for group in groups if len(group) >= 2]


def mode_records(modes: Sequence[Mode], key: str) -> list[dict[str, Any]]:
    """The JSON form: ``value_ns``, ``low_ns``, ``high_ns``, ``count`` and the
    members under ``key`` (``"runs"`` or ``"samples"``)."""
    return [
        {
            "value_ns": m.value_ns,
            "low_ns": m.low_ns,
            "high_ns": m.high_ns,
            "count": m.count,
            key: list(m.members),
        }
        for m in modes
    ]


def modes_from_records(records: Sequence[Mapping[str, Any]] | None) -> list[Mode]:
    """Modes read back from their JSON form (members from ``runs`` or ``samples``)."""
    return [
        Mode(
            float(r["value_ns"]),
            float(r.get("low_ns", r["value_ns"])),
            float(r.get("high_ns", r["value_ns"])),
            int(r["count"]),
            tuple(r.get("runs") or r.get("samples") or ()),
        )
        for r in records or ()
    ]


def format_modes(modes: Sequence[Mode], unit: str, format_ns: Any) -> str:
    """``MODES 130 us (6 runs) / 500 us (4)``; ``unit``: what is counted."""
    parts = [
        f"{format_ns(m.value_ns)} ({m.count} {unit})" if i == 0 else
        f"{format_ns(m.value_ns)} ({m.count})"
        for i, m in enumerate(modes)
    ]
    return "MODES " + " / ".join(parts)
