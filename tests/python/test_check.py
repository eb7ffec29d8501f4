"""``mpiscope check``: the criteria, the verdict lines, the command."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mpiscope.reports.check import (
    MAX_DRIFT_PPM,
    MAX_FREQUENCY_ERROR_PPM,
    MAX_RESOLUTION_NS,
    MAX_SYNC_RESIDUAL_NS,
    SYNC_CRITERIA,
    TIMER_CRITERIA,
    verdicts,
)
from mpiscope.reports.report import render_report
from mpiscope.result import Result, load_result, validate_result
from mpiscope_fakes import FAKE_CHECK, REPO, FakeMpi, run_cli
from real_bench import mpiscope, read

VERDICTS = [
    "VERDICT tsc: trusted",
    "VERDICT monotonic: trusted",
    "VERDICT gettimeofday: not trusted: 3 monotonicity violations in 4000000 reads; 1 us "
    "resolution is coarser than the 100 ns needed; waitpattern_up read 3 us, 50% off the true "
    "2 us",
    "VERDICT wtime: not trusted: not available (MPI_Wtime is gettimeofday)",
    "VERDICT sync linear: trusted",
    "VERDICT sync ring: not trusted: residual 1.5 us is not below 1 us; drift 25 ppm is not "
    "below 10 ppm (residual 51.5 us after 2 s)",
    "VERDICT states: trusted: one state, 500 us (between-run CV 0.82%) in 4 short runs of a "
    "1 MiB bcast over 0.75 s",
]


def tsc() -> dict[str, Any]:
    timer: dict[str, Any] = copy.deepcopy(FAKE_CHECK["timers"][0])
    return timer


def reasons(timer: dict[str, Any]) -> tuple[str, ...]:
    (verdict,) = verdicts({"timers": [timer], "sync": []})
    return verdict.reasons


def test_the_criteria_table() -> None:
    """Each criterion's rule states the limit the verdicts apply, and the
    table is documented as it is."""
    rules = {c.name: c.rule for c in TIMER_CRITERIA + SYNC_CRITERIA}
    assert f"<= {MAX_RESOLUTION_NS:g} ns" in rules["resolution"]
    assert f"±{MAX_FREQUENCY_ERROR_PPM:g} ppm" in rules["frequency"]
    assert f"below {MAX_SYNC_RESIDUAL_NS:g} ns" in rules["residual"]
    assert f"below {MAX_DRIFT_PPM:g} ppm" in rules["drift"]
    doc = (REPO / "docs" / "cli.md").read_text()
    for criterion in TIMER_CRITERIA + SYNC_CRITERIA:
        assert criterion.rule in doc, criterion.rule  # the table is documented as it is


def test_verdicts_of_the_fake_check() -> None:
    assert [v.line for v in verdicts(FAKE_CHECK)] == VERDICTS


def test_timer_boundaries() -> None:
    assert reasons(tsc()) == ()
    t = tsc()
    t["resolution_ns"] = 100.0
    assert reasons(t) == ()  # at the limit: enough
    t["resolution_ns"] = 100.5
    assert reasons(t) == ("100.5 ns resolution is coarser than the 100 ns needed",)
    t = tsc()
    t["frequency_error_ppm"] = -10.0
    assert reasons(t) == ()
    t["frequency_error_ppm"] = -10.5
    assert reasons(t) == ("frequency off by -10.5 ppm (more than 10)",)
    t = tsc()
    t["invariant"] = False
    assert reasons(t) == ("the TSC is not invariant",)
    t = tsc()
    t["monotonic_violations"] = 1
    assert reasons(t) == ("1 monotonicity violations in 4000000 reads",)


def test_wait_pattern_boundaries() -> None:
    t = tsc()
    up = t["waitpatterns"][1]
    up["median_ns"] = 2100.0  # exactly 5% off
    assert reasons(t) == ()
    up["median_ns"] = 1890.0
    assert reasons(t) == ("waitpattern_up read 1.89 us, 5.5% off the true 2 us",)
    t = tsc()
    t["waitpatterns"][0]["median_ns"] = 180.0  # 10 reads of 18 ns
    assert reasons(t) == ()
    t["waitpatterns"][0]["median_ns"] = 181.0
    assert reasons(t) == ("waitpattern_null read 181 ns, more than 10 timer reads (180 ns)",)
    t["waitpatterns"][2]["median_ns"] = None
    assert reasons(t)[0].endswith("; waitpattern_down gave no valid launch")


def test_sync_boundaries() -> None:
    sync = dict(FAKE_CHECK["sync"][0])
    (v,) = verdicts({"timers": [], "sync": [dict(sync, max_abs_residual_ns=999.0)]})
    assert v.trusted and v.line == "VERDICT sync linear: trusted"
    (v,) = verdicts({"timers": [], "sync": [dict(sync, max_abs_residual_ns=1000.0)]})
    assert v.reasons == ("residual 1 us is not below 1 us",)
    (v,) = verdicts({"timers": [], "sync": [dict(sync, drift_ppm=-10.0)]})
    assert v.reasons[0].startswith("drift -10 ppm is not below 10 ppm")
    (v,) = verdicts({"timers": [], "sync": [dict(sync, max_abs_residual_ns=None)]})
    assert v.reasons == ("no residual measured",)


def test_report_of_a_check_document(sample_doc: dict[str, Any]) -> None:
    sample_doc["points"] = []
    sample_doc["check"] = FAKE_CHECK
    validate_result(sample_doc)
    text = render_report(Result(sample_doc))
    lines = text.splitlines()
    assert lines[-len(VERDICTS) :] == VERDICTS
    assert any(line.startswith("timer tsc: resolution 0.4 ns, read overhead 18 ns, 0 "
                               "monotonicity violations in 4000000 reads, invariant")
               for line in lines)  # fmt: skip
    assert "  waitpattern_up    2 us  2.03 us  [2.02 us, 2.04 us]   2.05 us     25 ns" in lines
    assert any(line.split() == ["ring", "1", "ms", "300", "0", "1.6", "us", "1.5", "us", "51.5",
                                "us", "after", "2", "s", "25", "ppm", "-", "-"]
               for line in lines)  # fmt: skip
    assert "no measurement point" not in text


def test_check_command(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["check"], fake_mpi.env, tmp_path)
    assert run.code == 0, run  # untrusted timers are information, not errors
    plan = fake_mpi.bench_plan()
    assert plan["check"] is True
    assert plan["drift_seconds"] == 2.0
    assert "ops" not in plan
    assert run.stdout.splitlines()[-len(VERDICTS) :] == VERDICTS
    assert "result:" not in run.stdout
    assert not Path(plan["out"]).exists()  # not kept without --out
    assert fake_mpi.mpiexec_call()["args"][:2] == ["-n", "2"]


def test_check_brief_and_out(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["check", "--brief", "--np", "1", "--drift-seconds", "0.5", "--out", "c.json"],
                  fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    assert run.stdout.splitlines() == VERDICTS + ["", f"result: {tmp_path / 'c.json'}"]
    assert run.err_lines == []  # no progress lines
    assert fake_mpi.bench_plan()["drift_seconds"] == 0.5
    assert load_result(tmp_path / "c.json").data["check"] == FAKE_CHECK
    report = run_cli(["report", "c.json"], fake_mpi.env, tmp_path)
    assert report.stdout.splitlines()[-len(VERDICTS) :] == VERDICTS


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--drift-seconds", "-1"], "argument --drift-seconds: must be in [0, 3600], not -1"),
        (["--drift-seconds", "soon"], "argument --drift-seconds: expected a number, not 'soon'"),
        (["--np", "0"], "argument --np: must be at least 1"),
        (["--sizes", "8"], "unrecognized arguments: --sizes 8"),
    ],
)
def test_check_bad_input(fake_mpi: FakeMpi, tmp_path: Path, args: list[str], fragment: str) -> None:
    run = run_cli(["check", *args], fake_mpi.env, tmp_path)
    assert run.code == 2
    assert len(run.err_lines) == 1 and fragment in run.err_lines[0], run.err_lines
    assert not fake_mpi.bench_log.exists()


def test_check_refuses_an_existing_out(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text("{}")
    run = run_cli(["check", "--out", "c.json"], fake_mpi.env, tmp_path)
    assert run.code == 2 and "c.json exists (use --force to overwrite)" in run.err_lines[0]
    assert not fake_mpi.bench_log.exists()


def test_check_dry_run(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["check", "--drift-seconds", "0", "--dry-run"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    plan = json.loads(run.stdout)
    assert plan["check"] is True and plan["drift_seconds"] == 0.0 and "ops" not in plan
    assert not fake_mpi.bench_log.exists()


def test_check_of_a_failing_bench(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["check"], dict(fake_mpi.env, FAKE_BENCH_MODE="crash"), tmp_path)
    assert run.code == 1
    assert run.err_lines[-1] == (
        "mpiscope: error: mpiscope-bench failed (exit code 4); no result was written"
    )


@pytest.mark.mpi
def test_real_check(tmp_path: Path) -> None:
    run = mpiscope("check", "--np", "2", "--drift-seconds", "0.5", "--out", "c.json",
                   cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    load_result(tmp_path / "c.json")
    check = read(tmp_path / "c.json")["check"]
    names = [t["name"] for t in check["timers"]]
    assert {"tsc", "monotonic", "gettimeofday", "wtime"} <= set(names)
    assert {s["algorithm"] for s in check["sync"]} >= {"linear", "ring"}
    lines = [line for line in run.stdout.splitlines() if line.startswith("VERDICT ")]
    assert [line.split(":")[0] for line in lines] == (
        [f"VERDICT {n}" for n in names] + [f"VERDICT sync {s['algorithm']}" for s in check["sync"]]
        + (["VERDICT states"] if check.get("states") else [])
    )
    brief = mpiscope("check", "--np", "2", "--drift-seconds", "0", "--brief", cwd=tmp_path)
    assert brief.returncode == 0, brief.stderr
    assert all(line.startswith("VERDICT ") for line in brief.stdout.splitlines())
