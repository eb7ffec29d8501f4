"""Honest intervals: the run-to-run estimator, the run profile, a
single run folding it in, and what the report says about the two intervals."""

from __future__ import annotations

import copy
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from mpiscope.measure.run_profile import (
    ENV_VAR,
    default_profile_path,
    fold_profile,
    profile_key,
    profile_path,
    read_profile,
    record_runs,
)
from mpiscope.measure.runs import RunOutcome, merge_documents, run_summary
from mpiscope.reports.report import render_report
from mpiscope.result import Result, validate_result
from mpiscope.result.run_variation import between_runs, run_interval
from mpiscope.result.student import two_sided_t
from mpiscope_fakes import FakeMpi, run_cli
from real_bench import mpiscope, read

# --- the t coefficient -----------------------------------------------------------------


def test_two_sided_t_matches_known_values() -> None:
    assert two_sided_t(0.95, 1) == pytest.approx(12.706204736, rel=1e-9)
    assert two_sided_t(0.95, 4) == pytest.approx(2.776445105, rel=1e-9)
    assert two_sided_t(0.99, 7) == pytest.approx(3.499483297, rel=1e-9)
    assert two_sided_t(0.90, 30) == pytest.approx(1.697260887, rel=1e-9)


def test_two_sided_t_against_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 5, 8, 13, 99, 400):
        for p in (0.8, 0.95, 0.999):
            assert two_sided_t(p, df) == pytest.approx(stats.t.ppf(0.5 + p / 2, df), rel=1e-9)


def test_two_sided_t_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        two_sided_t(1.0, 3)
    with pytest.raises(ValueError):
        two_sided_t(0.95, 0)


# --- the estimator ---------------------------------------------------------------------


def synthetic(k: int, tau: float, rse: float, seed: int) -> tuple[list[float], list[float]]:
    """k runs: log center = log 1000 + N(0, tau) + N(0, rse); se = rse * center."""
    rng = random.Random(seed)
    centers = [1000 * math.exp(rng.gauss(0, tau) + rng.gauss(0, rse)) for _ in range(k)]
    return centers, [rse * c for c in centers]


def test_the_between_launch_variance_is_recovered() -> None:
    centers, se = synthetic(4000, tau=0.05, rse=0.02, seed=1)
    est = between_runs(centers, se)
    assert est is not None and est.runs == 4000
    assert est.within_var == pytest.approx(0.02**2, rel=1e-9)
    assert est.rsd == pytest.approx(0.05, rel=0.05)
    assert est.observed_var == pytest.approx(0.05**2 + 0.02**2, rel=0.1)


def test_the_estimate_is_unbiased_over_many_small_calibrations() -> None:
    """tau^2 from 5 runs, averaged over many calibrations, is tau^2
    (before the floor, HE is unbiased; the floor only adds)."""
    raw = []
    for seed in range(3000):
        est = between_runs(*synthetic(5, tau=0.04, rse=0.01, seed=seed))
        assert est is not None
        raw.append(est.observed_var - est.within_var)
    assert sum(raw) / len(raw) == pytest.approx(0.04**2, rel=0.08)


def test_no_between_variation_floors_at_zero() -> None:
    # the runs vary exactly as their own errors say: nothing beyond
    centers, se = synthetic(3000, tau=0.0, rse=0.03, seed=2)
    est = between_runs(centers, se)
    assert est is not None and est.rsd < 0.01
    # identical centers with errors: the estimate is negative, floored at 0
    est = between_runs([500.0, 500.0, 500.0], [5.0, 5.0, 5.0])
    assert est is not None and est.rsd == 0.0 and est.observed_var == pytest.approx(0, abs=1e-20)


def test_too_few_launches_give_no_estimate() -> None:
    assert between_runs([100.0, 120.0], [1.0, 1.0]) is None
    assert between_runs([100.0, 120.0, 130.0], [1.0, None, 1.0]) is None  # two usable
    assert between_runs([100.0, 0.0, 130.0, 90.0], [1.0, 1.0, 1.0, 1.0]) is not None


