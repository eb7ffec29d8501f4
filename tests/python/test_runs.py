"""``mpiscope run --runs R``: merging runs into one document, the run
summary, and what a failing run leaves."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.measure.runs import RunOutcome, merge_documents, run_seeds, run_summary
from mpiscope.reports.report import render_report
from mpiscope.result import Result, load_result, validate_result
from mpiscope.result.run_variation import SUMMARY_KEYS, summary_key
from mpiscope.result.stats import IQR_PER_SIGMA, bootstrap_median_ci, cv
from mpiscope_fakes import REPO, FakeMpi, run_cli
from real_bench import mpiscope, read

REAL_DEFAULT = REPO / "results" / "default.json"


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("  ") if cell.strip()]


def scaled(doc: dict[str, Any], factor: float, **env: Any) -> dict[str, Any]:
    """A copy of ``doc`` with every point's times multiplied by ``factor``."""
    out = copy.deepcopy(doc)
    for p in out["points"]:
        for key in ("median_ns", "q25_ns", "q75_ns", "mean_ns"):
            if p.get(key) is not None:
                p[key] *= factor
    out["environment"].update(env)
    return out


def outcome(doc: dict[str, Any] | None, error: str | None = None, seed: int = 1) -> RunOutcome:
    return RunOutcome(f"mpiexec -n 2 bench --shuffle {seed}", "2026-11-22T10:00:00Z",
                         "2026-11-22T10:00:09Z", doc, error, seed)  # fmt: skip


@pytest.fixture
def real_doc() -> dict[str, Any]:
    """A real result of the default suite (6 ops, 2 ranks), if `make run` made one,
    else the sample."""
    path = REAL_DEFAULT if REAL_DEFAULT.exists() else REPO / "tests" / "data" / "sample-result.json"
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def test_run_seeds() -> None:
    seeds = run_seeds(42, 10)
    assert seeds == run_seeds(42, 10)  # reproducible from the run's seed
    assert len(set(seeds)) == 10 and all(1 <= s < 2**31 for s in seeds)
    assert run_seeds(43, 10) != seeds
    assert run_seeds(42, 3) == seeds[:3]


def test_merge_keeps_the_first_environment_and_every_point(real_doc: dict[str, Any]) -> None:
    first = scaled(real_doc, 1.0, end_time_utc="2026-11-22T10:00:05Z")
    first["warnings"] = ["timer resolution is coarse", "only in run 0"]
    second = scaled(real_doc, 2.0, hosts=["elsewhere"], end_time_utc="2026-11-22T10:09:00Z")
    second["warnings"] = ["timer resolution is coarse"]
    merged = merge_documents([outcome(first, seed=11), outcome(second, seed=22)])
    assert merged is not None
    validate_result(merged)
    assert merged["status"] == "complete" and "error" not in merged
    assert merged["environment"]["hosts"] == real_doc["environment"]["hosts"]
    assert merged["environment"]["end_time_utc"] == "2026-11-22T10:09:00Z"
    n = len(real_doc["points"])
    assert [p["run"] for p in merged["points"]] == [0] * n + [1] * n
    assert merged["points"][n]["median_ns"] == 2 * real_doc["points"][0]["median_ns"]
    assert merged["warnings"] == ["timer resolution is coarse", "run 0: only in run 0"]
    records = merged["runs"]
    assert [r["run"] for r in records] == [0, 1]
    assert [r["shuffle_seed"] for r in records] == [11, 22]
    assert records[1]["hosts"] == ["elsewhere"] and records[1]["points"] == n
    assert records[0]["command"] == "mpiexec -n 2 bench --shuffle 11"
    sync = real_doc["environment"]["clock_sync"]
    assert records[0]["max_abs_residual_ns"] == sync["max_abs_residual_ns"]
    assert records[0]["status"] == "complete" and records[0]["error"] is None
    assert real_doc["points"][0].get("run") is None  # the inputs are not changed


