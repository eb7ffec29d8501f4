"""The sequential rule of --until-decided on seeded simulated pairs (no MPI).

Its error rates are measured here on A/A and shifted simulations, not only
assumed from the Bonferroni split over the planned looks.
"""

from __future__ import annotations

import numpy as np
import pytest

from mpiscope.noise.sequential import SequentialRule, look_schedule, until_decided
from mpiscope.noise.text import format_sequential


def _pairs(rng: np.random.Generator, n: int, shift: float) -> list[tuple[float, float]]:
    """Block medians: 0.3 % spread, a heavy tail in one pair in ten, a slow drift."""
    out = []
    for k in range(n):
        drift = 1 + 0.02 * np.sin(k / 7)
        off, on = drift * (1 + 0.003 * rng.standard_normal(2))
        if rng.random() < 0.1:
            on *= np.exp(0.05 * rng.pareto(1.5) * (1 if rng.random() < 0.5 else -1))
        out.append((float(off), float(on * (1 + shift))))
    return out


def _decide(seed: int, shift: float, max_pairs: int = 64, margin: float = 0.01) -> tuple[str, int]:
    rng = np.random.default_rng(seed)
    pairs = _pairs(rng, max_pairs, shift)
    rule = SequentialRule(max_pairs=max_pairs, margin=margin)
    for n in range(2, max_pairs + 1, 2):
        decision = rule.look(pairs[:n])
        if decision:
            return decision, n
    raise AssertionError("the last look always decides")


def test_the_looks_are_planned_about_1_5_apart() -> None:
    assert look_schedule(64) == [8, 12, 18, 28, 42, 64]
    assert look_schedule(8) == [8]
    assert look_schedule(10) == [8, 10]


def test_a_one_percent_slowdown_is_decided_early() -> None:
    found = [_decide(seed, 0.01) for seed in range(20)]
    assert sum(decision == "slowdown" for decision, _ in found) >= 18
    assert np.median([n for _, n in found]) <= 18  # well before the 64 pairs allowed


def test_the_a_a_false_alarm_rate_of_the_whole_sequence() -> None:
    decisions = [_decide(500 + seed, 0.0)[0] for seed in range(60)]
    # alpha 0.01 over the sequence: 0.6 expected in 60; 4 or more has probability 0.003.
    assert decisions.count("slowdown") <= 3
    # No slowdown and a 1 % margin: most runs stop saying so.
    assert decisions.count("equivalent") >= 48


def test_a_slowdown_inside_the_margin_is_not_called_equivalent() -> None:
    decisions = [_decide(900 + seed, 0.02, margin=0.01)[0] for seed in range(20)]
    assert "equivalent" not in decisions


def test_the_callback_stops_the_detector_at_a_decision(tmp_path) -> None:
    stop = tmp_path / "stop"
    shown: list[int] = []
    rule = SequentialRule(max_pairs=16, margin=0.01)
    callback = until_decided(rule, lambda p: shown.append(p["index"]), 2, str(stop))
    rng = np.random.default_rng(1)
    for index in range(64):
        block = index // 2
        agent = block % 4 in (1, 2)
        seconds = 1.0 * (1.05 if agent else 1.0) * (1 + 0.001 * rng.standard_normal())
        callback({"index": index, "block": block, "agent": agent, "seconds": seconds})
        if stop.exists():
            break
    assert rule.decision == "slowdown"
    # Looks at 8, 12, 16 pairs: alpha/3 = 0.0033 is below 2^-8, the least p-value
    # of 8 pairs, so the second look decides (12 pairs, 48 packets).
    assert len(shown) == 48
    assert [look["pairs"] for look in rule.document()["looks"]] == [8, 12]


