"""The node fingerprint: per-core detours and their frequencies, STREAM
triad bandwidth per node, the clocks per node, and the machine check's
verdicts.

Per core (one probe rank each, ``mpiscope-noise probe`` under the health
launcher, docs/noise-programs.md): the share of the CPU its detours took
(selfish), the regular period of its detours, the strongest FTQ peaks, and
the *disturbed quanta*: FTQ quanta whose work fell below 90% of the core's
99th percentile. A core stands out when

* it lost a larger share than the other cores: at least ``core_floor`` of
  the CPU more than their median, and 1 + ``core_rel`` times it (and, with
  5 cores or more, beyond ``z`` robust deviations of all cores), and
* its disturbed quanta are more than chance allows against the other cores
  pooled: the binomial tail of its count at their rate (with one added to
  each side), times the number of cores, below ``alpha`` ("how sure"),
  and their odds at least ``odds`` (2) times the other cores' (two cores of
  a machine whose other work lands more on one of them differ
  significantly, but rarely by that much).

Its frequency is the strongest FTQ peak no other core shows (within 10%),
else its detours' regular period. Two cores of one VM under someone else's
load lose the same share: the machine is noisy, no core stands out, and
nothing is named - the probe cannot see an agent under a load larger than
the agent (docs/health.md measures where it can).

A node is *busy* when the median of its cores' detour shares reaches
``busy_share`` (20%: a quiet core of this VM lost 1.3% in the README's
noise probe, the issue's agent takes 5% of one core): other work takes
that much of every core, and who arrives last at a collective there says
more about that work and how the MPI library waits (here, under load, the
rank that waits in MPICH's Allreduce came last twice as often, whichever
core it had) than about the ranks. It is named, and its stragglers are
not (its entry says who they would have been).

A node's STREAM triad bandwidth is the sum of its probe ranks' (they run
at once). With 5 nodes or more, a node below the median by ``node_rel`` and
``z`` robust deviations is named. The clocks: each node's largest residual
offset after the synchronization and at the end of the run (drift), from
the collective launch; a node above 1 us and 10 times the median is named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.health.robust import binomial_tail, mad_sigma, median

__all__ = ["FingerprintRule", "analyse_clocks", "analyse_cores", "analyse_triad"]

MIN_NODES = 5
_DISTURBED = 0.9  # a quantum below this share of the core's p99 work lost some of it


@dataclass(frozen=True)
class FingerprintRule:
    core_floor: float = 0.01  # of the CPU, above the other cores' median
    core_rel: float = 0.5
    z: float = 5.0
    alpha: float = 1e-3
    odds: float = 2.0
    node_rel: float = 0.25  # triad bandwidth below the median by this fraction
    busy_share: float = 0.2  # a node whose cores lose this much (median) is busy
    clock_floor_ns: float = 1000.0


def _disturbed(raw_dir: Path, worker: Mapping[str, Any]) -> tuple[int, int]:
    """(disturbed quanta, quanta) of a worker's FTQ file."""
    from mpiscope.noise.probes import read_probe_file  # lazy: numpy

    ftq = worker.get("ftq") or {}
    name = ftq.get("file")
    if not name or not (raw_dir / name).is_file():
        return 0, 0
    _, records = read_probe_file(raw_dir / name)
    counts = records[:, 1].astype(float)
    if counts.size == 0:
        return 0, 0
    import numpy as np

    p99 = float(np.percentile(counts, 99))
    return int((counts < _DISTURBED * p99).sum()), int(counts.size)


def _own_frequency(worker: Mapping[str, Any], others: Sequence[Mapping[str, Any]]) -> float | None:
    """The strongest FTQ peak of this core that no other core has (within
    10%), else its detours' regular period as a frequency."""
    theirs = [p["hz"] for o in others for p in ((o.get("ftq") or {}).get("peaks") or [])]
    for peak in (worker.get("ftq") or {}).get("peaks") or []:
        if not any(abs(peak["hz"] - hz) <= 0.1 * hz for hz in theirs):
            return float(peak["hz"])
    hz = (worker.get("selfish") or {}).get("period_hz")
    return None if hz is None else float(hz)


def _share(worker: Mapping[str, Any]) -> float | None:
    value = (worker.get("selfish") or {}).get("share_lost")
    return None if value is None else float(value)