def test_the_launch_interval() -> None:
    # no between part: the within-run interval, t at n_s - 1
    only = run_interval(1000.0, 10.0, 21, 0.0, 5, 0.95)
    assert only is not None and only.df == 20
    assert only.error_ns == pytest.approx(two_sided_t(0.95, 20) * 10.0)
    # no within error: t at K - 1 times tau * mean
    between = run_interval(1000.0, 0.0, 21, 0.04, 5, 0.95)
    assert between is not None and between.df == 4
    assert between.error_ns == pytest.approx(two_sided_t(0.95, 4) * 40.0)
    assert (between.low_ns, between.high_ns) == pytest.approx((1000 - 111.0578, 1000 + 111.0578))
    # both: wider than either, df between
    both = run_interval(1000.0, 10.0, 21, 0.04, 5, 0.95)
    assert both is not None and 4 <= both.df <= 24
    assert both.error_ns > max(only.error_ns, between.error_ns * 0.99)
    assert run_interval(None, 1.0, 21, 0.04, 5, 0.95) is None
    assert run_interval(1000.0, 10.0, 21, 0.04, 2, 0.95) is None


def reference_error(mean: float, se: float, n: int, rsd: float, k: int, conf: float) -> float:
    """E' computed independently of run_interval (scipy's t): sqrt of the
    within and between variances, Welch-Satterthwaite whole df (floor)."""
    from scipy import stats

    within, between = se**2, (rsd * mean) ** 2
    df = math.floor((within + between) ** 2 / (within**2 / (n - 1) + between**2 / (k - 1)))
    return float(stats.t.ppf(0.5 + conf / 2, min(df, n - 1 + k - 1))) * math.sqrt(within + between)


# --- the profile -----------------------------------------------------------------------


def merged(sample_doc: dict[str, Any], factors: list[float]) -> dict[str, Any]:
    """A --runs document: one run of the sample per factor (times scaled)."""
    outcomes = []
    for i, factor in enumerate(factors):
        doc = copy.deepcopy(sample_doc)
        for p in doc["points"]:
            for key in ("mean_ns", "median_ns", "q25_ns", "q75_ns", "se_ns", "error_ns",
                        "ci_low_ns", "ci_high_ns"):
                p[key] *= factor
        outcomes.append(RunOutcome("cmd", "t0", "t1", doc, None, i + 1))
    out = merge_documents(outcomes)
    assert out is not None
    out.update(run_summary(out, seed=1, resamples=50))
    return out


def test_paths_option_env_default_and_off(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path)}
    default = profile_path(None, env)
    assert default == default_profile_path(env)
    assert default is not None and default.parent == tmp_path / "mpiscope"
    assert default.name.startswith("run-variation-") and default.suffix == ".json"
    assert profile_path(None, {**env, ENV_VAR: str(tmp_path / "p.json")}) == tmp_path / "p.json"
    assert profile_path("mine.json", {**env, ENV_VAR: "off"}) == Path("mine.json")
    assert profile_path(None, {**env, ENV_VAR: "off"}) is None
    assert profile_path("OFF", env) is None


def test_record_then_fold_round_trip(sample_doc: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "state" / "profile.json"
    doc = merged(sample_doc, [1.0, 1.1, 0.9, 1.05])
    record_runs(doc, path, tmp_path / "l.json")
    assert doc["run_profile"] == {"path": str(path), "action": "recorded", "points": 1}
    validate_result(doc)
    profile = read_profile(path)
    assert profile.problem is None
    (entry,) = profile.entries.values()
    logs = [math.log(812.4 * f) for f in (1.0, 1.1, 0.9, 1.05)]
    mean = sum(logs) / 4
    observed = sum((x - mean) ** 2 for x in logs) / 3
    within = (5.0 / 812.4) ** 2
    assert entry["between_rsd"] == pytest.approx(math.sqrt(observed - within))
    assert entry["runs"] == 4 and entry["document"] == str((tmp_path / "l.json").resolve())
    assert entry["key"]["op"] == "bcast"
    assert entry["key"]["hosts"] == sample_doc["environment"]["hosts"]
    assert doc["run_summary"][0]["between_rsd"] == pytest.approx(entry["between_rsd"])

    single = copy.deepcopy(sample_doc)
    assert fold_profile(single, path)
    interval = single["points"][0]["run_interval"]
    expected = reference_error(812.4, 5.0, 16, entry["between_rsd"], 4, 0.95)
    assert interval["error_ns"] == pytest.approx(expected)
    assert interval["low_ns"] < single["points"][0]["ci_low_ns"]  # wider than within-run
    assert single["points"][0]["ci_low_ns"] == sample_doc["points"][0]["ci_low_ns"]  # kept
    assert single["run_profile"]["action"] == "used"
    assert tuple(map(int, single["schema_version"].split("."))) >= (1, 5)  # run_interval
    validate_result(single)


def test_the_key_is_exact(sample_doc: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "profile.json"
    record_runs(merged(sample_doc, [1.0, 1.2, 0.8]), path, tmp_path / "l.json")
    for change in (
        lambda d: d["points"][0].update(size_bytes=2048),
        lambda d: d["points"][0].update(nprocs=4),
        lambda d: d["points"][0].update(cache="warm"),
        lambda d: d["environment"].update(hosts=["node2"]),
        lambda d: d["environment"].update(mpi_library_version="MPICH Version: 4.2.0"),
    ):
        other = copy.deepcopy(sample_doc)
        change(other)
        assert profile_key(other, other["points"][0]) != profile_key(
            sample_doc, sample_doc["points"][0]
        )
        assert fold_profile(other, path) is False
        assert "run_interval" not in other["points"][0]
    same = copy.deepcopy(sample_doc)
    same["environment"]["mpi_library_version"] += "\nother lines that do not matter"
    assert fold_profile(same, path) is True


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        '{"kind": "something else", "version": 1, "entries": []}',
        '{"kind": "mpiscope-run-variation", "version": 1, "entries": [{"key": {}}]}',
        '{"kind": "mpiscope-run-variation", "version": 9, "entries": []}',
        '{"kind": "mpiscope-run-variation", "version": 1, "entries": [{"key": {}, '
        '"between_rsd": NaN, "runs": 5, "measured_utc": "", "disagree": false}]}',
        "[]",
    ],
)
def test_a_damaged_profile_is_one_warning(
    sample_doc: dict[str, Any], tmp_path: Path, text: str
) -> None:
    path = tmp_path / "profile.json"
    path.write_text(text)
    assert read_profile(path).problem is not None
    single = copy.deepcopy(sample_doc)
    assert fold_profile(single, path)
    (warning,) = [w for w in single["warnings"] if "run profile" in w]
    assert warning.startswith(f"run profile {path} ") and warning.endswith(": ignored")
    assert "\n" not in warning and "run_interval" not in single["points"][0]
    # recording replaces it, and says so
    doc = merged(sample_doc, [1.0, 1.2, 0.8])
    record_runs(doc, path, tmp_path / "l.json")
    assert read_profile(path).problem is None and len(read_profile(path).entries) == 1
    assert any("replaced by this run's entries" in w for w in doc["warnings"])


