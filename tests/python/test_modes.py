"""The mode detector (mpiscope.result.modes) on synthetic samples and runs,
and how the reports show modes. No timing: every input is made up."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from mpiscope.measure.runs import RunOutcome, merge_documents, run_summary
from mpiscope.reports.report import render_report
from mpiscope.result import Result, validate_result
from mpiscope.result.estimate import estimate, group_points, summary_index
from mpiscope.result.modes import MODES_MIN_RATIO, find_modes, format_modes, run_modes
from mpiscope.result.units import format_ns


def normal(mean: float, sd: float, n: int, seed: int) -> list[float]:
    return list(np.random.default_rng(seed).normal(mean, sd, n))


def test_one_mode_is_not_flagged() -> None:
    assert find_modes(normal(1000, 30, 200, 1)) == []
    # skewed but one state: a lognormal, and a floor with an exponential tail
    rng = np.random.default_rng(2)
    assert find_modes(list(np.exp(rng.normal(7, 0.3, 300)))) == []
    assert find_modes(list(200 + rng.exponential(50, 300))) == []


def test_two_separated_modes_are_flagged_with_both_values() -> None:
    values = normal(130e3, 3e3, 60, 3) + normal(500e3, 10e3, 40, 4)
    modes = find_modes(values)
    assert [m.count for m in modes] == [60, 40]
    assert modes[0].value_ns == pytest.approx(130e3, rel=0.02)
    assert modes[1].value_ns == pytest.approx(500e3, rel=0.02)
    assert set(modes[0].members) == set(range(60))  # indices into the values given
    assert format_modes(modes, "samples", format_ns).startswith("MODES 130 us (60 samples) / ")


def test_close_or_small_modes_are_not_flagged() -> None:
    # two tight clusters 3% apart: separated, but within the run's precision
    assert find_modes(normal(1000, 5, 50, 5) + normal(1030, 5, 50, 6)) == []
    assert MODES_MIN_RATIO == pytest.approx(1.05 / 0.95)
    # two wide clusters whose mixture has one peak (D < 2)
    assert find_modes(normal(1000, 150, 100, 7) + normal(1200, 150, 100, 8)) == []
    # a second cluster of 5% of the samples is a tail, not a state
    assert find_modes(normal(1000, 20, 190, 9) + normal(5000, 50, 10, 10)) == []
    assert find_modes([1000.0] * 4) == []


def test_run_modes_follow_the_disagreement_rule() -> None:
    medians = [130.0, 500.0, 131.0, 502.0, 129.0]
    groups = [[0, 2, 4], [1, 3]]
    assert run_modes(medians, groups, ["spread"]) == []
    modes = run_modes(medians, groups, ["spread", "modes"])
    assert [(m.value_ns, m.count, m.members) for m in modes] == [
        (130.0, 3, (0, 2, 4)), (501.0, 2, (1, 3))]  # fmt: skip


def _run(doc: dict[str, Any], median: float) -> dict[str, Any]:
    """``doc`` with one bcast point measured at ``median`` (IQR +-1%), after
    a clock sync whose round trip is 1.8 us in the state of 130 us, else
    2.1 us (as on the AMD EPYC VM)."""
    out = copy.deepcopy(doc)
    out["environment"]["clock_sync"]["rtt_min_ns"] = [0, 1800.0 if median < 200e3 else 2100.0]
    point = next(p for p in out["points"] if p["op"] == "bcast")
    point.update(median_ns=median, mean_ns=median, q25_ns=0.99 * median, q75_ns=1.01 * median,
                 ci_low_ns=0.995 * median, ci_high_ns=1.005 * median)  # fmt: skip
    out["points"] = [point]
    return out


def test_runs_in_two_states_are_reported_as_modes(sample_doc: dict[str, Any]) -> None:
    medians = [130e3] * 6 + [500e3] * 4
    outcomes = [
        RunOutcome("bench", "2026-11-24T03:00:00Z", "2026-11-24T03:00:01Z",
                      _run(sample_doc, m), None, i + 1)  # fmt: skip
        for i, m in enumerate(medians)
    ]
    merged = merge_documents(outcomes)
    assert merged is not None
    merged.update(run_summary(merged, seed=3))
    validate_result(merged)
    row = merged["run_summary"][0]
    assert [(m["count"], round(m["value_ns"] / 1e3)) for m in row["modes"]] == [(6, 130), (4, 500)]
    result = Result(merged)
    key, summary = next(iter(summary_index(result).items()))
    est = estimate(group_points(result)[key], summary)
    assert est.flagged and len(est.modes) == 2
    text = render_report(result)
    assert "modes; MODES 130 us (6 runs) / 500 us (4)" in text
    assert "MODES: the machine was in different states between runs" in text
    from mpiscope.reports.html import render_html

    page = render_html([result])
    assert "modes; MODES 130 us (6 runs) / 500 us (4)" in page  # the run table
    assert "the machine was in separate states" in page  # and the warnings
    assert "<td>2.1 us</td>" in page and "sync round trip (the machine&#x27;s state)" in page
    # each run's median, in run order
    line = next(line for line in text.splitlines() if "130 us 130 us" in line)
    assert line.split()[-20:] == ["130", "us"] * 6 + ["500", "us"] * 4
    assert [r["sync_rtt_min_ns"] for r in merged["runs"]] == [1800.0] * 6 + [2100.0] * 4
    rtt = next(line for line in text.splitlines() if line.startswith("clock sync, shortest"))
    assert rtt.split(": ")[1].split() == ["1.8", "us"] * 6 + ["2.1", "us"] * 4
    assert ("The runs' clock-sync round trips split the same way: 1.8 us .. 1.8 us in the runs "
            "of 130 us, 2.1 us .. 2.1 us in the others") in text
    for record in merged["runs"]:  # round trips that do not split with the modes: no claim
        record["sync_rtt_min_ns"] = 1800.0
    assert "round trips split" not in render_report(Result(merged))


def test_one_state_has_no_modes(sample_doc: dict[str, Any]) -> None:
    outcomes = [
        RunOutcome("bench", "t0", "t1", _run(sample_doc, 130e3 * (1 + 0.002 * i)), None, i)
        for i in range(1, 7)
    ]
    merged = merge_documents(outcomes)
    assert merged is not None
    merged.update(run_summary(merged, seed=3))
    assert "modes" not in merged["run_summary"][0]
    assert "MODES" not in render_report(Result(merged))


def test_raw_samples_in_two_modes_flag_the_point(sample_doc: dict[str, Any]) -> None:
    doc = copy.deepcopy(sample_doc)
    point = doc["points"][0]
    times = normal(130e3, 2e3, 30, 11) + normal(500e3, 5e3, 20, 12) + [9e9]
    point["raw"] = {"time_ns": times, "valid": [True] * 50 + [False]}  # the invalid one is ignored
    text = render_report(Result(doc))
    row = next(line for line in text.splitlines() if "MODES" in line)
    assert "MODES 130 us (30 samples) / 502 us (20)" in row
    assert estimate([Result(doc).points[0]]).flagged
    merged = merge_documents([RunOutcome("bench", "t0", "t1", doc, None, 1)])
    assert merged is not None
    assert [m["count"] for m in merged["points"][0]["modes"]] == [30, 20]


def _check_doc(check_doc: dict[str, Any], medians: list[float]) -> Result:
    doc = copy.deepcopy(check_doc)
    doc["check"]["states"] = {
        "op": "bcast", "method": "barrier-each", "size_bytes": 1 << 20, "gap_seconds": 0.25,
        "runs": [{"at_ns": i * 0.5e9, "median_ns": m, "q25_ns": 0.99 * m, "q75_ns": 1.01 * m,
                  "launches_valid": 16} for i, m in enumerate(medians)],
    }  # fmt: skip
    return Result(doc)


@pytest.fixture
def check_doc() -> dict[str, Any]:
    import json

    from mpiscope_fakes import REPO

    doc: dict[str, Any] = json.loads((REPO / "tests" / "data" / "check-result.json").read_text())
    return doc


def test_check_states_one_state(check_doc: dict[str, Any]) -> None:
    from mpiscope.reports.check import verdict_lines

    result = _check_doc(check_doc, [120e3 * (1 + 0.002 * (i % 3)) for i in range(16)])
    line = verdict_lines(result)[-1]
    assert line.startswith("VERDICT states: trusted: one state, 120 us")
    assert "16 short runs of a 1 MiB bcast over 7.5 s" in line
    assert "states: a 1 MiB bcast (barrier-each) in 16 short runs" in render_report(result)


def test_check_states_two_states_fail(check_doc: dict[str, Any]) -> None:
    from mpiscope.reports.check import verdict_lines

    result = _check_doc(check_doc, [130e3] * 10 + [500e3] * 6)
    line = verdict_lines(result)[-1]
    assert line == (
        "VERDICT states: not trusted: the machine switches between states: MODES 130 us "
        "(10 runs) / 500 us (6) in 16 short runs of a 1 MiB bcast over 7.5 s"
    )
    # runs that measured nothing: not trusted either
    empty = _check_doc(check_doc, [130e3])
    assert verdict_lines(empty)[-1] == (
        "VERDICT states: not trusted: only 1 of 1 short runs measured")