def test_merge_after_a_failure(sample_doc: dict[str, Any]) -> None:
    partial = copy.deepcopy(sample_doc)
    partial["status"] = "failed"
    merged = merge_documents(
        [outcome(sample_doc), outcome(partial, "mpiscope-bench failed (exit code 3)"),
         outcome(None, "never started")]  # fmt: skip
    )
    assert merged is not None
    validate_result(merged)
    assert merged["status"] == "failed"
    assert merged["error"] == "run 1 of 3: mpiscope-bench failed (exit code 3)"
    assert [p["run"] for p in merged["points"]] == [0, 1]
    assert [r["status"] for r in merged["runs"]] == ["complete", "failed", "failed"]
    assert merged["runs"][2]["points"] == 0
    assert merge_documents([outcome(None, "crash")]) is None


def test_summary_per_point_method_and_cache(sample_doc: dict[str, Any]) -> None:
    base = sample_doc["points"][0]
    points = []
    medians = {"cold": [800.0, 810.0, 805.0, 4000.0], "warm": [400.0, 402.0, 401.0, 399.0]}
    for cache, values in medians.items():
        for run, median in enumerate(values):
            points.append(dict(copy.deepcopy(base), cache=cache, run=run, median_ns=median,
                               q25_ns=median * 0.99, q75_ns=median * 1.01))  # fmt: skip
    points.append(dict(copy.deepcopy(base), op="barrier", size_bytes=None, median_ns=None))
    sample_doc["points"] = points
    summary = run_summary(sample_doc, seed=5, resamples=500)
    stats = summary["run_statistics"]
    assert stats == {"seed": 5, "resamples": 500, "confidence": 0.95, "disagree_min_cv": 0.05,
                     "disagree_spread_factor": 2.0}  # fmt: skip
    rows = summary["run_summary"]
    assert [(r["op"], r["size_bytes"], r["nprocs"], r["method"], r["cache"]) for r in rows] == [
        ("bcast", 1024, 2, "window", "cold"), ("bcast", 1024, 2, "window", "warm"),
    ]  # fmt: skip
    cold, warm = rows
    assert cold["runs"] == 4 and cold["median_ns"] == 807.5
    assert (cold["ci_low_ns"], cold["ci_high_ns"]) == bootstrap_median_ci(
        medians["cold"], 0.95, resamples=500, seed=5
    )
    assert (cold["run_min_ns"], cold["run_max_ns"]) == (800.0, 4000.0)
    assert cold["between_cv"] == pytest.approx(cv(medians["cold"]))
    assert cold["within_cv"] == pytest.approx(0.02 / IQR_PER_SIGMA)
    assert cold["disagree"] is True and cold["disagree_reasons"] == ["spread"]
    assert warm["disagree"] is False and warm["disagree_reasons"] == []
    sample_doc.update(summary)
    validate_result(sample_doc)


def test_summary_key_defaults(sample_doc: dict[str, Any]) -> None:
    p = sample_doc["points"][0]
    assert summary_key(sample_doc, p) == ("bcast", 1024, 2, "window", "cold")
    assert summary_key(sample_doc, dict(p, method="max", cache="warm"))[3:] == ("max", "warm")


def test_report_shows_the_summary(sample_doc: dict[str, Any]) -> None:
    docs = [scaled(sample_doc, f) for f in (1.0, 1.0, 10.0)]
    merged = merge_documents([outcome(d, seed=i + 1) for i, d in enumerate(docs)])
    assert merged is not None
    merged.update(run_summary(merged, seed=3))
    validate_result(merged)
    text = render_report(Result(merged))
    lines = text.splitlines()
    title = next(line for line in lines if line.startswith("op ") and "run" in line)
    assert "run" in cells(title)  # the run varies: a column
    start = lines.index(next(line for line in lines if line.startswith("across 3 runs")))
    assert cells(lines[start + 1]) == ["op", "size", "runs", "median", "95% CI (bootstrap)",
        "run medians", "within CV", "between CV", "run-to-run", "flags"]  # fmt: skip
    row = cells(lines[start + 3])
    assert row[:4] == ["bcast", "1 KiB", "3", "810 ns"]
    assert row[5] == "810 ns .. 8.1 us"
    assert row[6] == "2.7%"  # (830 - 800) / 1.349 / 810
    assert row[7] == "130%"  # sd 4209 / mean 3240
    assert row[8] == "133%"  # log means 0, 0, ln 10: sd 1.329, within (5/812.4)^2 negligible
    assert row[9] == "DISAGREE: spread"
    assert "1 of 1 point(s) disagree across runs" in lines[start + 4]


# --- end to end with the fake bench ------------------------------------------------------


