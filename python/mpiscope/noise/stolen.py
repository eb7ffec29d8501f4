"""Stolen CPU time: does the agent take the CPU of a detector rank?

With ``--groups`` every rank reports, per group of iterations, its stolen
time: wall minus the thread's CPU time, when the rank was runnable and
another task ran on its core. An agent sharing a rank's core takes that
time from it directly, and in a Barrier or Alltoall loop every other rank
then waits for it: the time taken is the program's loss.

The ``stolen_time`` criterion: per rank, the packets' total stolen time with
the agent on against off by a one-sided Mann-Whitney test, Bonferroni over
the ranks; it fires below alpha, naming the rank, the CPU it ran on, and
the size: the median extra stolen time per packet as a share of the median
agent-on packet. It measures the cause where the packets' wall time
measures the effect, and so it sees agents the wall time cannot resolve on
a host whose packets of fixed work vary 2-3x (docs/noise.md).

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MIN_PACKETS", "cores_of", "describe", "stolen_criterion"]

#: Fewest packets of each state the test runs on.
MIN_PACKETS = 4


def cores_of(run_doc: Mapping[str, Any]) -> dict[int, Any]:
    """rank -> the CPU it last ran on (from the binding records)."""
    out: dict[int, Any] = {}
    for binding in run_doc.get("binding") or []:
        if isinstance(binding, Mapping) and isinstance(binding.get("rank"), int):
            out[binding["rank"]] = binding.get("cpu")
    return out


def stolen_criterion(run_doc: Mapping[str, Any], alpha: float) -> dict[str, Any] | None:
    """The ``stolen_time`` criterion of an alternating run whose packets carry
    ``stolen_ns``, or None (none, ragged, or fewer than :data:`MIN_PACKETS`
    packets of a state)."""
    import numpy as np
    from scipy import stats

    packets = [p for p in run_doc.get("packets") or []
               if isinstance(p.get("stolen_ns"), list) and isinstance(p.get("agent"), bool)]
    try:
        totals = np.asarray([[sum(rank) for rank in p["stolen_ns"]] for p in packets], dtype=float)
    except (TypeError, ValueError):
        return None
    if totals.ndim != 2 or totals.shape[1] == 0:
        return None
    flags = np.asarray([p["agent"] for p in packets])
    if min(int(flags.sum()), int((~flags).sum())) < MIN_PACKETS:
        return None
    test = stats.mannwhitneyu(totals[flags], totals[~flags], axis=0, alternative="greater")
    pvals = np.nan_to_num(np.asarray(test.pvalue, dtype=float), nan=1.0)
    on_ms = np.median(totals[flags], axis=0) / 1e6
    off_ms = np.median(totals[~flags], axis=0) / 1e6
    packet_ms = float(np.median([p["seconds"] for p in packets if p["agent"]])) * 1e3
    cores = cores_of(run_doc)
    ranks: list[dict[str, Any]] = [
        {"rank": r, "core": cores.get(r), "on_ms": float(on_ms[r]), "off_ms": float(off_ms[r]),
         "p_value": float(pvals[r])} for r in range(totals.shape[1])]  # fmt: skip
    named = int(np.argmin(pvals))
    p_value = min(1.0, float(pvals[named]) * len(ranks))
    extra_ms = max(0.0, float(on_ms[named] - off_ms[named]))
    return {
        **ranks[named],
        "extra_share": extra_ms / packet_ms if packet_ms > 0 else None,
        "tests": len(ranks),
        "correction": "Bonferroni",
        "p_value": p_value,
        "alpha": alpha,
        "detected": bool(p_value < alpha),
        "ranks": ranks,
    }


def describe(crit: Mapping[str, Any]) -> str:
    """The stolen_time criterion's value, for the verdict table."""
    core = crit.get("core")
    where = f"rank {crit['rank']}" + (f" (core {core})" if core is not None else "")
    share = crit.get("extra_share")
    size = f" (+{share:.2%} of a packet)" if share is not None else ""
    return (f"{where}: {crit['on_ms']:.2g} vs {crit['off_ms']:.2g} ms/packet{size}, "
            f"p={crit['p_value']:.2g} ({crit['tests']} tests)")
