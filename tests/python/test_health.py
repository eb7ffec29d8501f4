"""mpiscope health without MPI: the schedule, the statistics, the link,
straggler and core rules on synthetic launches of known faults, the
document (schema, frame, text, HTML), the degraded platforms, the failed
ranks, and the command's one-line errors."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from health_fakes import collective_doc, link_doc, probe_doc, state
from mpiscope.errors import MpiscopeError
from mpiscope.health.fingerprint import analyse_clocks, analyse_cores, analyse_triad
from mpiscope.health.links import METRICS, MIN_UNITS, analyse_links, pair_samples
from mpiscope.health.platform import SHIPPED, cluster_spec, degraded_platform
from mpiscope.health.robust import (
    binomial_tail,
    differences_from_others,
    excess_test,
    fisher_pair,
    mad_sigma,
    median_interval,
    median_without,
)
from mpiscope.health.schedule import Schedule, round_robin
from mpiscope.health.session import failed_ranks
from mpiscope.health.stragglers import analyse_stragglers
from mpiscope.health.verdict import exit_code, health_document
from mpiscope.result.health import health_frame, load_health, validate_health, write_health
from mpiscope.result.student import t_upper_tail

REPO = Path(__file__).resolve().parents[2]
BASE_NS = 10_000.0


# --- the schedule -------------------------------------------------------------------
@pytest.mark.parametrize("units", range(2, 18))
def test_round_robin_meets_every_pair_once_in_disjoint_rounds(units: int) -> None:
    rounds = round_robin(units)
    assert len(rounds) == (units - 1 if units % 2 == 0 else units)
    seen = [pair for r in rounds for pair in r]
    assert sorted(seen) == list(itertools.combinations(range(units), 2))
    for r in rounds:
        members = [u for pair in r for u in pair]
        assert len(members) == len(set(members))


def test_schedule_text_and_launches() -> None:
    s = Schedule(4, (10, 11, 12, 13), both_ways=True)
    assert len(s.rounds) == 6
    assert s.pairs_text().count(";") == 5
    first = s.pairs_text().split(";")[0]
    assert first == ",".join(f"{s.ranks[a]}-{s.ranks[b]}" for a, b in s.rounds[0])
    assert s.pairs_of(7) == s.rounds[1]
    assert s.rounds[3] == [(b, a) for a, b in s.rounds[0]]  # turned round: the other way


# --- the statistics -----------------------------------------------------------------------
def test_median_interval_is_the_order_statistics_of_the_binomial() -> None:
    assert median_interval(list(range(1, 11))) == (2, 9)  # 97.9% >= 95%
    assert median_interval([5.0, 1.0, 3.0]) == (1.0, 5.0)  # too few: the range
    assert median_interval([]) == (None, None)


def test_binomial_tail_and_mad() -> None:
    assert binomial_tail(10, 10, 0.5) == pytest.approx(1 / 1024)
    assert binomial_tail(0, 5, 0.3) == 1.0 and binomial_tail(6, 5, 0.3) == 0.0
    assert binomial_tail(60, 100, 0.5) == pytest.approx(0.028443966820490444, rel=1e-9)
    assert mad_sigma([1.0, 2.0, 3.0, 4.0, 100.0]) == pytest.approx(1.4826)


def test_the_excess_test_is_student_t_over_the_blocks() -> None:
    """Values from scipy.stats.t (recorded): blocks 2%..6% around 4%, floor
    1%: mean 4%, sd 1.58%, t = (4 - 1) / (1.58 / sqrt(5)) = 4.24, df 4."""
    test = excess_test([0.02, 0.03, 0.04, 0.05, 0.06], 0.01, tests=2)
    assert test["excess"] == pytest.approx(0.04) and test["blocks"] == 5
    half = 2.7764451051977987 * math.sqrt(0.00025 / 5)  # t_{0.975, 4} x se
    assert (test["low"], test["high"]) == pytest.approx((0.04 - half, 0.04 + half))
    assert test["p_value"] == pytest.approx(2 * 0.006617799781841345, rel=1e-9)
    assert excess_test([0.05] * 10, 0.01)["p_value"] == 0.0  # no spread, above the floor
    assert excess_test([0.005] * 10, 0.01)["p_value"] == 1.0
    assert excess_test([0.05, 0.05, 0.05], 0.01)["p_value"] is None  # too few blocks
    assert t_upper_tail(-1.0, 5) == pytest.approx(0.8183912661754386, rel=1e-12)


def test_fisher_and_the_median_of_the_others() -> None:
    assert fisher_pair(0.01, 0.01) == pytest.approx(0.001021034037197619, rel=1e-12)
    assert fisher_pair(0.0, 0.5) == 0.0 and fisher_pair(1.0, 1.0) == 1.0
    ordered = [1.0, 2.0, 3.0, 10.0]
    assert [median_without(ordered, k) for k in range(4)] == [3.0, 3.0, 2.0, 2.0]
    assert median_without([7.0], 0) == 0.0
    rows = [[1.0, 3.0, 5.0], [0.0, 0.0, 0.0]]
    assert differences_from_others(rows, [2.0, 0.0]) == [[-1.5], [0.0], [1.5]]


# --- links ----------------------------------------------------------------------------------
def _matrix(bad_link: tuple[int, int], bad_node: int, factor: float = 4.0) -> Any:
    def time(a: int, b: int) -> float:
        t = BASE_NS
        if bad_node in (a, b):
            t *= 2.0
        if (a, b) == bad_link:
            t *= factor
        return t

    return time


def _links(units: int, bad_link: tuple[int, int], bad_node: int, **kw: Any) -> Any:
    schedules = {"latency": Schedule(units, tuple(range(units))),
                 "bandwidth": Schedule(units, tuple(range(units)), both_ways=True)}  # fmt: skip
    lat = _matrix((-1, -1), bad_node)  # the slow link is slow in bandwidth only
    docs = {"latency": link_doc(schedules["latency"], "latency", lat, **kw),
            "bandwidth": link_doc(schedules["bandwidth"], "bandwidth",
                                  _matrix(bad_link, bad_node), **kw)}  # fmt: skip
    return analyse_links(docs, schedules, units), docs, schedules


@pytest.mark.parametrize("units", [6, 16, 64])
def test_a_bad_link_and_a_bad_node_are_named_and_nothing_else(units: int) -> None:
    analysis, _, _ = _links(units, (1, units - 2), units // 2, jitter=0.05)
    assert [n["unit"] for n in analysis.nodes] == [units // 2]
    assert [(link["a"], link["b"], link["metric"]) for link in analysis.links] == [
        (1, units - 2, "bandwidth")
    ]
    node = analysis.nodes[0]
    assert node["slow"] == node["of"] == units - 1 and node["p_value"] < 1e-3


def test_a_healthy_matrix_names_nothing() -> None:
    analysis, _, _ = _links(16, (-1, -1), -1, jitter=0.2)
    assert analysis.judged and not analysis.nodes and not analysis.links
    assert not any(any(r.slow) for r in analysis.results.values())


def test_few_units_give_no_verdict_but_keep_the_matrix() -> None:
    for units in (2, MIN_UNITS - 1):
        analysis, _, _ = _links(units, (0, 1), -1)
        assert not analysis.judged and analysis.why_not
        assert not analysis.nodes and not analysis.links
        assert len(analysis.results["latency"].pairs) == units * (units - 1) // 2
    assert "one link" in _links(2, (0, 1), -1)[0].why_not


def test_a_late_rank_is_not_the_links_fault() -> None:
    """Unit 3 starts 1 ms late in every other launch: those samples are
    dropped, not counted as a slow link (1 ms is a hundred round trips)."""
    units = 8
    schedule = Schedule(units, tuple(range(units)))
    doc = link_doc(schedule, "latency", lambda a, b: BASE_NS,
                   late=lambda n, u: u == 3 and n % 2 == 0)  # fmt: skip
    samples = pair_samples(doc, schedule, METRICS["latency"])
    assert all(s == pytest.approx(BASE_NS) for values in samples.values() for s in values)
    assert sum(len(v) for p, v in samples.items() if 3 in p) < sum(
        len(v) for p, v in samples.items() if 4 in p
    )
    analysis = analyse_links({"latency": doc}, {"latency": schedule}, units)
    assert not analysis.nodes and not analysis.links


def test_link_samples_need_the_launch_numbers() -> None:
    schedule = Schedule(4, (0, 1, 2, 3))
    doc = link_doc(schedule, "latency", lambda a, b: BASE_NS)
    del doc["points"][0]["raw"]["launch"]
    with pytest.raises(MpiscopeError, match="raw.launch"):
        pair_samples(doc, schedule, METRICS["latency"])


# --- stragglers -------------------------------------------------------------------------
def test_a_periodic_straggler_is_named() -> None:
    """Rank 1 is 3 ms late every 100th launch (a 10 Hz agent at 1 ms launches)."""
    doc = collective_doc(4, 3000, lambda i, r: 3e6 if r == 1 and i % 100 == 7 else 0.0)
    section = analyse_stragglers(doc, [0, 0, 0, 0])
    assert [n["rank"] for n in section["named_ranks"]] == [1]
    named = section["named_ranks"][0]
    assert named["events"] == named["of"] == 60 and named["quarters"] == 4
    assert section["ops"][0]["ranks"][0]["max_lead_ns"] == pytest.approx(3e6, rel=0.01)


def test_random_lateness_names_nobody() -> None:
    import random

    rng = random.Random(5)
    late = {(i, rng.randrange(2)) for i in range(3000) if rng.random() < 0.05}
    doc = collective_doc(2, 3000, lambda i, r: 2e6 if (i, r) in late else 0.0)
    assert analyse_stragglers(doc, [0, 0])["named_ranks"] == []


@pytest.mark.parametrize(("lead_ns", "named"), [(30e3, []), (2e6, [1])])
def test_a_lopsided_count_is_named_only_when_the_wait_is_material(
    lead_ns: float, named: list[int]
) -> None:
    """3:2 between two ranks over 1,000 events per op is significant as a
    count (p ~ 1e-10). Leads of 30 us (the others wait 0.2% of the run
    longer for rank 1, below the 1% floor): what a quiet VM's imbalances
    are, not named. Leads of 2 ms (10% of the run): named."""
    doc = collective_doc(
        2, 4000, lambda i, r: lead_ns if i % 4 == 0 and r == ((i // 4) % 5 < 3) else 0
    )
    section = analyse_stragglers(doc, [0, 0])
    assert section["events"] == 2000
    assert [n["rank"] for n in section["named_ranks"]] == named
    assert [r["events"] for r in section["ops"][0]["ranks"]] == [400, 600]  # 3:2 per op
    rank1 = section["ranks"][1]
    assert rank1["excess"] == pytest.approx(0.2 * 4000 / 4 * lead_ns / 4e9, rel=0.02)
    assert rank1["low"] < rank1["excess"] < rank1["high"]


def test_launches_behind_schedule_are_not_judged() -> None:
    """Every launch starts 2 ms after its slot (a run that fell behind) and
    rank 1 always enters 3 us after rank 0, as the previous launch let it
    out: not a straggler, the launches are counted as behind. Where one
    launch in five is on time, rank 1 is 3 ms late in one in four of those:
    they count."""
    behind = collective_doc(2, 2000, lambda i, r: 2e6 + (3e3 if r == 1 else 0.0))
    section = analyse_stragglers(behind, [0, 0])
    assert section["events"] == 0 and section["named_ranks"] == []
    assert [op["behind"] for op in section["ops"]] == [2000, 2000]
    mixed = collective_doc(2, 2000, lambda i, r: (0.0 if i % 5 == 0 else 2e6) + (
        3e6 if r == 1 and i % 20 == 0 else 3e3 if r == 1 else 0.0))  # fmt: skip
    section = analyse_stragglers(mixed, [0, 0])
    assert [op["behind"] for op in section["ops"]] == [1600, 1600]
    assert section["events"] == 200 and [n["rank"] for n in section["named_ranks"]] == [1]


def test_the_first_launch_of_a_stage_is_not_judged() -> None:
    """Rank 1 is 2 ms late in the first launch of every stage of 8 (its
    schedule came late from rank 0): not a straggler; the same lateness one
    launch later in the stage is."""
    for offset, named in ((0, []), (1, [1])):
        doc = collective_doc(2, 4000, lambda i, r, o=offset: 2e6 if r == 1 and i % 8 == o else 0.0)
        doc["method"].update(k=8, k_init=4)
        for point in doc["points"]:
            point["raw"]["launch"] = [4 + i for i in range(4000)]
        section = analyse_stragglers(doc, [0, 0])
        assert [n["rank"] for n in section["named_ranks"]] == named
        assert [op["stage_starts"] for op in section["ops"]] == [500, 500]


def test_a_burst_in_one_quarter_is_not_a_straggler() -> None:
    doc = collective_doc(2, 4000, lambda i, r: 2e6 if r == 0 and i < 900 and i % 5 == 0 else 0.0)
    section = analyse_stragglers(doc, [0, 0])
    assert section["events"] > 100 and section["named_ranks"] == []


def test_a_node_of_stragglers_is_named_as_the_node() -> None:
    """Ranks 4-7 of node 1 are late in turns: no rank alone stands out,
    their node does."""
    doc = collective_doc(8, 4000, lambda i, r: 2e6 if i % 20 == 0 and r == 4 + (i // 20) % 4 else 0)
    section = analyse_stragglers(doc, [0, 0, 0, 0, 1, 1, 1, 1])
    assert section["named_ranks"] == []
    assert [n["node"] for n in section["named_nodes"]] == [1]


# --- fingerprint --------------------------------------------------------------------------
def test_a_noisy_core_stands_out_with_its_frequency(tmp_path: Path) -> None:
    probe = probe_doc(tmp_path, [0.001, 0.05], [None, 0.1])
    cores = analyse_cores(probe, tmp_path, {0: "0", 1: "1"})["cores"]
    assert [c["stands_out"] for c in cores] == [False, True]
    assert cores[1]["own_hz"] == pytest.approx(10.0) and cores[1]["p_value"] < 1e-6


@pytest.mark.parametrize(("shares", "extra", "why"), [
    ([0.03, 0.03], {}, "the same on both cores"),
    ([0.004, 0.012], {}, "0.8% more: below the 1% floor"),
    ([0.01, 0.01], {0: [(500_000_000, 30_000_000)]}, "one preemption of 30 ms: 3% more, in one "
     "block of ten"),
])  # fmt: skip
def test_cores_that_do_not_stand_out(
    tmp_path: Path, shares: list[float], extra: dict[int, list[tuple[int, int]]], why: str
) -> None:
    probe = probe_doc(tmp_path, shares, [None, None], extra)
    cores = analyse_cores(probe, tmp_path, {})["cores"]
    assert not any(c["stands_out"] for c in cores), why
    if extra:
        assert cores[0]["excess"] == pytest.approx(0.03, abs=1e-3)
        assert cores[0]["excess_low"] < 0.01 < cores[0]["excess_high"]
        assert cores[0]["p_value"] > 0.05


def test_a_core_a_steady_12_percent_above_the_other_stands_out(tmp_path: Path) -> None:
    """Other work taking 12.6% more of core 0, all along (an A/A run here
    under load): a true statement of the core, named (the verdict folds it
    into a busy node's entry, docs/health.md)."""
    cores = analyse_cores(probe_doc(tmp_path, [0.388, 0.262], [None, None]), tmp_path, {})
    assert [c["stands_out"] for c in cores["cores"]] == [True, False]
    assert cores["cores"][0]["excess"] == pytest.approx(0.126, abs=2e-3)
    assert list(cores["busy"]) == ["vm"]


def test_triad_and_clocks_per_node() -> None:
    cores = [{"host": f"n{i}", "triad_bytes_per_s": 10e9 if i != 3 else 4e9} for i in range(6)]
    triad = analyse_triad(cores)
    assert triad["low"] == ["n3"] and triad["judged"]
    assert analyse_triad(cores[:3])["low"] == []  # too few nodes to judge
    env = {"hosts": [f"n{i}" for i in range(6)], "rank_nodes": list(range(6)),
           "clock_sync": {"residual_ns": [0, 5, 4, 6, 5, 4],
                          "end_residual_ns": [0, 9, 8, 50_000, 7, 9]}}  # fmt: skip
    assert analyse_clocks(env)["off"] == ["n3"]


# --- failed ranks ---------------------------------------------------------------------------
def test_failed_ranks_from_the_launchers_words() -> None:
    env = {"hosts": ["vm"], "rank_nodes": [0, 0], "rank_pids": [4100, 4242]}
    hydra = "mpiscope-bench failed: a rank (pid 4242 on vm) was killed by SIGKILL"
    assert failed_ranks(hydra, env) == [
        {"rank": 1, "pid": 4242, "how": "killed by SIGKILL", "host": "vm"}
    ]
    srun = "mpiscope-bench failed: vm: task 1: Killed"
    assert [f["rank"] for f in failed_ranks(srun, env)] == [1]
    assert failed_ranks("mpiscope-bench failed: a rank was killed by SIGKILL", env) == []
    unknown = failed_ranks(hydra, {"rank_pids": [1, 2]})
    assert unknown[0]["rank"] is None and unknown[0]["pid"] == 4242


def test_a_rank_mpich_may_have_killed_itself_is_named_with_the_others() -> None:
    """MPICH names the first rank of a node, in rank order, that ended, and
    its clean-up kills the others with SIGKILL: rank 0 named as killed by
    SIGKILL may have died after rank 1 (seen in CI: rank 1 killed, rank 0
    named). Another signal, or no later rank on the node, is not in doubt."""
    from mpiscope.health.verdict import _suspects_of_failures

    env = {"hosts": ["a", "b"], "rank_nodes": [0, 0, 1, 0], "rank_pids": [10, 11, 12, 13]}
    said = failed_ranks("mpiscope-bench failed: a rank (pid 10 on a) was killed by SIGKILL", env)
    assert [(f["rank"], f["ranks"], f["host"]) for f in said] == [(0, [0, 1, 3], "a")]
    assert "MPICH's clean-up killed it after one of ranks 1, 3 of its node died" in said[0]["how"]
    [suspect] = _suspects_of_failures([dict(said[0], phase="collectives")])
    assert suspect["name"] == "rank 0 or 1 or 3 (a)"
    segv = failed_ranks("mpiscope-bench failed: a rank (pid 10 on a) was killed by SIGSEGV", env)
    assert "ranks" not in segv[0] and segv[0]["how"] == "killed by SIGSEGV"
    last = failed_ranks("mpiscope-bench failed: a rank (pid 13 on a) was killed by SIGKILL", env)
    assert "ranks" not in last[0] and last[0]["rank"] == 3
    alone = failed_ranks("mpiscope-bench failed: a rank (pid 12 on b) was killed by SIGKILL", env)
    assert "ranks" not in alone[0] and alone[0]["rank"] == 2


def test_a_busy_node_is_named_instead_of_its_stragglers(tmp_path: Path) -> None:
    """Both cores lose 70% to other work: the node is named as busy, and the
    straggler it holds (rank 1, late every 100th launch) is said in its
    entry, not named; at 1% the straggler is named, sure, and nothing is busy."""
    for share, named in ((0.7, [("node", "vm", "observed")]),
                         (0.01, [("rank", "rank 1 (vm, core 1)", "sure")])):  # fmt: skip
        run = state(tmp_path, simulated=False, collectives=collective_doc(
            2, 3000, lambda i, r: 3e6 if r == 1 and i % 100 == 7 else 0.0))  # fmt: skip
        (tmp_path / "h.raw" / "probe").mkdir(parents=True, exist_ok=True)
        run.probe = probe_doc(tmp_path / "h.raw" / "probe", [share, share], [None, None])
        doc = health_document(run)
        validate_health(doc)
        assert [(s["kind"], s["name"], s["certainty"]) for s in doc["suspects"]] == named
        assert list(doc["fingerprint"]["cores"]["busy"]) == (["vm"] if share > 0.2 else [])
        assert [n["rank"] for n in doc["stragglers"]["named_ranks"]] == [1]
        if share > 0.2:
            assert doc["suspects"][0]["evidence"].endswith(
                "not named for that reason: rank 1 (vm, core 1) (stragglers)")


def _weak_straggler(seed: int, rate_1: float) -> dict[str, Any]:
    """Both ranks late by 1-3 ms at random, rank 1 at ``rate_1`` per launch, rank 0 at 0.6%."""
    import random

    rng = random.Random(seed)
    late = {(i, r): rng.uniform(1e6, 3e6) for i in range(3000) for r in (0, 1)
            if rng.random() < (rate_1 if r == 1 else 0.006)}  # fmt: skip
    return collective_doc(2, 3000, lambda i, r: late.get((i, r), 0.0))


def _weak_core(directory: Path, seed: int, agent_share: float) -> dict[str, Any]:
    """Both cores with 8 preemptions of ~4 ms at random; core 1 with a
    10 Hz agent taking ``agent_share`` of it, core 0 losing 1%."""
    import random

    rng = random.Random(seed)
    extra = {c: [(rng.randrange(0, 10**9), int(rng.expovariate(1 / 4e6))) for _ in range(8)]
             for c in (0, 1)}  # fmt: skip
    return probe_doc(directory, [0.01, agent_share], [None, 0.1], extra)


@pytest.mark.parametrize(("rate_1", "agent_share", "named"), [
    (0.013, 0.045, [("rank", "rank 1 on core 1 of vm", "sure")]),
    (0.006, 0.045, []),
    (0.013, 0.01, []),
])  # fmt: skip
def test_a_rank_and_its_core_are_named_together(
    tmp_path: Path, rate_1: float, agent_share: float, named: list[tuple[str, str, str]]
) -> None:
    """Rank 1 makes the others wait ~2% of the run more than rank 0, and
    its core loses ~3.5% more to a 10 Hz agent, among random preemptions
    of both: each only likely beyond its floor alone (p 0.003 and 0.018:
    neither named), together sure (Fisher: 5e-4): one suspect, the rank on
    its core, with the agent's frequency. Without the rank's excess, or
    without the core's, nothing is named."""
    run = state(tmp_path, simulated=False, collectives=_weak_straggler(9, rate_1))
    raw = tmp_path / "h.raw" / "probe"
    raw.mkdir(parents=True, exist_ok=True)
    run.probe = _weak_core(raw, 4, agent_share)
    doc = health_document(run)
    validate_health(doc)
    assert doc["stragglers"]["named_ranks"] == []
    assert not any(c["stands_out"] for c in doc["fingerprint"]["cores"]["cores"])
    assert [(s["kind"], s["name"], s["certainty"]) for s in doc["suspects"]] == named
    if named:
        joint = doc["suspects"][0]
        assert "at ~10 Hz" in joint["evidence"] and "the others waited for it" in joint["evidence"]
        assert joint["measurement"]["stragglers"] == 1 and joint["measurement"]["core"] == 1
        p_rank, p_core = joint["measurement"]["p_values"]
        assert 1e-3 < p_rank < 0.05 and 1e-3 < p_core < 0.05 and joint["p_value"] < 1e-3


def test_a_sure_straggler_on_an_agent_s_core_is_one_suspect(tmp_path: Path) -> None:
    """Rank 1 3 ms late every 100th launch (10 Hz at 1 ms launches) and its
    core losing 5% to a 10 Hz agent: one suspect, not a rank and a core."""
    run = state(tmp_path, simulated=False, collectives=collective_doc(
        2, 3000, lambda i, r: 3e6 if r == 1 and i % 100 == 7 else 0.0))  # fmt: skip
    raw = tmp_path / "h.raw" / "probe"
    raw.mkdir(parents=True, exist_ok=True)
    run.probe = probe_doc(raw, [0.01, 0.06], [None, 0.1])
    doc = health_document(run)
    assert [n["rank"] for n in doc["stragglers"]["named_ranks"]] == [1]
    assert [c["stands_out"] for c in doc["fingerprint"]["cores"]["cores"]] == [False, True]
    assert [(s["kind"], s["name"], s["certainty"]) for s in doc["suspects"]] == [
        ("rank", "rank 1 on core 1 of vm", "sure")
    ]
    assert doc["suspects"][0]["evidence"].startswith(
        "its core loses 6.00% of the CPU to other work at ~10 Hz, against 1.00% on the other "
        "cores: +5.00%")


# --- the document -----------------------------------------------------------------------------
def _document(tmp_path: Path) -> dict[str, Any]:
    units = 8
    _, docs, schedules = _links(units, (1, 6), 4)
    run = state(tmp_path, collectives=collective_doc(
        units, 400, lambda i, r: 3e6 if r == 2 and i % 10 == 0 else 0.0))  # fmt: skip
    for metric, doc in docs.items():
        run.docs[f"links-{metric}"] = doc
    run.schedules = schedules
    run.link_unit = "node"
    run.unit_ranks = [[u] for u in range(units)]
    run.unit_names = [f"node-{u}" for u in range(units)]
    run.docs["collectives"]["environment"].update(
        hosts=run.unit_names, rank_nodes=list(range(units)), nodes=units)
    return health_document(run)


def test_the_document_names_the_faults_and_validates(tmp_path: Path) -> None:
    doc = _document(tmp_path)
    validate_health(doc)
    kinds = sorted((s["kind"], s["name"]) for s in doc["suspects"])
    assert kinds == [
        ("link", "node-1 - node-6"), ("node", "node-4"), ("rank", "rank 2 (node-2, core 2)")
    ]
    assert exit_code(doc) == 1
    path = tmp_path / "h.json"
    write_health(doc, path)
    assert load_health(path)["suspects"] == doc["suspects"]


def test_a_pair_without_any_sample_is_said(tmp_path: Path) -> None:
    """A pair none of whose launches had every rank on time leaves the
    matrix: the document says so instead of judging the rest in silence."""
    units = 6
    schedule = Schedule(units, tuple(range(units)))
    doc = link_doc(schedule, "latency", lambda a, b: BASE_NS,
                   late=lambda n, u: u == 5 and (0, 5) in schedule.pairs_of(n))  # fmt: skip
    run = state(tmp_path, collectives=collective_doc(units, 40, lambda i, r: 0.0))
    run.docs["links-latency"], run.schedules = doc, {"latency": schedule}
    run.unit_ranks = [[u] for u in range(units)]
    run.unit_names = [f"node-{u}" for u in range(units)]
    health = health_document(run)
    assert len(health["links"]["metrics"]["latency"]["pairs"]["a"]) == 14
    assert health["warnings"] == [
        "latency: 1 of 15 pairs have no sample (no launch of theirs had every rank on time), "
        "e.g. node-0 - node-5: not in the matrix"
    ]


def test_the_frame_has_a_row_per_pair(tmp_path: Path) -> None:
    doc = _document(tmp_path)
    frame = health_frame(doc)
    assert len(frame) == 28 and frame["bandwidth_slow"].sum() == 8  # node-4's 7 and 1-6
    assert frame.attrs["suspects"] == doc["suspects"]
    path = tmp_path / "h.json"
    write_health(doc, path)
    import mpiscope

    assert len(mpiscope.load(path)) == 28
    with pytest.raises(MpiscopeError, match="raw_dir"):
        mpiscope.load(path, raw=True)


def test_text_and_html_reports(tmp_path: Path) -> None:
    from mpiscope.health.html import render_health_html
    from mpiscope.health.text import format_health

    doc = _document(tmp_path)
    text = format_health(doc)
    assert text.startswith("VERDICT 3 suspect(s)")
    assert "node-4" in text and "bandwidth heat map" in text
    page = render_health_html([doc], ["h.json"])
    assert page.count('class="heatmap"') == 2 and page.count("cell slow") >= 2 * 8
    assert '<svg class="timeline" data-op="allreduce"' in page
    assert "<script" not in page and "http" not in page.replace("https://", "")


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.update(kind="model"), "has kind 'model'"),
    (lambda d: d.update(schema_version="2.0"), "reads 1.x"),
    (lambda d: d["suspects"].append({"kind": "gremlin", "name": "x", "evidence": "",
                                     "certainty": "sure"}), "suspects[3].kind"),
])  # fmt: skip
def test_foreign_documents_are_refused_in_one_line(tmp_path: Path, change: Any, words: str) -> None:
    doc = _document(tmp_path)
    change(doc)
    with pytest.raises(MpiscopeError, match=words.replace("[", r"\[").replace("]", r"\]")) as err:
        validate_health(doc)
    assert "\n" not in str(err.value)