def test_the_wall_time_bound_holds_when_packets_run_long(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--max is wall time: packets planned at 1 s that take 2.5 s (a host
    that slowed down) stop the run at the quartet that would end past it,
    with a last look, not after the planned 64 pairs."""
    import mpiscope.noise.sequential as sequential

    clock = [0.0]
    monkeypatch.setattr(sequential.time, "monotonic", lambda: clock[0])
    stop = tmp_path / "stop"
    rule = SequentialRule(max_pairs=64, margin=0.001)
    callback = until_decided(rule, lambda p: None, 1, str(stop), max_s=60.0)
    rng = np.random.default_rng(2)
    for index in range(256):
        clock[0] += 2.5
        agent = index % 4 in (1, 2)
        callback({"index": index, "block": index, "agent": agent,
                  "seconds": 2.5 * (1 + 0.2 * rng.standard_normal())})
        if stop.exists():
            break
    # Quartets of 10 s: the one ending at 60 s would end a next one at 70 s.
    assert clock[0] == 60.0 and index == 23
    assert rule.decision in ("undecided", "slowdown", "equivalent")
    assert rule.document()["looks"][-1]["pairs"] == 12


def test_a_run_whose_time_runs_out_before_three_pairs_is_undecided(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow start can leave --max one quartet (2 pairs): the paired
    criteria need 3, so the run ends undecided, without a look, not with an
    error."""
    import mpiscope.noise.sequential as sequential

    clock = [0.0]
    monkeypatch.setattr(sequential.time, "monotonic", lambda: clock[0])
    stop = tmp_path / "stop"
    rule = SequentialRule(max_pairs=24, margin=0.001)
    callback = until_decided(rule, lambda p: None, 1, str(stop), max_s=6.0)
    for index in range(4):
        clock[0] += 2.5  # the quartet ends at 10 s, past the 6 s
        callback({"index": index, "block": index, "agent": index % 4 in (1, 2), "seconds": 2.5})
    assert stop.exists() and rule.decision == "undecided"
    assert rule.document()["looks"] == []
    assert format_sequential(rule.document()) == (
        "until-decided: undecided when the time ran out before the first look: fewer than "
        "3 pairs, the fewest the paired criteria take (look 0 of 4)")


def _taking(rng: np.random.Generator, index: int, taken_ns: float) -> dict:
    """A packet of blocks of 1 in ABBA order whose times do not move, while
    rank 1 loses ``taken_ns`` of CPU with the agent on (and the odd 2 us)."""
    agent = index % 4 in (1, 2)
    stolen = np.abs(2e3 * rng.standard_normal((2, 16)))
    if agent:
        stolen[1, rng.integers(16)] += taken_ns
    return {"index": index, "block": index, "agent": agent,
            "seconds": 0.5 * (1 + 0.2 * rng.standard_normal()), "stolen_ns": stolen.tolist()}


def test_the_agent_taking_a_rank_s_cpu_decides_at_the_first_look(tmp_path) -> None:
    stop = tmp_path / "stop"
    rule = SequentialRule(max_pairs=64, margin=0.001)
    callback = until_decided(rule, lambda p: None, 1, str(stop))
    rng = np.random.default_rng(4)
    for index in range(128):
        callback(_taking(rng, index, 3e6))
        if stop.exists():
            break
    assert rule.decision == "agent" and index + 1 == 16  # 8 pairs: the first look
    assert rule.document()["looks"][0]["stolen_p"] < 0.01 / len(rule.looks)


def test_without_an_agent_the_stolen_time_does_not_decide() -> None:
    decisions = []
    for seed in range(40):
        rule = SequentialRule(max_pairs=24, margin=0.001)
        callback = until_decided(rule, lambda p: None, 1, "/nonexistent/never")
        rng = np.random.default_rng(1000 + seed)
        for index in range(48):
            try:
                callback(_taking(rng, index, 0.0))
            except OSError:  # a decision touches the stop file: there is none here
                break
        decisions.append(rule.decision)
    assert decisions.count("agent") <= 1  # at most 0.01 by design; 0.4 expected


@pytest.mark.parametrize("max_pairs", [4, 6])
def test_too_short_a_run_has_one_look(max_pairs: int) -> None:
    assert look_schedule(max_pairs) == [max_pairs]