def analyse_cores(
    probe: Mapping[str, Any],
    raw_dir: Path,
    rank_cores: Mapping[int, str],
    rule: FingerprintRule = FingerprintRule(),
) -> dict[str, Any]:
    """Per core: its detours, frequency and whether it stands out;
    ``rank_cores``: each probe rank's CPU list (the binding)."""
    workers = list(probe.get("workers") or [])
    shares = [_share(w) for w in workers]
    disturbed = [_disturbed(raw_dir, w) for w in workers]
    spread = mad_sigma([s for s in shares if s is not None]) if len(workers) >= MIN_NODES else None
    cores = []
    for i, w in enumerate(workers):
        others = [o for j, o in enumerate(workers) if j != i]
        their = [s for j, s in enumerate(shares) if j != i and s is not None]
        ref = median(their)
        k, n = disturbed[i]
        k_o = sum(d[0] for j, d in enumerate(disturbed) if j != i)
        n_o = sum(d[1] for j, d in enumerate(disturbed) if j != i)
        p_value, odds = None, None
        if n and n_o:
            rate = (k_o + 1) / (n_o + 2)
            p_value = min(1.0, binomial_tail(k, n, rate) * len(workers))
            odds = (k + 0.5) / (n - k + 0.5) / (rate / (1.0 - rate))
        share = shares[i]
        margin = (
            None
            if ref is None
            else max(
                rule.core_floor, rule.core_rel * ref, rule.z * spread if spread is not None else 0.0
            )
        )
        stands_out = bool(
            share is not None
            and ref is not None
            and margin is not None
            and share > ref + margin
            and p_value is not None
            and p_value < rule.alpha
            and odds is not None
            and odds >= rule.odds
        )
        cores.append(
            {
                "host": w.get("host"),
                "rank": w["rank"],
                "core": w["core"],
                "cpus": rank_cores.get(w["rank"]),
                "share_lost": share,
                "others_share_lost": ref,
                "fwq_share_lost": (w.get("fwq") or {}).get("share_lost"),
                "ftq_share_lost": (w.get("ftq") or {}).get("share_lost"),
                "detours": (w.get("selfish") or {}).get("detours"),
                "period_hz": (w.get("selfish") or {}).get("period_hz"),
                "dominant_hz": w.get("dominant_hz"),
                "own_hz": _own_frequency(w, others),
                "disturbed_quanta": k,
                "quanta": n,
                "p_value": p_value,
                "odds_ratio": odds,
                "stands_out": stands_out,
                "triad_bytes_per_s": (w.get("triad") or {}).get("bandwidth_bytes_per_s"),
            }
        )
    return {
        "cores": cores,
        "busy": _busy_hosts(cores, rule),
        "judged": len(workers) >= 2,
        "rule": {
            "core_floor": rule.core_floor,
            "core_rel": rule.core_rel,
            "z": rule.z,
            "alpha": rule.alpha,
            "odds": rule.odds,
            "busy_share": rule.busy_share,
        },
    }


def _busy_hosts(cores: Sequence[Mapping[str, Any]], rule: FingerprintRule) -> dict[str, Any]:
    """The hosts whose cores' median detour share reaches ``busy_share``:
    host -> its cores' median, lowest and highest share."""
    shares: dict[str, list[float]] = {}
    for c in cores:
        if c.get("share_lost") is not None:
            shares.setdefault(c["host"], []).append(float(c["share_lost"]))
    busy = {}
    for host, values in sorted(shares.items()):
        typical = median(values)
        if typical is not None and typical >= rule.busy_share:
            busy[host] = {"median": typical, "low": min(values), "high": max(values)}
    return busy


def analyse_triad(
    cores: Sequence[Mapping[str, Any]], rule: FingerprintRule = FingerprintRule()
) -> dict[str, Any]:
    """Per host: the summed STREAM triad bandwidth of its cores, and the
    hosts well below the others (5 hosts or more)."""
    per_host: dict[str, float] = {}
    for c in cores:
        if c.get("triad_bytes_per_s") is not None:
            per_host[c["host"]] = per_host.get(c["host"], 0.0) + float(c["triad_bytes_per_s"])
    values = list(per_host.values())
    typical, spread = median(values), mad_sigma(values)
    low = []
    if len(values) >= MIN_NODES and typical is not None and spread is not None:
        limit = typical - max(rule.node_rel * typical, rule.z * spread)
        low = [h for h, v in per_host.items() if v < limit]
    return {
        "hosts": per_host,
        "typical_bytes_per_s": typical,
        "low": sorted(low),
        "judged": len(values) >= MIN_NODES,
    }


def analyse_clocks(
    environment: Mapping[str, Any], rule: FingerprintRule = FingerprintRule()
) -> dict[str, Any]:
    """Per host: the largest |residual| of its ranks after the clock
    synchronization and at the end of the run, and the drifting hosts."""
    sync = environment.get("clock_sync") or {}
    hosts = environment.get("hosts") or []
    rank_nodes = environment.get("rank_nodes") or []
    per_host: dict[str, dict[str, float]] = {}
    for key in ("residual_ns", "end_residual_ns"):
        for rank, value in enumerate(sync.get(key) or []):
            if value is None or rank >= len(rank_nodes):
                continue
            host = hosts[rank_nodes[rank]]
            entry = per_host.setdefault(host, {})
            entry[key] = max(entry.get(key, 0.0), abs(float(value)))
    ends = [e.get("end_residual_ns", e.get("residual_ns", 0.0)) for e in per_host.values()]
    typical = median(ends)
    off = []
    if len(ends) >= MIN_NODES and typical is not None:
        limit = max(rule.clock_floor_ns, 10.0 * typical)
        off = [
            h
            for h, e in per_host.items()
            if e.get("end_residual_ns", e.get("residual_ns", 0.0)) > limit
        ]
    return {
        "hosts": per_host,
        "typical_ns": typical,
        "off": sorted(off),
        "algorithm": sync.get("algorithm"),
        "judged": len(ends) >= MIN_NODES,
    }