# --- degraded platforms ------------------------------------------------------------------------
def test_a_degraded_platform_from_a_shipped_one() -> None:
    spec = cluster_spec(REPO / "platforms" / "cluster-8x8.xml")
    assert (spec.bw, spec.lat, spec.cores) == (12.5e9, 1e-6, 8)
    text = degraded_platform(spec, 16, [(3, 9, 4.0)], [(12, 2.0)])
    root = ET.fromstring(text)
    hosts = [h.get("id") for h in root.iter("host")]
    assert hosts == [f"node-{i}.c8x8" for i in range(16)]
    routes = list(root.iter("route"))
    assert len(routes) == 16 + 16 * 15 // 2
    links = {link.get("id"): link for link in root.iter("link")}
    assert links["slow-3-9"].get("bandwidth") == "3.125e+09Bps"
    up = links["up-12"]
    assert up.get("bandwidth") == "6.25e+09Bps" and up.get("latency") == "2e-06s"
    slow = [r for r in routes if any(c.get("id") == "slow-3-9" for c in r)]
    assert [(r.get("src"), r.get("dst")) for r in slow] == [("node-3.c8x8", "node-9.c8x8")]
    with pytest.raises(MpiscopeError, match="two nodes"):
        degraded_platform(spec, 4, [(3, 9, 4.0)])