def test_runs_are_separate_shuffled_and_merged(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_SCALES="1,1.02,0.98")
    run = run_cli(
        ["run", "bcast,allreduce", "--sizes", "8,1K", "--runs", "3", "--seed", "9",
         "--out", "l.json"],
        env,
        tmp_path,
    )  # fmt: skip
    assert run.code == 0, run
    calls = fake_mpi.all_bench_plans()
    assert len(calls) == 3
    assert [c["shuffle"] for c in calls] == run_seeds(9, 3)
    outs = {c["out"] for c in calls}
    assert len(outs) == 3 and str(tmp_path / "l.json") not in outs
    assert not any(Path(o).exists() for o in outs)  # the runs' own files are gone
    assert [p.name for p in tmp_path.iterdir() if p.name != "fakempi"] == ["l.json"]
    result = load_result(tmp_path / "l.json")
    doc = result.data
    assert doc["status"] == "complete"
    assert sorted(p["run"] for p in doc["points"]) == [0] * 4 + [1] * 4 + [2] * 4
    orders = [[(p["op"], p["size_bytes"]) for p in doc["points"] if p["run"] == i]
              for i in range(3)]  # fmt: skip
    assert len({tuple(order) for order in orders}) > 1  # each run its own order
    assert [r["shuffle_seed"] for r in doc["runs"]] == run_seeds(9, 3)
    assert doc["run_statistics"]["seed"] == 9
    rows = doc["run_summary"]
    assert [(r["op"], r["size_bytes"]) for r in rows] == [
        ("allreduce", 8), ("allreduce", 1024), ("bcast", 8), ("bcast", 1024),
    ]  # fmt: skip
    assert all(r["runs"] == 3 and r["median_ns"] == 810.0 for r in rows)
    assert not any(r["disagree"] for r in rows)  # 2% apart: below the 5% floor
    err = run.err_lines
    assert "[1/12] bcast 8 B  median 810 ns" in err or any(e.startswith("[1/12] ") for e in err)
    assert any(e.startswith("[12/12] ") for e in err)
    assert "across 3 runs" in run.stdout
    assert run.stdout.splitlines()[-1] == f"result: {tmp_path / 'l.json'}"


