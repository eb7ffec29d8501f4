"""Periodic evidence: does the agent add a frequency to the detector's iterations?

With ``--groups G`` every rank times its packet's iterations in G equal
groups (a bounded buffer of G timer reads per packet, kept outside I/O and
reported after the packet). A periodic agent of f Hz stretches one group
every 1/f s, so the group times of an agent-on packet carry a line at f in
their spectrum that agent-off packets lack.

The test, per rank and per frequency bin (bin j is j / T Hz for a packet of
T s, j = 1 .. G/2):

* each packet's excess group times, placed at the groups' own times in
  the packet (:func:`_normalised_power`), give a periodogram; it is
  divided by its own median over the bins, so a packet with one huge stretch
  (a descheduled rank: broadband power) is not louder than the others;
* the agent-on packets' normalised power at each bin is compared with the
  agent-off packets' by a one-sided Mann-Whitney test (on greater);
* the smallest p-value over every bin and rank, multiplied by their number
  (Bonferroni), is the criterion's p-value; it fires below alpha, naming the
  rank and the core it ran on, and the frequency: a burst every 1/f s is a
  comb of lines at f, 2f, 3f ..., so the fundamental that best explains the
  significant bins (:func:`_named_bin`).

In a synchronizing loop (Barrier, Alltoall) a delay on one rank's core makes
every rank wait, so the line shows on all ranks. The core is named from
each group's *stolen* time instead (wall minus the thread's CPU time: the
rank was runnable, another task ran): only the rank that shares the
agent's core loses CPU time to it (:func:`_stolen_evidence`).

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MIN_PACKETS", "describe", "periodic_criterion"]

#: Fewest packets of each state the periodic test runs on.
MIN_PACKETS = 4


def _cores(run_doc: Mapping[str, Any]) -> dict[int, Any]:
    """rank -> the CPU it last ran on (from the binding records)."""
    out: dict[int, Any] = {}
    for binding in run_doc.get("binding") or []:
        if isinstance(binding, Mapping) and isinstance(binding.get("rank"), int):
            out[binding["rank"]] = binding.get("cpu")
    return out


def _normalised_power(groups: Any) -> Any:
    """Periodogram of each row (packet) over bins 1 .. G/2, each row over its median.

    The groups hold equal work, so a long burst stretches the groups it falls
    in and a spectrum over the group index would put the line at the wrong
    frequency (a 20 Hz agent of 10 ms bursts stretches one 2 ms group in
    every 20, not in every 25). Each packet's excess time is therefore
    resampled onto G equal slices of its own duration first: the running
    sum of the excess, read at the slices' ends (linear within a group),
    differenced.
    """
    import numpy as np

    count = groups.shape[1]
    ends = np.cumsum(groups, axis=1)
    excess = np.cumsum(groups - groups.mean(axis=1, keepdims=True), axis=1)
    uniform = np.empty_like(groups)
    for row, (end, ex) in enumerate(zip(ends, excess, strict=True)):
        at = end[-1] * np.arange(1, count + 1) / count
        uniform[row] = np.diff(np.interp(at, np.r_[0.0, end], np.r_[0.0, ex]), prepend=0.0)
    centered = uniform - uniform.mean(axis=1, keepdims=True)
    power = np.abs(np.fft.rfft(centered, axis=1))[:, 1:] ** 2
    median = np.median(power, axis=1, keepdims=True)
    return power / np.where(median > 0, median, 1.0)


def _named_bin(pvals: Any, ratios: Any, level: float) -> int:
    """The bin a verdict names: the fundamental of the significant bins.

    A short burst every 1/f s is a comb of lines at f, 2f, 3f ...; each
    candidate k scores (share of its multiples that are significant) x
    (share of the significant bins that are its multiples), so a comb names
    its fundamental, a pure line names itself. Mann-Whitney p-values saturate
    once on and off packets separate fully, so they cannot rank the lines.
    Without a significant bin: the strongest line (median power on / off).
    """
    import numpy as np

    significant = set(int(i) + 1 for i in np.flatnonzero(pvals < level))
    bins = len(pvals)
    if not significant:
        return int(np.argmax(ratios))
    best, best_score = 1, -1.0
    for k in sorted(significant):
        multiples = set(range(k, bins + 1, k))
        hit = len(multiples & significant)
        score = hit / len(multiples) * hit / len(significant)
        if score > best_score:
            best, best_score = k, score
    return best - 1


def periodic_criterion(run_doc: Mapping[str, Any], alpha: float) -> dict[str, Any] | None:
    """The ``periodic`` criterion of an alternating run with group times, or None
    when it has none (or fewer than :data:`MIN_PACKETS` packets of a state)."""
    import numpy as np
    from scipy import stats

    packets = [p for p in run_doc.get("packets") or []
               if isinstance(p.get("groups_ns"), list) and isinstance(p.get("agent"), bool)]
    if not packets:
        return None
    shapes = {(len(p["groups_ns"]), len(p["groups_ns"][0])) for p in packets}
    if len(shapes) != 1:
        return None
    ranks, count = shapes.pop()
    iterations = (run_doc.get("detector") or {}).get("iterations_per_packet")
    if isinstance(iterations, int) and iterations < count:
        return None  # groups without iterations: nothing periodic to see
    on = [p for p in packets if p["agent"]]
    off = [p for p in packets if not p["agent"]]
    if min(len(on), len(off)) < MIN_PACKETS or count < 4:
        return None
    grid = np.asarray([p["groups_ns"] for p in packets], dtype=float)  # packet, rank, group
    flags = np.asarray([p["agent"] for p in packets])
    # Bin j is j cycles per packet: in Hz over an agent-on packet, the line's own.
    packet_s = float(np.median(grid[flags].sum(axis=2))) / 1e9
    freqs = np.arange(1, count // 2 + 1) / packet_s
    cores = _cores(run_doc)
    per_rank: list[dict[str, Any]] = []
    for rank in range(ranks):
        power = _normalised_power(grid[:, rank, :])
        test = stats.mannwhitneyu(power[flags], power[~flags], axis=0, alternative="greater")
        pvals = np.nan_to_num(np.asarray(test.pvalue, dtype=float), nan=1.0)
        ratios = np.median(power[flags], axis=0) / np.maximum(np.median(power[~flags], axis=0),
                                                              1e-300)
        best = _named_bin(pvals, ratios, alpha / (ranks * freqs.size))
        per_rank.append({"rank": rank, "core": cores.get(rank), "frequency_hz": float(freqs[best]),
                         "p_value": float(pvals.min()), "power_ratio": float(ratios[best])})
    tests = ranks * freqs.size
    strongest = min(per_rank, key=lambda r: (float(r["p_value"]), -float(r["power_ratio"])))
    p_value = min(1.0, float(strongest["p_value"]) * tests)
    stolen = _stolen_evidence(packets, flags, (ranks, count), cores, alpha)
    where = stolen if stolen is not None and stolen["detected"] else strongest
    setup = run_doc.get("detector") or {}
    read_ns = setup.get("group_read_ns")
    return {
        "groups": count,
        "group_read_ns": read_ns,
        "cost_share": (count * read_ns / (packet_s * 1e9)) if read_ns else None,
        "resolution_hz": 1 / packet_s,
        "nyquist_hz": float(freqs[-1]),
        "frequency_hz": strongest["frequency_hz"],
        "rank": where["rank"],
        "core": where["core"],
        "core_evidence": "stolen CPU time" if where is stolen else "group times",
        "stolen": stolen,
        "power_ratio": strongest["power_ratio"],
        "tests": tests,
        "correction": "Bonferroni",
        "p_value": p_value,
        "alpha": alpha,
        "detected": bool(p_value < alpha),
        "ranks": per_rank,
    }


def _stolen_evidence(packets: list[Any], flags: Any, shape: tuple[int, int],
                     cores: dict[int, Any], alpha: float) -> dict[str, Any] | None:
    """Which rank's core the agent takes: the rank whose stolen time grows.

    In a synchronizing loop every rank waits for the delayed one, so the
    group times cannot tell the ranks apart; the time a rank was runnable but
    not running (wall minus its thread's CPU time, ``stolen_ns``) can: only
    the rank sharing the agent's core loses CPU to it. Per rank, the packets'
    total stolen time, agent on against off, by a one-sided Mann-Whitney
    test, Bonferroni over the ranks. None when the run has no stolen times.
    """
    import numpy as np
    from scipy import stats

    if not all(isinstance(p.get("stolen_ns"), list) for p in packets):
        return None
    stolen = np.asarray([p["stolen_ns"] for p in packets], dtype=float)
    if stolen.shape[1:] != shape:
        return None
    totals = stolen.sum(axis=2)  # packet, rank
    test = stats.mannwhitneyu(totals[flags], totals[~flags], axis=0, alternative="greater")
    pvals = np.nan_to_num(np.asarray(test.pvalue, dtype=float), nan=1.0)
    rank = int(np.argmin(pvals))
    p_value = min(1.0, float(pvals[rank]) * shape[0])
    return {
        "rank": rank,
        "core": cores.get(rank),
        "on_ms": float(np.median(totals[flags, rank])) / 1e6,
        "off_ms": float(np.median(totals[~flags, rank])) / 1e6,
        "p_value": p_value,
        "detected": bool(p_value < alpha),
    }


def describe(crit: Mapping[str, Any]) -> str:
    """The periodic criterion's value, for the verdict table."""
    core = crit.get("core")
    where = f"rank {crit['rank']}" + (f" (core {core})" if core is not None else "")
    stolen = crit.get("stolen")
    told = (f", stolen {stolen['on_ms']:.2g} vs {stolen['off_ms']:.2g} ms/packet "
            f"p={stolen['p_value']:.2g}" if stolen and crit.get("core_evidence") ==
            "stolen CPU time" else "")
    return (f"{crit['frequency_hz']:.3g} Hz on {where}{told}: power x{crit['power_ratio']:.2g}, "
            f"p={crit['p_value']:.3g} ({crit['tests']} tests)")

