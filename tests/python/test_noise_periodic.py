"""The periodic test on simulated iteration groups of known period (no MPI).

Each packet of 0.5 s is timed in 128 groups of equal work on 2 ranks. The
group times jitter by 2 %, and one packet in twenty has a 50 ms stretch (a
descheduled rank: broadband power). Agent-on packets also lose 1 ms every
100 ms at a random phase, on both ranks, as a Barrier spreads a delay.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from mpiscope.noise.criteria import compare_run, format_verdict
from mpiscope.noise.periodic import periodic_criterion
from mpiscope.noise.session import MAX_GROUPS
from mpiscope.result.noise import validate

GROUPS, PACKET_NS = 128, 0.5e9


def _groups(rng: np.random.Generator, agent_hz: float, burst_ns: float) -> list[list[float]]:
    width = PACKET_NS / GROUPS
    base = width * (1 + 0.02 * rng.standard_normal(GROUPS))
    if rng.random() < 0.05:
        base[rng.integers(GROUPS)] += 50e6
    if agent_hz:
        period = 1e9 / agent_hz
        for t in np.arange(rng.uniform(0, period), PACKET_NS, period):
            base[int(t // width)] += burst_ns
    return [list(base), list(base * (1 + 0.001 * rng.standard_normal(GROUPS)))]


def _run(seed: int, agent_hz: float, burst_ns: float = 1e6, packets: int = 120) -> dict:
    rng = np.random.default_rng(seed)
    rows = []
    for index in range(packets):
        block = index // 4
        agent = block % 4 in (1, 2)
        groups = _groups(rng, agent_hz if agent else 0.0, burst_ns)
        seconds = max(sum(g) for g in groups) / 1e9
        rows.append({"index": index, "block": block, "agent": agent, "seconds": seconds,
                     "groups_ns": groups})
    return {"kind": "noise-run", "design": "alternate", "packets": rows,
            "detector": {"groups": GROUPS, "group_read_ns": 25.0},
            "binding": [{"rank": 0, "cpu": 0}, {"rank": 1, "cpu": 1}]}


def test_a_10_hz_agent_is_named_with_its_frequency_and_core() -> None:
    crit = periodic_criterion(_run(1, 10.0), alpha=0.01)
    assert crit is not None and crit["detected"]
    assert crit["frequency_hz"] % 10 < 0.5 or crit["frequency_hz"] % 10 > 9.5  # 10 Hz or a harmonic
    assert crit["core"] == crit["rank"]
    assert crit["resolution_hz"] == 2.0 or abs(crit["resolution_hz"] - 2.0) < 0.1
    assert crit["cost_share"] < 1e-4  # 128 reads of 25 ns in 0.5 s


def test_the_heavy_tail_alone_is_not_periodic() -> None:
    alarms = sum(bool(periodic_criterion(_run(100 + seed, 0.0), alpha=0.01)["detected"])
                 for seed in range(20))
    assert alarms <= 1  # Bonferroni over 2 x 64 bins: conservative


def test_the_verdict_holds_the_periodic_criterion() -> None:
    verdict = compare_run(_run(2, 10.0), "agent.json")
    validate(verdict)
    assert "periodic" in verdict["fired"]
    line = next(row for row in format_verdict(verdict).splitlines()
                if row.startswith("periodic (spectrum of 128 iteration groups"))
    assert re.search(r"\d+ Hz on rank [01] \(core [01]\)", line)


def test_a_run_without_groups_has_no_periodic_criterion() -> None:
    run = _run(3, 10.0, packets=32)
    for packet in run["packets"]:
        del packet["groups_ns"]
    assert periodic_criterion(run, alpha=0.01) is None
    assert "periodic" not in compare_run(run, "old.json")["criteria"]


def test_max_groups_is_the_c_bound() -> None:
    header = Path(__file__).parents[2] / "src/noise/detect_options.h"
    found = re.search(r"#define MPISCOPE__NOISE_MAX_GROUPS (\d+)", header.read_text())
    assert found and int(found.group(1)) == MAX_GROUPS
