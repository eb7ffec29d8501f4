"""The stolen_time criterion on simulated stolen times (no MPI).

Packets of 0.5 s on 2 ranks, 128 groups each; every group loses a little
CPU to the odd interrupt (half-normal, 2 us), one packet in twenty loses
50 ms on either rank (a descheduled rank). With the agent on, rank 1's
core also loses ``burst`` every 1/hz s.
"""

from __future__ import annotations

import numpy as np

from mpiscope.noise.criteria import compare_run, format_verdict
from mpiscope.noise.stolen import describe, stolen_criterion
from mpiscope.result.noise import validate

GROUPS = 128


def _run(seed: int, hz: float, burst_ns: float, packets: int = 120) -> dict:
    rng = np.random.default_rng(seed)
    rows = []
    for index in range(packets):
        block = index // 4
        agent = block % 4 in (1, 2)
        stolen = np.abs(2e3 * rng.standard_normal((2, GROUPS)))
        if rng.random() < 0.05:
            stolen[rng.integers(2), rng.integers(GROUPS)] += 50e6
        if agent and hz:
            for t in np.arange(rng.uniform(0, 1 / hz), 0.5, 1 / hz):
                stolen[1, int(t / 0.5 * GROUPS)] += burst_ns
        seconds = 0.5 + stolen.sum(axis=1).max() / 1e9
        rows.append({"index": index, "block": block, "agent": agent, "seconds": seconds,
                     "groups_ns": [[0.5e9 / GROUPS] * GROUPS] * 2,
                     "stolen_ns": stolen.tolist()})
    return {"kind": "noise-run", "design": "alternate", "packets": rows,
            "detector": {"groups": GROUPS, "group_read_ns": 25.0},
            "binding": [{"rank": 0, "cpu": 0}, {"rank": 1, "cpu": 1}]}


def test_the_seeds_agent_is_found_on_its_rank_with_its_size() -> None:
    """1 Hz / 3 ms (0.3 % of a core): a burst in a packet about every other one."""
    crit = stolen_criterion(_run(1, 1.0, 3e6), alpha=0.01)
    assert crit is not None and crit["detected"]
    assert (crit["rank"], crit["core"], crit["tests"]) == (1, 1, 2)
    assert 0.001 <= crit["extra_share"] <= 0.006  # 1.5 ms of a 0.5 s packet, in median
    assert describe(crit).startswith("rank 1 (core 1): ")


def test_without_an_agent_it_alarms_at_most_its_level() -> None:
    alarms = sum(bool(stolen_criterion(_run(100 + seed, 0.0, 0.0), alpha=0.01)["detected"])
                 for seed in range(40))
    assert alarms <= 2  # 0.4 expected: Bonferroni over 2 ranks at 0.01


def test_the_verdict_says_the_agent_shows_and_what_it_takes() -> None:
    verdict = compare_run(_run(2, 1.0, 3e6), "agent.json")
    validate(verdict)
    assert "stolen_time" in verdict["fired"] and verdict["detected"]
    text = format_verdict(verdict)
    assert "stolen_time (CPU taken from a rank, on vs off)" in text
    if set(verdict["fired"]) <= {"periodic", "stolen_time"}:
        assert "verdict: the agent shows in the detector: " in text
        assert "ms of rank 1's CPU per packet (core 1)" in text


def test_a_run_without_stolen_times_has_no_such_criterion() -> None:
    run = _run(3, 1.0, 3e6, packets=32)
    for packet in run["packets"]:
        del packet["stolen_ns"]
    assert stolen_criterion(run, alpha=0.01) is None
    assert "stolen_time" not in compare_run(run, "old.json")["criteria"]
