"""mpiscope compare: ratios, significance, verdicts and exit codes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import mannwhitneyu

from mpiscope.errors import MpiscopeError
from mpiscope.reports.compare import (
    IMPROVEMENT,
    NOT_SIGNIFICANT,
    ONLY_BASE,
    ONLY_NEW,
    REGRESSION,
    compare_results,
    parse_threshold,
    render_comparison,
)
from mpiscope.result import Result, load_result, parse_result
from mpiscope_fakes import run_cli

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def doc(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return data


def as_result(data: dict[str, Any], name: str) -> Result:
    return parse_result(json.dumps(data), path=Path(name))


def scale(point: dict[str, Any], factor: float) -> None:
    for key, value in list(point.items()):
        if key.endswith("_ns") and key != "elapsed_ns" and isinstance(value, (int, float)):
            point[key] = value * factor
    if "raw" in point:
        point["raw"]["time_ns"] = [t * factor for t in point["raw"]["time_ns"]]


@pytest.mark.parametrize(
    ("text", "value"), [("5%", 0.05), ("0.05", 0.05), (" 12.5% ", 0.125), ("0%", 0.0)]
)
def test_threshold_forms(text: str, value: float) -> None:
    assert parse_threshold(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["5", "abc", "-1%", "100%", "nan", "1.5"])
def test_bad_thresholds(text: str) -> None:
    with pytest.raises(MpiscopeError, match="threshold"):
        parse_threshold(text)


def test_regressions_and_improvements_by_interval() -> None:
    comparison = compare_results(
        load_result(GOLDEN / "default.json"), load_result(GOLDEN / "slower.json")
    )
    assert [(p.key[0], p.key[1]) for p in comparison.regressions] == [
        ("allreduce", 65536),
        ("allreduce", 262144),
        ("allreduce", 1048576),
    ]
    assert [(p.key[0], p.key[1]) for p in comparison.improvements] == [("bcast", 1)]
    pair = comparison.regressions[0]
    assert pair.ratio == pytest.approx(1.25)
    assert pair.test == "intervals" and pair.significant
    unchanged = [p for p in comparison.pairs if p.verdict == NOT_SIGNIFICANT]
    assert len(unchanged) == 32
    assert all(p.test == "intervals" and not p.significant for p in unchanged)
    assert comparison.alpha == pytest.approx(0.05)
    text = render_comparison(comparison)
    assert "regressions: allreduce 64 KiB +25.0%, allreduce 256 KiB +25.0%" in text
    assert "improvements: bcast 1 B -20.0%" in text
    assert not text.startswith("WARNING")


def test_the_threshold_decides_what_counts() -> None:
    base, new = load_result(GOLDEN / "default.json"), load_result(GOLDEN / "slower.json")
    assert compare_results(base, new, threshold=0.3).regressions == []
    assert len(compare_results(base, new, threshold=0.24).regressions) == 3


def test_a_result_against_itself_changes_nothing() -> None:
    result = load_result(GOLDEN / "runs.json")
    comparison = compare_results(result, result)
    assert comparison.regressions == [] and comparison.improvements == []
    assert all(p.ratio == 1.0 for p in comparison.pairs)


def test_merged_runs_compare_the_summary() -> None:
    data = doc("runs")
    comparison = compare_results(as_result(data, "a.json"), as_result(data, "b.json"))
    pair = comparison.pairs[0]
    entry = next(e for e in data["run_summary"]
                 if (e["op"], e["size_bytes"], e["nprocs"]) == pair.key[:3])  # fmt: skip
    assert pair.base is not None
    assert pair.base.statistic == "median of the runs' medians"
    assert pair.base.value_ns == entry["median_ns"]
    assert pair.base.runs == 3
    assert pair.base.flagged is entry["disagree"]


def test_rank_test_on_raw_samples() -> None:
    base = load_result(GOLDEN / "raw-a.json")
    new = load_result(GOLDEN / "raw-b.json")
    comparison = compare_results(base, new)
    assert {p.test for p in comparison.pairs} == {"mann-whitney"}
    pair = comparison.pairs[0]
    a = [
        t
        for t, v in zip(
            base.points[0]["raw"]["time_ns"], base.points[0]["raw"]["valid"], strict=True
        )
        if v
    ]
    b = [
        t
        for t, v in zip(new.points[0]["raw"]["time_ns"], new.points[0]["raw"]["valid"], strict=True)
        if v
    ]
    assert pair.p_value == pytest.approx(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    assert pair.significant is (pair.p_value is not None and pair.p_value < 0.05)


def test_rank_test_finds_a_doubling_and_not_a_copy() -> None:
    data = doc("raw-a")
    slower = copy.deepcopy(data)
    for point in slower["points"]:
        scale(point, 2.0)
    base = as_result(data, "base.json")
    doubled = compare_results(base, as_result(slower, "new.json"))
    assert len(doubled.regressions) == len(data["points"])
    assert all(p.p_value is not None and p.p_value < 0.001 for p in doubled.pairs)
    same = compare_results(base, as_result(copy.deepcopy(data), "same.json"))
    assert same.regressions == [] and {p.verdict for p in same.pairs} == {NOT_SIGNIFICANT}


def test_one_side_without_raw_falls_back_to_intervals() -> None:
    data = doc("raw-a")
    plain = copy.deepcopy(data)
    for point in plain["points"]:
        del point["raw"]
    comparison = compare_results(as_result(data, "a.json"), as_result(plain, "b.json"))
    assert {p.test for p in comparison.pairs} == {"intervals"}


def test_points_in_one_document_only_are_listed_not_judged() -> None:
    base = doc("default")
    new = copy.deepcopy(base)
    new["points"] = [p for p in new["points"] if p["op"] != "alltoall"]
    extra = copy.deepcopy(new["points"][0])
    extra["op"] = "gather"
    new["points"].append(extra)
    comparison = compare_results(as_result(base, "a.json"), as_result(new, "b.json"))
    verdicts = [p.verdict for p in comparison.pairs]
    assert verdicts.count(ONLY_BASE) == 11
    assert verdicts.count(ONLY_NEW) == 1
    assert "1 in one document only" not in render_comparison(comparison)
    assert "12 in one document only" in render_comparison(comparison)


def test_different_setups_are_said_loudly_first() -> None:
    base = doc("default")
    new = copy.deepcopy(base)
    new["environment"]["timer"].update(name="monotonic", source="clock_gettime(MONOTONIC_RAW)")
    new["environment"]["mpi_library_version"] = "Open MPI v5.0.5"
    comparison = compare_results(as_result(base, "a.json"), as_result(new, "b.json"))
    lines = render_comparison(comparison).splitlines()
    assert lines[0].startswith("WARNING: different timers: BASE tsc (rdtscp), NEW monotonic")
    assert lines[1].startswith("WARNING: different MPI libraries: BASE MPICH Version: 5.0.2")
    assert "Open MPI v5.0.5" in lines[1]
    assert lines[-1] == "WARNING: 2 difference(s) between the setups (see the top)"
    methods = compare_results(
        load_result(GOLDEN / "default.json"), load_result(GOLDEN / "methods.json")
    )
    assert methods.differences[0].startswith(
        "different timing methods: BASE window, NEW barrier, root, roundtime, window"
    )


def test_method_and_cache_are_part_of_the_match() -> None:
    data = doc("default")
    warm = copy.deepcopy(data)
    for point in warm["points"]:
        point["cache"] = "warm"
        scale(point, 0.5)
    both = copy.deepcopy(data)
    both["points"] += warm["points"]
    comparison = compare_results(as_result(data, "cold.json"), as_result(both, "both.json"))
    assert len(comparison.pairs) == 72
    assert [p.verdict for p in comparison.pairs].count(ONLY_NEW) == 36
    assert comparison.improvements == []  # cold is compared with cold only
    text = render_comparison(comparison)
    assert text.splitlines()[3].split()[:3] == ["op", "size", "cache"]


def test_first_call_records_are_not_compared() -> None:
    data = doc("default")
    other = copy.deepcopy(data)
    other["points"][1].update(
        kind="firstcall",
        first_ns=[9000.0, 9100.0],
        second_ns=[400.0, 410.0],
        ratio_rank0=22.5,
        ratio_max=22.2,
    )
    scale(other["points"][1], 10.0)
    comparison = compare_results(as_result(data, "a.json"), as_result(other, "b.json"))
    assert comparison.regressions == []
    assert [p.verdict for p in comparison.pairs].count(ONLY_BASE) == 1


def test_cli_exit_code_says_whether_there_is_a_regression() -> None:
    run = run_cli(["compare", str(GOLDEN / "default.json"), str(GOLDEN / "slower.json")])
    assert run.code == 1, run.stderr
    assert run.stderr == ""
    assert REGRESSION in run.stdout and IMPROVEMENT in run.stdout
    run = run_cli(["compare", str(GOLDEN / "slower.json"), str(GOLDEN / "default.json")])
    assert run.code == 1  # the other way round: bcast 1 B is 1/0.8 = 25% slower
    assert "regressions: bcast 1 B +25.0%" in run.stdout
    assert "improvements: allreduce 64 KiB -20.0%" in run.stdout
    run = run_cli(["compare", str(GOLDEN / "default.json"), str(GOLDEN / "default.json")])
    assert run.code == 0
    run = run_cli(
        ["compare", str(GOLDEN / "default.json"), str(GOLDEN / "slower.json"), "--threshold", "30%"]
    )
    assert run.code == 0


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    run = run_cli(["compare", str(GOLDEN / "default.json"), str(tmp_path / "none.json")])
    assert run.code == 2 and len(run.err_lines) == 1 and "no such file" in run.stderr
    run = run_cli(
        ["compare", str(GOLDEN / "default.json"), str(GOLDEN / "default.json"), "--threshold", "5"]
    )
    assert run.code == 2 and len(run.err_lines) == 1
    assert "argument --threshold: invalid threshold '5'" in run.err_lines[0]
    assert "(did you mean 5%?)" in run.err_lines[0]


def test_merged_runs_are_judged_on_their_intervals_over_runs() -> None:
    data = doc("runs")
    slower = copy.deepcopy(data)
    # slower by more than any interval is wide: every point a regression
    factor = 2 * max(e["ci_high_ns"] / e["ci_low_ns"] for e in data["run_summary"])
    for entry in slower["run_summary"]:
        for key in ("median_ns", "ci_low_ns", "ci_high_ns"):
            entry[key] *= factor
    comparison = compare_results(as_result(data, "a.json"), as_result(slower, "b.json"))
    assert {p.test for p in comparison.pairs} == {"run intervals"}
    assert len(comparison.regressions) == len(data["run_summary"])
    assert "judged on single runs" not in render_comparison(comparison)
    single = compare_results(
        load_result(GOLDEN / "default.json"), load_result(GOLDEN / "slower.json")
    )
    assert "note: 36 point(s) were judged on single runs" in render_comparison(single)