def test_a_missing_profile_changes_nothing(sample_doc: dict[str, Any], tmp_path: Path) -> None:
    single = copy.deepcopy(sample_doc)
    assert fold_profile(single, tmp_path / "none.json") is False
    assert single == sample_doc


def test_states_between_launches_are_carried_and_said(
    sample_doc: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "profile.json"
    doc = merged(sample_doc, [1.0, 1.0, 4.0, 4.0])  # two states: the runs disagree
    assert doc["run_summary"][0]["disagree_reasons"] == ["spread", "modes"]
    record_runs(doc, path, tmp_path / "l.json")
    single = copy.deepcopy(sample_doc)
    assert fold_profile(single, path)
    interval = single["points"][0]["run_interval"]
    assert interval["disagree"] is True
    assert [m["count"] for m in interval["modes"]] == [2, 2]
    validate_result(single)
    text = render_report(Result(single))
    assert ("STATES between runs: MODES 810 ns (2 runs) / 3.24 us (2); "
            "this run: the 810 ns state") in text
    assert "this machine was seen in separate states between runs" in text


# --- the report ------------------------------------------------------------------------


def test_the_report_says_which_interval_is_which(
    sample_doc: dict[str, Any], tmp_path: Path
) -> None:
    plain = render_report(Result(sample_doc))
    assert "within-run only: no run-to-run part measured on this machine" in plain
    assert "--runs 5" in plain and "E'" not in plain.split("\n\n")[1]
    path = tmp_path / "profile.json"
    record_runs(merged(sample_doc, [1.0, 1.1, 0.9]), path, tmp_path / "l.json")
    single = copy.deepcopy(sample_doc)
    fold_profile(single, path)
    text = render_report(Result(single))
    assert "within-run only" not in text
    (line,) = [x for x in text.splitlines() if x.startswith("E': ")]
    rsd = single["points"][0]["run_interval"]["between_rsd"]
    assert f"±{100 * rsd:.3g}%" in line
    when = sample_doc["environment"]["start_time_utc"][:16].replace("T", " ")
    assert f"measured by `run --runs 3` on {when} UTC" in line
    assert f"(profile {path})" in line
    header = next(x for x in text.splitlines() if x.startswith("op "))
    assert "± E'" in header and "runs ±" in header


# --- end to end ------------------------------------------------------------------------


def test_run_records_then_a_single_run_folds(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    path = tmp_path / "my-profile.json"
    env = dict(fake_mpi.env, FAKE_BENCH_SCALES="1,1.1,0.9,1.05")
    run = run_cli(["run", "bcast", "--sizes", "8,1K", "--runs", "4", "--quiet",
                   "--run-profile", str(path), "--out", "l.json"], env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    assert f"run-to-run part of 2 point(s) recorded in {path}" in run.stdout
    assert len(read_profile(path).entries) == 2
    # the environment variable names it too; a size it has not measured: within-run only
    env = dict(fake_mpi.env, **{ENV_VAR: str(path)})
    run = run_cli(["run", "bcast", "--sizes", "8,1K,4K", "--quiet", "--out", "one.json"],
                  env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    doc = json.loads((tmp_path / "one.json").read_text())
    with_interval = {p["size_bytes"] for p in doc["points"] if p.get("run_interval")}
    assert with_interval == {8, 1024}
    assert doc["run_profile"]["points_without"] == 1
    assert "measured by `run --runs 4`" in run.stdout
    assert "no run-to-run part measured on this machine for 1 point(s)" in run.stdout
    # off: neither used nor recorded
    run = run_cli(["run", "bcast", "--sizes", "8", "--quiet", "--run-profile", "off",
                   "--out", "off.json"], env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    assert "run_interval" not in json.loads((tmp_path / "off.json").read_text())["points"][0]


def test_a_damaged_profile_does_not_stop_a_run(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("\x00garbage")
    run = run_cli(["run", "bcast", "--sizes", "8", "--quiet", "--run-profile", str(path),
                   "--out", "r.json"], fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    assert "Traceback" not in run.stderr
    assert f"run profile {path} is damaged" in run.stdout


def test_two_launches_say_they_record_nothing(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    run = run_cli(["run", "bcast", "--sizes", "8", "--runs", "2", "--quiet",
                   "--run-profile", str(path), "--out", "two.json"], fake_mpi.env,
                  tmp_path)  # fmt: skip
    assert run.code == 0, run
    assert "--runs 2 is too few to measure the run-to-run part" in run.stdout
    assert not path.exists()


@pytest.mark.mpi
def test_a_real_run_folds_a_handwritten_entry(tmp_path: Path) -> None:
    """The real bench: a first run gives the point's key; a profile entry
    written by hand for it (tau 10%, 5 runs) is folded into the next."""
    first = mpiscope("run", "bcast", "--np", "2", "--sizes", "1K", "--run-profile", "off",
                     "--out", "a.json", cwd=tmp_path)  # fmt: skip
    assert first.returncode == 0, first.stderr
    doc = read(tmp_path / "a.json")
    key = profile_key(doc, doc["points"][0])
    path = tmp_path / "hand.json"
    path.write_text(json.dumps({"kind": "mpiscope-run-variation", "version": 1, "entries": [
        {"key": key, "between_rsd": 0.1, "runs": 5, "measured_utc": "2026-11-24T08:00:00Z",
         "disagree": False}]}))  # fmt: skip
    second = mpiscope("run", "bcast", "--np", "2", "--sizes", "1K", "--run-profile", str(path),
                      "--out", "b.json", cwd=tmp_path)  # fmt: skip
    assert second.returncode == 0, second.stderr
    point = read(tmp_path / "b.json")["points"][0]
    interval = point["run_interval"]
    expected = reference_error(point["mean_ns"], point["se_ns"], point["samples_used"], 0.1, 5,
                               point["confidence"])  # fmt: skip
    assert interval["error_ns"] == pytest.approx(expected)
    assert interval["error_ns"] > point["error_ns"]  # the engine's own interval is kept
    assert "measured by `run --runs 5` on 2026-11-24 08:00 UTC" in second.stdout


def test_compare_judges_two_single_launches_on_e_prime(
    sample_doc: dict[str, Any], tmp_path: Path
) -> None:
    """Two runs 8% apart: their within-run intervals are apart (a
    regression), their E' (tau 10%) overlap (not significant)."""
    from mpiscope.reports.compare import compare_results

    path = tmp_path / "profile.json"
    record_runs(merged(sample_doc, [1.0, 1.1, 0.9, 1.12, 0.88]), path, tmp_path / "l.json")
    base, new = copy.deepcopy(sample_doc), merged(sample_doc, [1.08])
    new.pop("runs")
    new["points"][0].pop("run")
    plain = compare_results(Result(base), Result(new), 0.05)
    assert [p.test for p in plain.pairs] == ["intervals"] and plain.regressions
    assert fold_profile(base, path) and fold_profile(new, path)
    folded = compare_results(Result(base), Result(new), 0.05)
    assert [p.test for p in folded.pairs] == ["profile intervals"]
    assert not folded.regressions and not folded.pairs[0].significant
