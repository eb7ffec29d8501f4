"""mpiscope.result.stats on fixed data, checked against scipy where scipy has the same
computation, and against hand-worked values where it does not."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from mpiscope.result.stats import (
    DISAGREE_MIN_CV,
    IQR_PER_SIGMA,
    RunStats,
    bootstrap_median_ci,
    cv,
    disagreement,
    median,
    robust_cv,
    run_groups,
    summarize_runs,
)

# Ten run medians (us) of a 1 MiB Bcast that agree, and ten that do not
# (the issue's 54..649 us spread).
AGREEING = [101.0, 99.5, 100.2, 102.3, 98.7, 100.9, 99.8, 101.4, 100.1, 99.2]
SPREAD = [54.0, 61.0, 120.0, 649.0, 75.0, 300.0, 58.0, 410.0, 95.0, 66.0]


@pytest.mark.parametrize("values", [AGREEING, SPREAD, [3.0, 1.0], [5.0, 5.0, 5.0, 9.0]])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("seed", [0, 12345])
def test_bootstrap_ci_is_scipys_percentile_bootstrap(
    values: list[float], confidence: float, seed: int
) -> None:
    ours = bootstrap_median_ci(values, confidence, resamples=2000, seed=seed)
    theirs = scipy.stats.bootstrap(
        (np.asarray(values),),
        np.median,
        n_resamples=2000,
        method="percentile",
        confidence_level=confidence,
        rng=np.random.default_rng(seed),
    ).confidence_interval
    assert ours is not None
    assert ours == pytest.approx((theirs.low, theirs.high), rel=1e-12)


def test_bootstrap_ci_contains_the_median_and_narrows_with_confidence() -> None:
    ci90 = bootstrap_median_ci(SPREAD, 0.90, seed=7)
    ci99 = bootstrap_median_ci(SPREAD, 0.99, seed=7)
    assert ci90 is not None and ci99 is not None
    assert ci99[0] <= ci90[0] <= median(SPREAD) <= ci90[1] <= ci99[1]  # type: ignore[operator]


def test_bootstrap_ci_is_deterministic_and_needs_two_values() -> None:
    assert bootstrap_median_ci(SPREAD, 0.95, seed=3) == bootstrap_median_ci(SPREAD, 0.95, seed=3)
    assert bootstrap_median_ci([42.0], 0.95) is None
    assert bootstrap_median_ci([], 0.95) is None
    assert bootstrap_median_ci([7.0, 7.0, 7.0], 0.95) == (7.0, 7.0)
    with pytest.raises(ValueError):
        bootstrap_median_ci(SPREAD, 1.0)
    with pytest.raises(ValueError):
        bootstrap_median_ci(SPREAD, 0.95, resamples=0)


@pytest.mark.parametrize("values", [AGREEING, SPREAD, [1.0, 3.0], [2.0, 2.0, 2.0]])
def test_cv_is_scipys_variation_with_ddof_1(values: list[float]) -> None:
    assert cv(values) == pytest.approx(scipy.stats.variation(values, ddof=1), rel=1e-12, abs=0)


def test_cv_edge_cases() -> None:
    assert cv([5.0]) is None
    assert cv([]) is None
    assert cv([-1.0, 1.0]) is None  # mean zero
    assert cv([1.0, 3.0]) == pytest.approx(2**0.5 / 2)


def test_median() -> None:
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert median([]) is None


def test_iqr_per_sigma_is_the_normal_iqr() -> None:
    assert IQR_PER_SIGMA == pytest.approx(2 * scipy.stats.norm.ppf(0.75), rel=1e-15)
    # with a normal distribution's quartiles, robust_cv is sigma / mu
    q25, q50, q75 = scipy.stats.norm.ppf([0.25, 0.5, 0.75], loc=100, scale=5)
    assert robust_cv(q50, q25, q75) == pytest.approx(0.05, rel=1e-12)


def test_robust_cv_needs_everything() -> None:
    assert robust_cv(100.0, 90.0, 110.0) == pytest.approx(20 / IQR_PER_SIGMA / 100)
    assert robust_cv(None, 90.0, 110.0) is None
    assert robust_cv(100.0, None, 110.0) is None
    assert robust_cv(0.0, 0.0, 0.0) is None


def stats_of(*triples: tuple[float, float, float]) -> list[RunStats]:
    return [RunStats(m, lo, hi) for lo, m, hi in triples]


def test_groups_of_overlapping_interquartile_ranges() -> None:
    five = stats_of(
        (95, 100, 105), (290, 300, 310), (101, 103, 108), (305, 315, 320), (150, 160, 170)
    )
    assert run_groups(five) == [[0, 2], [4], [1, 3]]
    # a wide run joins what it overlaps, even through another run
    assert run_groups(stats_of((10, 11, 12), (11.5, 20, 30), (29, 40, 41))) == [[0, 1, 2]]
    # touching ends overlap
    assert run_groups(stats_of((1, 2, 3), (3, 4, 5))) == [[0, 1]]
    # no quartiles: the median alone
    assert run_groups([RunStats(5.0), RunStats(5.0), RunStats(6.0)]) == [[0, 1], [2]]
    assert run_groups([]) == []


def test_groups_separate_known_bimodal_data_not_unimodal_data() -> None:
    rng = np.random.default_rng(2024)  # fixed data: the draws never change

    def draw(centers: list[float]) -> list[RunStats]:
        out = []
        for center in centers:
            sample = rng.normal(center, 0.03 * center, 200)
            q25, q50, q75 = np.quantile(sample, [0.25, 0.5, 0.75])
            out.append(RunStats(float(q50), float(q25), float(q75)))
        return out

    unimodal = draw([100.0] * 10)
    bimodal = draw([100.0] * 5 + [300.0] * 5)
    assert len(run_groups(unimodal)) == 1
    assert sorted(len(g) for g in run_groups(bimodal)) == [5, 5]
    assert summarize_runs(unimodal, 0.95).disagree is False
    result = summarize_runs(bimodal, 0.95)
    assert result.disagree is True and "modes" in result.disagree_reasons


def test_disagreement_rule() -> None:
    two_groups = [[0, 1], [2, 3]]
    one_group = [[0, 1, 2, 3]]
    # below the practical floor nothing disagrees
    assert disagreement(DISAGREE_MIN_CV, 0.001, two_groups) == []
    assert disagreement(None, 0.01, two_groups) == []
    assert disagreement(0.3, 0.1, one_group) == ["spread"]
    assert disagreement(0.2, 0.1, one_group) == []  # exactly 2x is not beyond
    assert disagreement(0.3, 0.2, two_groups) == ["modes"]
    assert disagreement(0.3, 0.01, two_groups) == ["spread", "modes"]
    assert disagreement(0.3, None, one_group) == []
    assert disagreement(0.3, 0.2, [[0, 1], [2], [3]]) == []  # one outlier is not a mode


def test_summary_of_agreeing_runs() -> None:
    runs = [RunStats(m, m * 0.97, m * 1.03) for m in AGREEING]
    s = summarize_runs(runs, 0.95, seed=1, resamples=2000)
    assert s.runs == 10
    assert s.median_ns == pytest.approx(np.median(AGREEING))
    assert s.between_cv == pytest.approx(scipy.stats.variation(AGREEING, ddof=1))
    assert s.within_cv == pytest.approx(0.06 / IQR_PER_SIGMA)
    ci = bootstrap_median_ci(AGREEING, 0.95, resamples=2000, seed=1)
    assert (s.ci_low_ns, s.ci_high_ns) == ci
    assert s.groups == 1 and s.disagree is False and s.disagree_reasons == ()


def test_summary_of_the_issues_spread() -> None:
    runs = [RunStats(m, m * 0.98, m * 1.02) for m in SPREAD]
    s = summarize_runs(runs, 0.95)
    assert s.between_cv is not None and s.between_cv > 1  # 54..649 us
    assert s.disagree is True and s.disagree_reasons[0] == "spread"


def test_summary_of_one_run() -> None:
    s = summarize_runs([RunStats(10.0, 9.0, 11.0)], 0.95)
    assert (s.runs, s.median_ns, s.ci_low_ns, s.between_cv) == (1, 10.0, None, None)
    assert s.within_cv == pytest.approx(2 / IQR_PER_SIGMA / 10)
    assert s.disagree is False
