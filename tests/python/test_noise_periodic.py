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
import pytest

from mpiscope.noise.criteria import compare_run, format_verdict
from mpiscope.noise.periodic import periodic_criterion
from mpiscope.noise.session import MAX_GROUPS
from mpiscope.result.noise import validate

GROUPS, PACKET_NS = 128, 0.5e9


def _groups(rng: np.random.Generator, agent_hz: float,
            burst_ns: float) -> tuple[list[list[float]], list[list[float]]]:
    """(group times, stolen times) of ranks 0 and 1; the agent shares rank 1's core."""
    width = PACKET_NS / GROUPS
    base = width * (1 + 0.02 * rng.standard_normal(GROUPS))
    stolen = np.abs(2e3 * rng.standard_normal((2, GROUPS)))  # the odd interrupt
    if rng.random() < 0.05:
        hit = rng.integers(GROUPS)
        base[hit] += 50e6
        stolen[rng.integers(2), hit] += 50e6  # a descheduled rank: either one
    if agent_hz:
        period = 1e9 / agent_hz
        for t in np.arange(rng.uniform(0, period), PACKET_NS, period):
            base[int(t // width)] += burst_ns  # every rank waits ...
            stolen[1, int(t // width)] += burst_ns  # ... for rank 1, whose CPU the agent took
    return ([list(base), list(base * (1 + 0.001 * rng.standard_normal(GROUPS)))],
            [list(stolen[0]), list(stolen[1])])


def _run(seed: int, agent_hz: float, burst_ns: float = 1e6, packets: int = 120) -> dict:
    rng = np.random.default_rng(seed)
    rows = []
    for index in range(packets):
        block = index // 4
        agent = block % 4 in (1, 2)
        groups, stolen = _groups(rng, agent_hz if agent else 0.0, burst_ns)
        seconds = max(sum(g) for g in groups) / 1e9
        rows.append({"index": index, "block": block, "agent": agent, "seconds": seconds,
                     "groups_ns": groups, "stolen_ns": stolen})
    return {"kind": "noise-run", "design": "alternate", "packets": rows,
            "detector": {"groups": GROUPS, "group_read_ns": 25.0},
            "binding": [{"rank": 0, "cpu": 0}, {"rank": 1, "cpu": 1}]}


def test_a_10_hz_agent_is_named_with_its_frequency_and_core() -> None:
    crit = periodic_criterion(_run(1, 10.0), alpha=0.01)
    assert crit is not None and crit["detected"]
    assert crit["frequency_hz"] % 10 < 0.5 or crit["frequency_hz"] % 10 > 9.5  # 10 Hz or a harmonic
    assert crit["frequency_hz"] < 10.5  # the fundamental, not a harmonic
    # Both ranks' group times carry the line; only rank 1 lost CPU to the agent.
    assert (crit["rank"], crit["core"], crit["core_evidence"]) == (1, 1, "stolen CPU time")
    assert crit["resolution_hz"] == 2.0 or abs(crit["resolution_hz"] - 2.0) < 0.1
    assert crit["cost_share"] < 1e-4  # 128 reads of 25 ns in 0.5 s


def _stretched(rng: np.random.Generator, agent_hz: float, burst_ns: float, packet_ns: float,
               groups: int) -> list[float]:
    """Group times of equal work while an agent takes the core for ``burst_ns``
    every 1/agent_hz s: a burst stretches the groups it falls in."""
    period = 1e9 / agent_hz
    bursts = iter(np.arange(rng.uniform(-burst_ns, period), 1e12, period))
    burst = next(bursts)
    now, times = 0.0, []
    for _ in range(groups):
        began, left = now, packet_ns / groups * (1 + 0.02 * rng.standard_normal())
        while left > 0:
            if burst + burst_ns <= now:  # that one is over
                burst = next(bursts)
            elif burst <= now:  # inside a burst: wait for its end
                now = burst + burst_ns
            elif now + left <= burst:
                now, left = now + left, 0.0
            else:
                left, now = left - (burst - now), burst + burst_ns
        times.append(now - began)
    return times


def test_long_bursts_are_named_at_their_own_frequency() -> None:
    """20 Hz bursts of 10 ms (the README tour's agent) in 0.25 s packets: a
    stretched group holds 10 ms, so a spectrum over the group index would
    read a line near 24 Hz; over the packet's time it reads 20 Hz."""
    rng = np.random.default_rng(7)
    rows = []
    for index in range(32):
        agent = index // 2 % 2 == 1
        times = (_stretched(rng, 20.0, 10e6, 0.25e9, GROUPS) if agent else
                 list(0.25e9 / GROUPS * (1 + 0.02 * rng.standard_normal(GROUPS))))
        rows.append({"index": index, "block": index // 2, "agent": agent,
                     "seconds": sum(times) / 1e9, "groups_ns": [times, times]})
    crit = periodic_criterion({"packets": rows, "detector": {"groups": GROUPS}}, alpha=0.01)
    assert crit is not None and crit["detected"]
    assert abs(crit["frequency_hz"] - 20.0) <= crit["resolution_hz"] / 2


def test_a_comb_between_bins_is_named_by_its_fundamental() -> None:
    """Lines of a 10.05 Hz comb in 2.25 Hz bins, uneven in strength (as a real
    run's stolen time draws them), some between two bins: named 10 Hz, not
    one of the odd multiples whose midpoints also fall between lines."""
    from mpiscope.noise.periodic import _comb_fundamental

    rng = np.random.default_rng(3)
    resolution = 2.25
    freqs = np.arange(1, 60) * resolution
    ratios = 0.8 + 0.2 * rng.random(freqs.size)
    for k in range(1, 14):
        line = 10.05 * k
        nearest = np.argsort(np.abs(freqs - line))[:2]  # split between the two nearest bins
        ratios[nearest] += rng.uniform(1.5, 4.0) * np.array([0.7, 0.3])
    named = _comb_fundamental(freqs, ratios, resolution)
    assert abs(named - 10.05) <= resolution / 2
    pure = np.ones(freqs.size)
    pure[16] = 5.0  # one line: 38.25 Hz
    assert _comb_fundamental(freqs, pure, resolution) == pytest.approx(freqs[16], abs=0.2)


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
    assert re.search(r"[\d.]+ Hz in the (stolen CPU time|group times) of rank 1 \(core 1\), "
                     r"stolen .* ms/packet", line)


def test_an_undetected_line_is_not_named_as_a_finding() -> None:
    from mpiscope.noise.periodic import describe

    crit = periodic_criterion(_run(105, 0.0), alpha=0.01)
    assert crit is not None and not crit["detected"]
    assert describe(crit).startswith("no line; strongest ")
    assert not describe({**crit, "detected": True}).startswith("no line")


def test_without_stolen_times_the_group_times_name_the_rank() -> None:
    run = _run(4, 10.0)
    for packet in run["packets"]:
        del packet["stolen_ns"]
    crit = periodic_criterion(run, alpha=0.01)
    assert crit is not None and crit["detected"] and crit["stolen"] is None
    assert crit["core_evidence"] == "group times"


def test_a_run_without_groups_has_no_periodic_criterion() -> None:
    run = _run(3, 10.0, packets=32)
    for packet in run["packets"]:
        del packet["groups_ns"], packet["stolen_ns"]
    assert periodic_criterion(run, alpha=0.01) is None
    assert "periodic" not in compare_run(run, "old.json")["criteria"]


def test_max_groups_is_the_c_bound() -> None:
    header = Path(__file__).parents[2] / "src/noise/detect_options.h"
    found = re.search(r"#define MPISCOPE__NOISE_MAX_GROUPS (\d+)", header.read_text())
    assert found and int(found.group(1)) == MAX_GROUPS


def test_a_line_alone_is_said_as_the_agent_showing_not_as_a_slowdown() -> None:
    from mpiscope.noise.criteria import verdict_sentence

    verdict = compare_run(_run(2, 10.0), "agent.json")
    alone = {**verdict, "fired": ["periodic"]}
    line = verdict_sentence(alone)
    assert line.startswith("verdict: the agent shows in the detector: a ")
    assert re.search(r"Hz line in the (stolen CPU time|group times) of rank 1 \(core 1\)", line)
    assert "the packets' slowdown is below what the run resolves: none above " in line
    assert verdict_sentence({**verdict, "fired": ["periodic", "signed_rank"]}).startswith(
        "verdict: slowdown detected by periodic, signed_rank")
