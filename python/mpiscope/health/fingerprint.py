"""The node fingerprint: per-core detours and their frequencies, STREAM
triad bandwidth per node, the clocks per node, and the machine check's
verdicts.

Per core (one probe rank each, ``mpiscope-noise probe`` under the health
launcher, docs/noise-programs.md): the share of the CPU its detours took
(selfish), the regular period of its detours, the strongest FTQ peaks, and
the *disturbed quanta*: FTQ quanta whose work fell below 90% of the core's
99th percentile. The cores' selfish probes run at the same time, so their
detours can be compared block by block: the run is cut into blocks of
``core_block_s`` (0.1 s; 10 in the default 1 s probe), in each the share of
the block the core's detours took (a detour across two blocks counts in
both, each its part) minus the median of the other cores' in the same
block. The mean of those differences is the core's *excess detour share*
(an injected 10 Hz / 5 ms agent: ~5% of its core; two cores of a quiet VM:
a few tenths of a percent apart). A core stands out when

* its excess is material and sure: the one-sided Student t probability,
  over the blocks, that it is at most ``core_floor`` (1% of the CPU),
  times the number of cores, below ``alpha`` (0.001); the two-sided 95%
  interval is reported. One long detour (a preemption of 20 ms in one
  block) makes its block's difference large and the interval wide: it is
  not enough alone;
* with 5 cores or more, also its share beyond ``z`` robust deviations of
  all cores above their median (cores that differ more than their own
  detours say).

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

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.health.robust import differences_from_others, excess_test, mad_sigma, median

__all__ = ["FingerprintRule", "analyse_clocks", "analyse_cores", "analyse_triad"]

MIN_NODES = 5
_DISTURBED = 0.9  # a quantum below this share of the core's p99 work lost some of it


@dataclass(frozen=True)
class FingerprintRule:
    core_floor: float = 0.01  # of the CPU, above the other cores' median
    core_block_s: float = 0.1  # the blocks of the selfish probe compared across cores
    z: float = 5.0
    alpha: float = 1e-3
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


def _detours(raw_dir: Path, worker: Mapping[str, Any]) -> tuple[list[list[float]], float]:
    """([start, length] of each selfish detour, the probe's length), both ns,
    from its file; the longest ones the document kept when the file is gone."""
    selfish = worker.get("selfish") or {}
    run_ns = float(selfish.get("seconds") or 0.0) * 1e9
    name = selfish.get("file")
    if name and (raw_dir / name).is_file():
        from mpiscope.noise.probes import read_probe_file  # lazy: numpy

        header, records = read_probe_file(raw_dir / name)
        return records[:, :2].astype(float).tolist(), float(header["seconds"]) * 1e9
    return [[float(a), float(b)] for a, b in selfish.get("detour_list") or []], run_ns


def _block_losses(detours: Sequence[Sequence[float]], run_ns: float, blocks: int) -> list[float]:
    """Per block of the run: the detour time inside it (a detour across
    blocks counts in each for its part)."""
    width = run_ns / blocks
    lost = [0.0] * blocks
    for start, length in detours:
        end = start + length
        first = max(0, min(blocks - 1, int(start // width)))
        for block in range(first, blocks):
            low, high = block * width, (block + 1) * width
            if low >= end:
                break
            lost[block] += max(0.0, min(end, high) - max(start, low))
    return lost


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
    detours = [_detours(raw_dir, w) for w in workers]
    run_ns = min((length for _, length in detours if length > 0), default=0.0)
    blocks = max(1, round(run_ns * 1e-9 / rule.core_block_s)) if run_ns > 0 else 0
    rows = [[0.0] * len(workers) for _ in range(blocks)]
    for i, (records, _) in enumerate(detours):
        for block, lost in enumerate(_block_losses(records, run_ns, blocks) if blocks else []):
            rows[block][i] = lost
    differences = differences_from_others(rows, [run_ns / blocks] * blocks) if blocks else []
    all_median = median([s for s in shares if s is not None])
    cores = []
    for i, w in enumerate(workers):
        others = [o for j, o in enumerate(workers) if j != i]
        ref = median([s for j, s in enumerate(shares) if j != i and s is not None])
        test = excess_test(
            differences[i] if len(workers) >= 2 and differences else [],
            rule.core_floor,
            tests=len(workers),
        )
        share = shares[i]
        spread_ok = spread is None or (
            share is not None and all_median is not None and share > all_median + rule.z * spread
        )
        p_value = test["p_value"]
        stands_out = bool(p_value is not None and p_value < rule.alpha and spread_ok)
        k, n = disturbed[i]
        cores.append(
            {
                "host": w.get("host"),
                "rank": w["rank"],
                "core": w["core"],
                "cpus": rank_cores.get(w["rank"]),
                "share_lost": share,
                "others_share_lost": ref,
                "excess": test["excess"],
                "excess_low": test["low"],
                "excess_high": test["high"],
                "blocks": test["blocks"],
                "fwq_share_lost": (w.get("fwq") or {}).get("share_lost"),
                "ftq_share_lost": (w.get("ftq") or {}).get("share_lost"),
                "detours": (w.get("selfish") or {}).get("detours"),
                "period_hz": (w.get("selfish") or {}).get("period_hz"),
                "dominant_hz": w.get("dominant_hz"),
                "own_hz": _own_frequency(w, others),
                "disturbed_quanta": k,
                "quanta": n,
                "p_value": p_value,
                "stands_out": stands_out,
                "triad_bytes_per_s": (w.get("triad") or {}).get("bandwidth_bytes_per_s"),
            }
        )
    return {
        "cores": cores,
        "busy": _busy_hosts(cores, rule),
        "judged": len(workers) >= 2,
        "rule": dataclasses.asdict(rule),
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
