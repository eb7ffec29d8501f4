"""The noise criteria on synthetic samples of known shift (no MPI)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mpiscope.errors import MpiscopeError
from mpiscope.noise.criteria import compare_samples, format_verdict, samples_of

# Student t quantile t(0.995, 4 degrees of freedom), from a printed table.
T_995_4 = 4.604094


def compare(baseline, test, **kwargs):
    return compare_samples(baseline, test, baseline_source="base", test_source="test", **kwargs)


def test_five_percent_slowdown_with_30_samples_is_detected() -> None:
    rng = np.random.default_rng(12345)
    baseline = rng.normal(10.0, 0.1, 30)
    test = rng.normal(10.5, 0.1, 30)
    verdict = compare(baseline, test)
    crit = verdict["criteria"]
    assert crit["ci_overlap"]["detected"] and crit["ci_overlap"]["boundary_gap"] > 0
    assert crit["mann_whitney"]["detected"]
    assert "ci_overlap" in verdict["fired"] and "mann_whitney" in verdict["fired"]
    assert verdict["detected"] is True
    assert verdict["mean_difference"] == pytest.approx(0.05, abs=0.01)
    assert crit["quantile_shift"]["p50"] == pytest.approx(0.05, abs=0.01)


@pytest.mark.parametrize("seed", range(10))
def test_identical_distributions_are_not_detected_by_ci_overlap(seed: int) -> None:
    rng = np.random.default_rng(seed)
    verdict = compare(rng.normal(10.0, 0.1, 30), rng.normal(10.0, 0.1, 30))
    assert verdict["criteria"]["ci_overlap"]["detected"] is False
    assert verdict["criteria"]["ci_overlap"]["boundary_gap"] < 0


def test_the_same_sample_detects_nothing() -> None:
    sample = np.random.default_rng(7).normal(2.0, 0.05, 40)
    verdict = compare(sample, sample)
    assert verdict["fired"] == [] and verdict["detected"] is False
    assert verdict["mean_difference"] == 0
    assert verdict["criteria"]["quantile_shift"] == {"p50": 0.0, "p90": 0.0, "p99": 0.0}


def test_a_few_large_outliers_trip_iqr_outliers() -> None:
    rng = np.random.default_rng(3)
    baseline = rng.normal(1.0, 0.01, 200)
    test = rng.normal(1.0, 0.01, 30)
    test[[2, 11, 19, 27]] = [1.5, 1.6, 1.7, 1.8]
    crit = compare(baseline, test)["criteria"]
    iq = crit["iqr_outliers"]
    assert iq["count"] == 4 and iq["share"] == pytest.approx(4 / 30)
    assert iq["detected"] and iq["p_value"] < 0.01
    # The bulk did not move: the CI gap stays negative, outliers or not.
    assert crit["mann_whitney"]["detected"] is False


def test_iqr_outliers_compares_with_the_baseline_share_by_fisher() -> None:
    baseline = [*np.linspace(0.9, 1.1, 30), 2.0, 2.1, 2.2]  # 3 of 33 above the fence
    test = [*np.linspace(0.9, 1.1, 27), 2.0, 2.1, 2.2]  # about the same share: nothing to see
    iq = compare(baseline, test)["criteria"]["iqr_outliers"]
    assert iq["count"] == 3 and iq["baseline_count"] == 3
    expected = stats.fisher_exact([[3, 27], [3, 30]], alternative="greater").pvalue
    assert iq["p_value"] == pytest.approx(expected, rel=1e-12)
    assert iq["detected"] is False


def test_mann_whitney_matches_scipy() -> None:
    rng = np.random.default_rng(99)
    baseline = rng.lognormal(0.0, 0.1, 25)
    test = rng.lognormal(0.03, 0.1, 35)
    mw = compare(baseline, test)["criteria"]["mann_whitney"]
    expected = stats.mannwhitneyu(test, baseline, alternative="greater")
    assert mw["u"] == expected.statistic
    assert mw["p_value"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert mw["detected"] == bool(expected.pvalue < 0.01)


def test_fences_gap_and_shifts_by_hand() -> None:
    baseline = [10.0, 11.0, 12.0, 13.0, 14.0]  # median 12, Q25 11, Q75 13, IQR 2
    test = [12.0, 13.0, 17.0, 20.0, 7.0]
    verdict = compare(baseline, test)
    crit = verdict["criteria"]
    iq = crit["iqr_outliers"]
    assert iq["fences"] == pytest.approx([8 / 12, 16 / 12])
    assert (iq["count"], iq["below_count"], iq["baseline_count"]) == (2, 1, 0)
    assert iq["share"] == pytest.approx(0.4) and iq["below_share"] == pytest.approx(0.2)
    # 99% CI of the mean: mean +- t(0.995, 4) * s / sqrt(5).
    base_hi = 12 + T_995_4 * math.sqrt(2.5) / math.sqrt(5)
    test_lo = 13.8 - T_995_4 * math.sqrt(98.8 / 4) / math.sqrt(5)
    ci = crit["ci_overlap"]
    assert ci["baseline_ci"][1] == pytest.approx(base_hi / 12, rel=1e-6)
    assert ci["test_ci"][0] == pytest.approx(test_lo / 12, rel=1e-6)
    assert ci["boundary_gap"] == pytest.approx((test_lo - base_hi) / 12, rel=1e-6)
    assert verdict["mean_difference"] == pytest.approx(1.8 / 12)
    assert crit["quantile_shift"]["p50"] == pytest.approx(1 / 12)
    assert verdict["baseline"] == {"source": "base", "n": 5, "median_s": 12.0, "mean_s": 12.0}
    assert verdict["normalised_to"] == "baseline median"


def test_a_speedup_is_not_a_detection_but_shows_in_speedup_gap() -> None:
    rng = np.random.default_rng(5)
    verdict = compare(rng.normal(10.0, 0.1, 30), rng.normal(9.5, 0.1, 30))
    ci = verdict["criteria"]["ci_overlap"]
    assert ci["boundary_gap"] < 0 and ci["speedup_gap"] > 0
    assert verdict["fired"] == [] and verdict["detected"] is False
    assert verdict["criteria"]["iqr_outliers"]["below_count"] > 0


def test_confidence_changes_the_interval() -> None:
    rng = np.random.default_rng(11)
    baseline, test = rng.normal(1, 0.1, 20), rng.normal(1.05, 0.1, 20)
    wide = compare(baseline, test, confidence=0.99)["criteria"]["ci_overlap"]
    narrow = compare(baseline, test, confidence=0.90)["criteria"]["ci_overlap"]
    assert narrow["boundary_gap"] > wide["boundary_gap"]
    assert narrow["confidence"] == 0.90


@pytest.mark.parametrize(
    ("baseline", "test", "words"),
    [
        ([1.0, 2.0], [1.0, 2.0, 3.0], "at least 3"),
        ([1.0, 2.0, float("nan")], [1.0, 2.0, 3.0], "non-finite"),
        ([1.0, 2.0, 3.0], [1.0, float("inf"), 3.0], "non-finite"),
        ([-1.0, 0.0, 1.0], [1.0, 2.0, 3.0], "non-positive median"),
        ([1.0, 2.0, 3.0], [-3.0, -2.0, 1.0], "non-positive median"),
        (["a", "b", "c"], [1.0, 2.0, 3.0], "not a list of numbers"),
    ],
)
def test_bad_samples_are_refused_in_one_line(baseline, test, words) -> None:
    with pytest.raises(MpiscopeError) as info:
        compare(baseline, test)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_bad_confidence_is_refused() -> None:
    with pytest.raises(MpiscopeError, match="confidence"):
        compare([1, 2, 3], [1, 2, 3], confidence=99)


def _run(design: str, agents: list) -> dict:
    return {
        "kind": "noise-run",
        "design": design,
        "packets": [
            {"index": i, "block": i // 2, "agent": a, "seconds": 1.0 + i}
            for i, a in enumerate(agents)
        ],
    }


def test_samples_of_separate_and_alternating_runs() -> None:
    assert samples_of(_run("separate", [None] * 3)) == {"all": [1.0, 2.0, 3.0]}
    split = samples_of(_run("alternate", [False, False, True, True, False]))
    assert split == {"baseline": [1.0, 2.0, 5.0], "agent": [3.0, 4.0]}


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        (_run("alternate", [False, None]), "agent None"),
        (_run("both", [None]), "design"),
        ({"kind": "noise-verdict"}, "expected a noise-run"),
        ({"kind": "noise-run", "design": "separate", "packets": [{"index": 0}]}, "seconds"),
    ],
)
def test_samples_of_refuses_bad_runs(doc, words) -> None:
    with pytest.raises(MpiscopeError, match=words):
        samples_of(doc)


def test_format_verdict_is_an_aligned_table_with_a_verdict_line() -> None:
    rng = np.random.default_rng(12345)
    text = format_verdict(compare(rng.normal(10.0, 0.1, 30), rng.normal(10.5, 0.1, 30)))
    lines = text.splitlines()
    table = [
        line
        for line in lines
        if line.split(" ")[0]
        in ("criterion", "ci_overlap", "iqr_outliers", "mann_whitney", "quantile_shift")
    ]
    assert len(table) == 5
    columns = {
        line.index(word)
        for line, word in zip(table, ["value", "gap", "", "U=", "p50"], strict=True)
        if word
    }
    assert len(columns) == 1  # the value column starts at the same place on every line
    assert table[1].endswith("yes") and table[3].endswith("yes")
    assert lines[-1] == "verdict: slowdown detected by ci_overlap, iqr_outliers, mann_whitney"
    same = np.ones(10) + np.arange(10) * 0.01
    quiet = format_verdict(compare(same, same)).splitlines()
    # Two unpaired samples: the limit from the two-sample Hodges-Lehmann interval.
    assert quiet[-1].startswith("verdict: no slowdown detected (no criterion fired): none above ")
    assert quiet[-2].startswith("limit: no slowdown above ")
    assert "unpaired samples (Mann-Whitney)" in quiet[-2]
