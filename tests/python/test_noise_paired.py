"""The paired statistics of the alternating design on seeded simulations (no MPI).

The packets are simulated, never timed: heavy-tailed (a tenth of the packets
stretched by a Pareto tail, as when the VM deschedules a rank), drifting
slowly (a speed-state change), in ABBA blocks as the detector runs them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.noise import paired
from mpiscope.noise.criteria import compare_run, format_verdict
from mpiscope.result.noise import validate


def _abba_run(seed: int, shift: float, pairs: int = 15, block: int = 4) -> dict:
    """An alternating noise-run whose agent-on packets are ``shift`` slower."""
    rng = np.random.default_rng(seed)
    packets = []
    for b in range(2 * pairs):
        agent = b % 4 in (1, 2)  # ABBA: off on on off
        drift = 1 + 0.02 * math.sin(b / 5)
        for _ in range(block):
            t = 0.5 * drift * (1 + 0.002 * rng.standard_normal())
            if rng.random() < 0.1:
                t += 0.1 * rng.pareto(1.5)  # heavy tail: no finite variance
            t *= 1 + shift if agent else 1
            packets.append({"index": len(packets), "block": b, "agent": agent, "seconds": t})
    return {"kind": "noise-run", "design": "alternate", "packets": packets}


def test_signed_rank_null_matches_enumeration() -> None:
    n = 6
    law = paired.signed_rank_null(n)
    counts = np.zeros(n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(r for r, s in zip(range(1, n + 1), signs, strict=True) if s)] += 1
    assert np.allclose(law, counts / 2**n)
    assert math.isclose(float(np.dot(np.arange(law.size), law)), n * (n + 1) / 4)


def test_block_pairs_pairs_abba_blocks_and_drops_an_unfinished_pair() -> None:
    run = _abba_run(1, 0.0, pairs=3, block=3)
    pairs = paired.block_pairs(run["packets"][:-3])  # the last block lost
    assert len(pairs) == 2
    on_first = [p for p in run["packets"] if p["block"] in (2, 3)]
    off = float(np.median([p["seconds"] for p in on_first if not p["agent"]]))
    on = float(np.median([p["seconds"] for p in on_first if p["agent"]]))
    assert pairs[1] == (off, on)  # blocks 2 (on) and 3 (off): still (off, on)


def test_block_pairs_refuses_a_block_of_both_states() -> None:
    packets = [{"index": 0, "block": 0, "agent": False, "seconds": 1.0},
               {"index": 1, "block": 0, "agent": True, "seconds": 1.0}]
    with pytest.raises(MpiscopeError, match="block 0 holds agent-on and agent-off"):
        paired.block_pairs(packets)


def test_a_one_percent_shift_in_heavy_tailed_packets_is_found_by_the_pairs() -> None:
    found = [paired.paired_criteria(paired.block_pairs(_abba_run(seed, 0.01)["packets"]),
                                    confidence=0.99, alpha=0.01) for seed in range(20)]
    # 15 pairs of 4 packets find a 1 % shift about 9 times in 10 (200 seeds: 184).
    assert sum(sr["detected"] for sr, _, _ in found) >= 16
    assert sum(pi["detected"] for _, pi, _ in found) >= 15
    # The estimate is the shift, within the noise of 15 pairs.
    assert abs(float(np.median([pi["estimate"] for _, pi, _ in found])) - 0.01) < 0.002


def test_an_a_a_run_alarms_at_the_stated_rate() -> None:
    alarms = 0
    covered = 0
    seeds = 60
    for seed in range(seeds):
        pairs = paired.block_pairs(_abba_run(1000 + seed, 0.0)["packets"])
        sr, pi, lim = paired.paired_criteria(pairs, confidence=0.99, alpha=0.01)
        alarms += sr["detected"] or pi["detected"]
        covered += lim["rules_out_above"] >= 0
    # alpha 0.01: 0.6 alarms expected in 60; 4 or more has probability 0.003.
    assert alarms <= 3
    # The one-sided 95 % bound lies above the true slowdown (0) in >= 95 % of runs.
    assert covered >= 54


def test_the_exact_interval_covers_at_its_stated_level() -> None:
    rng = np.random.default_rng(7)
    inside = 0
    for _ in range(300):
        d = 0.003 + 0.01 * rng.standard_t(2, size=12)  # heavy-tailed, symmetric
        _, low, high, coverage = paired.walsh_interval(d, 0.9)
        assert coverage >= 0.9
        inside += low <= 0.003 <= high
    assert inside >= 0.9 * 300 - 2 * math.sqrt(300 * 0.09)


def test_too_few_pairs_leave_the_ends_open() -> None:
    estimate, low, high, coverage = paired.walsh_interval([0.01, 0.02, 0.03], 0.99)
    assert (low, high, coverage) == (-math.inf, math.inf, 1.0)
    assert math.isclose(estimate, 0.02)
    with pytest.raises(MpiscopeError, match="2 ABBA pair"):
        paired.paired_criteria([(1.0, 1.1), (1.0, 1.1)], confidence=0.99, alpha=0.01)


def test_a_paired_verdict_is_a_valid_document_and_states_its_limit() -> None:
    verdict = compare_run(_abba_run(3, 0.0), "aa.json")
    validate(verdict)
    assert verdict["schema_version"] == "1.4"
    assert verdict["criteria"]["signed_rank"]["pairs"] == 15
    text = format_verdict(verdict).splitlines()
    assert text[-2].startswith("limit: no slowdown above ")
    upper = verdict["limit"]["rules_out_above"]
    detectable = verdict["limit"]["detectable"]
    assert text[-1].endswith(f"none above {upper:.2%} at 95%; detectable here: "
                             f"{detectable:.2%} (80% power)")
    assert any(line.startswith("signed_rank (Wilcoxon") for line in text)
    assert any(line.startswith("paired_interval (99% CI") for line in text)


def test_a_detected_verdict_names_the_paired_criteria() -> None:
    verdict = compare_run(_abba_run(4, 0.02), "agent.json")
    assert {"signed_rank", "paired_interval"} <= set(verdict["fired"])
    low, high = verdict["criteria"]["paired_interval"]["interval"]
    assert 0 < low < 0.02 < high