def test_the_shipped_degraded_platforms_are_the_generator_s() -> None:
    """platforms/faulty-*.xml are what tools/degraded_platform.py writes from
    mpiscope.health.platform.SHIPPED: the tests' ground truth is the file's."""
    run = subprocess.run([sys.executable, str(REPO / "tools" / "degraded_platform.py"),
                          "--shipped", "--check"], capture_output=True, text=True, timeout=60,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    for name, faults in SHIPPED.items():
        root = ET.fromstring((REPO / "platforms" / f"{name}.xml").read_bytes())
        assert len(list(root.iter("host"))) == faults.nodes
        (a, b, _), = faults.slow_links
        assert [link.get("id") for link in root.iter("link") if link.get("id", "").startswith(
            "slow-")] == [f"slow-{a}-{b}"]  # fmt: skip


def test_the_window_bound_is_the_bandwidth_ops_own() -> None:
    """--window is bounded by what bw, bibw and mbw_mr accept (their option
    description does not say it): read from src/ops/bandwidth.c."""
    import re

    from mpiscope.api.health import MAX_WINDOW

    source = (REPO / "src" / "ops" / "bandwidth.c").read_text()
    match = re.search(r"MAX_WINDOW = (\d+)", source)
    assert match is not None and int(match.group(1)) == MAX_WINDOW


# --- the command's bad input -------------------------------------------------------------------
def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", "health", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


@pytest.mark.parametrize(("args", "words"), [
    (["--np", "1"], "a health check needs 2 ranks at least"),
    (["--launcher", "smpi", "--platform", "cluster-8x8", "--nodes", "5", "--np", "12"],
     "--np 12 ranks do not fill --nodes 5 evenly"),
    (["--launcher", "smpi", "--platform", "cluster-8x8", "--nodes", "64", "--np", "64"],
     "--nodes 64: platform cluster-8x8.xml has 8 hosts"),
    (["--launcher", "smpi", "--platform", "cluster-8x8", "--nodes", "2", "--np", "32"],
     "16 ranks a node, but host node-0.c8x8 of cluster-8x8.xml has fewer cores"),
    (["--latency-size", "8,16"], "--latency-size must be one size, not 2 ('8,16')"),
    (["report"], "'report FILE'"),
    (["report", "missing.json"], "missing.json does not exist"),
])  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    run = _cli(*args, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error: ") and words in lines[0]


def test_report_of_a_foreign_document_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text(json.dumps({"kind": "noise-probe", "schema_version": "1.0"}))
    (tmp_path / "y.json").write_text("{not json")
    for name in ("x.json", "y.json"):
        run = _cli("report", name, cwd=tmp_path)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_report_exit_codes(tmp_path: Path) -> None:
    doc = _document(tmp_path)
    write_health(doc, tmp_path / "bad.json")
    assert _cli("report", "bad.json", cwd=tmp_path).returncode == 1
    healthy = dict(doc, suspects=[])
    write_health(healthy, tmp_path / "ok.json")
    run = _cli("report", "ok.json", cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("VERDICT healthy")