def test_runs_that_disagree_are_flagged(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_SCALES="1,1,12,12")
    run = run_cli(["run", "bcast", "--sizes", "1M", "--runs", "4", "--quiet", "--out",
                   "l.json"], env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    (row,) = json.loads((tmp_path / "l.json").read_text())["run_summary"]
    assert row["disagree"] is True
    assert row["disagree_reasons"] == ["spread", "modes"]  # two groups of two runs
    assert row["groups"] == 2
    assert "DISAGREE: spread, modes" in run.stdout


def test_a_failing_launch_keeps_the_earlier_ones(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_FAIL_AT="1")
    run = run_cli(["run", "bcast", "--sizes", "8,16", "--runs", "3", "--quiet",
                   "--out", "l.json"], env, tmp_path)  # fmt: skip
    assert run.code == 1
    assert run.err_lines[-1] == (
        "mpiscope: error: run 1 of 3: mpiscope-bench failed (exit code 3); "
        f"partial result kept in {tmp_path / 'l.json'}"
    )
    assert len(fake_mpi.all_bench_plans()) == 2  # run 2 never started
    doc = load_result(tmp_path / "l.json").data
    assert doc["status"] == "failed"
    assert doc["error"] == "run 1 of 3: mpiscope-bench failed (exit code 3)"
    assert [p["run"] for p in doc["points"]] == [0, 0, 1]  # run 1's partial point kept
    assert [r["status"] for r in doc["runs"]] == ["complete", "failed"]
    assert {r["runs"] for r in doc["run_summary"]} == {1, 2}
    assert "PARTIAL RESULT" in run.stdout


def test_a_launch_that_writes_nothing(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="crash")
    run = run_cli(["run", "bcast", "--runs", "2", "--out", "l.json"], env, tmp_path)
    assert run.code == 1
    assert run.err_lines[-1] == (
        "mpiscope: error: run 0 of 2: mpiscope-bench failed (exit code 4); "
        "no result was written"
    )
    assert not (tmp_path / "l.json").exists()


def test_seed_defaults_to_a_recorded_random_one(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "8", "--runs", "2", "--quiet", "--out",
                   "l.json"], fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    doc = json.loads((tmp_path / "l.json").read_text())
    seed = doc["run_statistics"]["seed"]
    assert [r["shuffle_seed"] for r in doc["runs"]] == run_seeds(seed, 2)


def test_one_launch_is_the_plain_run(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "8", "--runs", "1", "--out", "r.json"],
                  fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    doc = json.loads((tmp_path / "r.json").read_text())
    assert "runs" not in doc and "run" not in doc["points"][0]
    assert "shuffle" not in fake_mpi.bench_plan()


# --- the real bench ------------------------------------------------------------------


@pytest.mark.mpi
def test_real_runs(tmp_path: Path) -> None:
    run = mpiscope("run", "bcast,allreduce", "--np", "2", "--sizes", "8,1K", "--runs", "3",
                   "--seed", "1", "--max-launches", "48", "--min-valid", "4",
                   "--max-point-seconds", "5", "--out", "l.json", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    load_result(tmp_path / "l.json")
    doc = read(tmp_path / "l.json")
    assert len(doc["runs"]) == 3 and doc["status"] == "complete"
    assert sorted(p["run"] for p in doc["points"]) == [0] * 4 + [1] * 4 + [2] * 4
    for row in doc["run_summary"]:
        medians = [p["median_ns"] for p in doc["points"] if p["median_ns"] is not None
                   and summary_key(doc, p) == tuple(row[k] for k in SUMMARY_KEYS)]  # fmt: skip
        assert row["runs"] == len(medians) >= 1  # a run without a valid run: left out
        assert (row["run_min_ns"], row["run_max_ns"]) == (min(medians), max(medians))
        assert row["run_min_ns"] <= row["median_ns"] <= row["run_max_ns"]
        if row["runs"] > 1:
            assert row["ci_low_ns"] <= row["median_ns"] <= row["ci_high_ns"]
    assert "across 3 runs" in run.stdout


def test_readers_take_schema_1_0_and_1_1(sample_doc: dict[str, Any], tmp_path: Path) -> None:
    for version in ("1.0", "1.1"):
        doc = merge_documents([outcome(sample_doc), outcome(sample_doc, seed=2)])
        assert doc is not None
        doc.update(run_summary(doc, seed=1, resamples=100))  # says 1.5: between_rsd
        doc["schema_version"] = version
        path = tmp_path / f"v{version}.json"
        path.write_text(json.dumps(doc))
        assert load_result(path).schema_version == version


@pytest.mark.mpi
def test_a_real_series_with_a_failed_run(tmp_path: Path) -> None:
    """Three real runs; in the second, rank 1 cannot read its plan (a node
    that does not see the file): every rank of that run stops, the series
    stops there, the first run's points are kept with the failed run
    recorded, and the one line says which run failed and why."""
    import os

    from mpiscope.mpi_profile import find_profiles

    bench = os.environ.get("MPISCOPE_BENCH") or find_profiles()["mpich"].bench
    calls = tmp_path / "rank-1-calls"
    wrapper = tmp_path / "bench.sh"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$PMI_RANK" = 1 ]; then echo x >> {calls}; '
        f'if [ "$(wc -l < {calls})" = 2 ]; then exec {bench} --plan /nonexistent/plan.json; fi; '
        "fi\n"
        f'exec {bench} "$@"\n'
    )
    wrapper.chmod(0o755)
    env = dict(os.environ, MPISCOPE_BENCH=str(wrapper))
    out = tmp_path / "l.json"
    proc = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "bcast", "--np", "2", "--sizes", "8,1K",
         "--runs", "3", "--run-profile", "off", "--mpi", "mpich", "--quiet",
         "--out", str(out), "--timeout", "500"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 1, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("mpiscope: error: run 1 of 3: ") and f"kept in {out}" in line, line
    assert "rank 1: /nonexistent/plan.json" in line, line
    doc = load_result(out).data
    assert doc["status"] == "failed" and doc["error"].startswith("run 1 of 3: ")
    assert [r["status"] for r in doc["runs"]] == ["complete", "failed"]  # 3rd never started
    assert {p["run"] for p in doc["points"]} == {0}
    assert sorted(p["size_bytes"] for p in doc["points"]) == [8, 1024]
    assert calls.read_text().count("x") == 2
