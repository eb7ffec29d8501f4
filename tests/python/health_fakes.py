"""Synthetic launches for the health check's tests: link launches of a
known matrix, collective launches with a known straggler, probe files of
a known noisy core; and a RunState holding them. No MPI."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mpiscope.health.links import METRICS
from mpiscope.health.schedule import Schedule
from mpiscope.health.session import HealthPlan, Phase, RunState
from mpiscope.measure.options import measure_defaults
from mpiscope.measure.request import MeasureRequest

TOLERANCE_NS = 100.0
WINDOW = 16
SIZE = {"latency": 8, "bandwidth": 1 << 20}


def link_doc(
    schedule: Schedule,
    metric: str,
    time_ns: Callable[[int, int], float],
    cycles: int = 10,
    late: Callable[[int, int], bool] | None = None,
    jitter: float = 0.0,
    seed: int = 1,
) -> dict[str, Any]:
    """A link launch: every pair (a, b) takes ``time_ns(a, b)`` (times
    1 + uniform jitter); ``late(launch, unit)`` makes that unit start 1 ms late."""
    rng = random.Random(seed)
    units = schedule.units
    k_init = 4
    launches = list(range(k_init, k_init + cycles * len(schedule.rounds)))
    starts, ends, slots = [], [], []
    for i, number in enumerate(launches):
        slot = 1e9 + i * 1e7
        start = [slot + 10.0] * units
        end = [slot + 20.0] * units  # idle units
        for a, b in schedule.pairs_of(number):
            t = time_ns(min(a, b), max(a, b)) * (1.0 + jitter * rng.random())
            for u in (a, b):
                if late is not None and late(number, u):
                    start[u] = slot + 1e6
            begin = max(start[a], start[b])
            end[a], end[b] = begin + t, begin + t * 0.6
        starts.append(start)
        ends.append(end)
        slots.append(slot)
    point = {
        "op": METRICS[metric].op,
        "size_bytes": SIZE[metric],
        "actual_bytes": SIZE[metric],
        "options": {"window": str(WINDOW)} if metric == "bandwidth" else {},
        "raw": {"launch": launches, "slot_ns": slots, "start_ns": starts, "end_ns": ends,
                "valid": [True] * len(launches), "time_ns": [0.0] * len(launches)},
    }  # fmt: skip
    return {"method": {"name": "roundtime", "late_tolerance_ns": TOLERANCE_NS}, "points": [point]}


def collective_doc(
    nprocs: int,
    launches: int,
    late: Callable[[int, int], float],
    ops: tuple[str, ...] = ("allreduce", "barrier"),
    seed: int = 2,
) -> dict[str, Any]:
    """Collective launches 1 ms apart: rank r arrives ``late(i, r)`` ns after
    the slot (plus tens of ns of jitter); everyone leaves 1 us after the last."""
    rng = random.Random(seed)
    points = []
    for op in ops:
        starts, ends = [], []
        for i in range(launches):
            slot = 1e9 + i * 1e6
            start = [slot + rng.uniform(0, 50) + late(i, r) for r in range(nprocs)]
            leave = max(start) + 1000.0
            starts.append(start)
            ends.append([leave + rng.uniform(0, 20) for _ in range(nprocs)])
        slots = [1e9 + i * 1e6 for i in range(launches)]
        points.append({"op": op, "size_bytes": 8,
                       "raw": {"start_ns": starts, "end_ns": ends, "slot_ns": slots}})  # fmt: skip
    environment = {
        "hosts": ["vm"], "rank_nodes": [0] * nprocs, "ranks": nprocs, "nodes": 1,
        "rank_cpus": [str(r) for r in range(nprocs)],
        "clock_sync": {"algorithm": "linear", "max_abs_residual_ns": 5.0,
                       "residual_ns": [0.0] * nprocs, "end_residual_ns": [1.0] * nprocs},
    }  # fmt: skip
    return {"environment": environment, "points": points,
            "method": {"name": "window", "late_tolerance_ns": TOLERANCE_NS}}  # fmt: skip


def write_ftq(
    directory: Path, rank: int, core: int, disturbed: set[int], quanta: int = 1000
) -> str:
    """An FTQ file of ``quanta`` quanta of 1 ms: 1000 steps each, 400 in the
    ``disturbed`` ones."""
    name = f"ftq-r{rank}-c{core}.txt"
    lines = ["# kind ftq", f"# rank {rank}", "# host vm", f"# core {core}", "# seconds 1",
             "# quantum_ns 1000000", f"# records {quanta}", "# dropped 0"]  # fmt: skip
    lines += [f"{k * 1000000} {400 if k in disturbed else 1000}" for k in range(quanta)]
    (directory / name).write_text("\n".join(lines) + "\n")
    return name


def write_selfish(
    directory: Path, rank: int, core: int, detours: list[tuple[int, int]], seconds: float = 1.0
) -> str:
    """A selfish-detour file of ``seconds``: one record (start, length), ns, a detour."""
    name = f"selfish-r{rank}-c{core}.txt"
    lines = ["# kind selfish", f"# rank {rank}", "# host vm", f"# core {core}",
             f"# seconds {seconds:g}", "# threshold_ns 1000", f"# records {len(detours)}",
             "# dropped 0"]  # fmt: skip
    lines += [f"{start} {length}" for start, length in detours]
    (directory / name).write_text("\n".join(lines) + "\n")
    return name


def probe_doc(
    directory: Path,
    shares: list[float],
    periods: list[float | None],
    extra: dict[int, list[tuple[int, int]]] | None = None,
) -> dict[str, Any]:
    """A noise-probe document of one worker per core; core c loses
    ``shares[c]`` of its quanta (spread evenly) and of its time to selfish
    detours: one every ``periods[c]`` s, else one every ms, plus the
    (start, length) detours of ``extra[c]``."""
    workers = []
    for core, (share, period) in enumerate(zip(shares, periods, strict=True)):
        disturbed = {int(j / share) for j in range(round(share * 1000))} if share > 0 else set()
        name = write_ftq(directory, core, core, disturbed)
        hz = None if period is None else 1.0 / period
        every = int((period or 1e-3) * 1e9)
        detours = [(start, int(share * every)) for start in range(every // 3, 10**9, every)]
        detours = sorted(detours + list((extra or {}).get(core, [])))
        selfish = write_selfish(directory, core, core, detours)
        lost = sum(length for _, length in detours) / 1e9
        workers.append({
            "host": "vm", "rank": core, "core": core,
            "ftq": {"file": name, "share_lost": share,
                    "peaks": [] if hz is None else [{"hz": hz, "ratio": 900.0}]},
            "selfish": {"file": selfish, "seconds": 1.0, "share_lost": lost,
                        "detours": len(detours), "period_hz": hz},
            "fwq": {"share_lost": share},
            "triad": {"bandwidth_bytes_per_s": 12e9},
            "dominant_hz": hz,
        })  # fmt: skip
    return {"kind": "noise-probe", "workers": workers}


def state(tmp_path: Path, simulated: bool = True, **docs: Any) -> RunState:
    """A RunState holding the given phase documents (by phase name)."""
    plan = HealthPlan(out=tmp_path / "h.json", raw_dir=tmp_path / "h.raw")
    request = MeasureRequest.of(measure_defaults(), argv=["health", "--np", "2"], quiet=True)
    run = RunState(plan=plan, request=request, simulated=simulated)
    run.started = "2026-11-26T00:00:00Z"
    for name, doc in docs.items():
        run.docs[name.replace("_", "-")] = doc
        run.phases.append(Phase(name.replace("_", "-"), status="complete", ranks=2))
    return run
