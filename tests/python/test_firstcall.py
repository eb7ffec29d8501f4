"""``mpiscope firstcall``: one run per operation, the seed's Table 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mpiscope.reports.firstcall import firstcall_rows, is_firstcall
from mpiscope.reports.report import render_report
from mpiscope.result import Result, load_result, validate_result
from mpiscope_fakes import FIRSTCALL, FakeMpi, run_cli
from real_bench import mpiscope, read


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("  ") if cell.strip()]


def firstcall_doc(sample_doc: dict[str, Any]) -> dict[str, Any]:
    sample_doc["points"] = [
        {"kind": "firstcall", "op": "reduce", "size_bytes": 8192, "nprocs": 4,
         "first_ns": [129010.0, 20.0, 30.0, 40.0], "second_ns": [10.0, 12.0, 9.0, 11.0],
         "ratio_rank0": 12901.0, "ratio_max": 10750.8},
        {"kind": "firstcall", "op": "barrier", "size_bytes": None, "nprocs": 4,
         "first_ns": [], "second_ns": [], "ratio_rank0": None, "ratio_max": None},
    ]  # fmt: skip
    validate_result(sample_doc)
    return sample_doc


def test_rows(sample_doc: dict[str, Any]) -> None:
    result = Result(firstcall_doc(sample_doc))
    assert is_firstcall(result)
    reduce, barrier = firstcall_rows(result)
    assert (reduce.first_rank0_ns, reduce.second_rank0_ns, reduce.ratio_rank0) == (
        129010.0, 10.0, 12901.0)  # fmt: skip
    assert (reduce.first_max_ns, reduce.second_max_ns, reduce.ratio_max) == (
        129010.0, 12.0, 10750.8)  # fmt: skip
    assert barrier.first_rank0_ns is None and barrier.ratio_max is None
    assert not is_firstcall(Result({"points": []}))


def test_report_renders_table_1(sample_doc: dict[str, Any]) -> None:
    text = render_report(Result(firstcall_doc(sample_doc)))
    lines = text.splitlines()
    assert lines[0].startswith("MPI library ")  # the usual header block
    title = lines.index(next(line for line in lines if line.startswith("op ")))
    assert cells(lines[title]) == ["op", "rank 0 ratio", "rank 0 first", "rank 0 second",
                                   "max ratio", "max first", "max second"]  # fmt: skip
    assert cells(lines[title + 2]) == ["reduce", "12901", "129 us", "10 ns", "10751", "129 us",
                                       "12 ns"]  # fmt: skip
    assert cells(lines[title + 3]) == ["barrier", "-", "-", "-", "-", "-", "-"]
    assert "8 KiB, 4 processes" in text
    assert "n_t/n_c/n_s" not in text  # no point table for first calls


def test_one_run_per_operation(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["firstcall", "bcast,allreduce", "waitpattern_up", "--out", "f.json"],
                  fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    calls = fake_mpi.all_bench_plans()
    assert [c["ops"] for c in calls] == [["bcast"], ["allreduce"], ["waitpattern_up"]]
    for call in calls:
        assert call["firstcall"] is True
        assert call["sizes"] == [8192]  # the seed's 8 KiB
    result = load_result(tmp_path / "f.json")
    doc = result.data
    assert [(p["op"], p["run"]) for p in doc["points"]] == [
        ("bcast", 0), ("allreduce", 1), ("waitpattern_up", 2)]  # fmt: skip
    assert len(doc["runs"]) == 3
    lines = run.stdout.splitlines()
    rows = {cells(line)[0]: cells(line) for line in lines if line.split(" ")[0] in FIRSTCALL}
    assert rows["bcast"] == ["bcast", "6178", "6.18 ms", "1 us", "4942", "6.18 ms", "1.25 us"]
    assert rows["allreduce"] == ["allreduce", "11.71", "11.7 us", "1 us", "20", "40 us", "2 us"]
    assert rows["waitpattern_up"][1] == "1" and rows["waitpattern_up"][4] == "1"
    assert lines[-1] == f"result: {tmp_path / 'f.json'}"
    report = run_cli(["report", "f.json"], fake_mpi.env, tmp_path)
    assert report.code == 0 and "rank 0 ratio" in report.stdout


def test_size_option(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["firstcall", "bcast", "--size", "64K", "--np", "2", "--out", "f.json"],
                  fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    assert fake_mpi.bench_plan()["sizes"] == [65536]
    doc = json.loads((tmp_path / "f.json").read_text())
    assert "runs" not in doc  # one operation: the bench's own document


def test_dry_run_shows_one_plan_per_operation(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["firstcall", "bcast", "allreduce", "--size", "1K", "--dry-run"],
                  fake_mpi.env, tmp_path)  # fmt: skip
    assert run.code == 0, run
    plans = json.loads(run.stdout)
    assert [(p["ops"], p["sizes"], p["firstcall"]) for p in plans] == [
        (["bcast"], [1024], True), (["allreduce"], [1024], True)]  # fmt: skip
    assert not fake_mpi.bench_log.exists()


def test_bad_input_launches_nothing(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    for args, fragment in [
        (["--size", "1K,2K"], "--size must be one size, not 2"),
        (["--size", "big"], "invalid size 'big'"),
        (["--method", "max"], "unrecognized arguments: --method max"),
    ]:
        run = run_cli(["firstcall", "bcast", *args], fake_mpi.env, tmp_path)
        assert run.code == 2, run
        assert len(run.err_lines) == 1 and fragment in run.err_lines[0], run.err_lines
    run = run_cli(["firstcall", "bcats"], fake_mpi.env, tmp_path)
    assert run.code == 2 and "unknown operation 'bcats'" in run.err_lines[0]
    assert not fake_mpi.bench_log.exists()


def test_help_says_why_fresh_processes() -> None:
    run = run_cli(["firstcall", "--help"])
    assert run.code == 0
    assert "own run - fresh processes" in " ".join(run.stdout.split())


@pytest.mark.mpi
def test_real_firstcall(tmp_path: Path) -> None:
    run = mpiscope("firstcall", "bcast,allreduce,barrier", "--np", "2", "--out", "f.json",
                   cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    load_result(tmp_path / "f.json")
    doc = read(tmp_path / "f.json")
    assert [p["op"] for p in doc["points"]] == ["bcast", "allreduce", "barrier"]
    for p in doc["points"]:
        assert p["kind"] == "firstcall"
        assert len(p["first_ns"]) == len(p["second_ns"]) == 2
        assert all(t > 0 for t in p["first_ns"] + p["second_ns"])
        # the document has 15 significant digits
        assert p["ratio_rank0"] == pytest.approx(p["first_ns"][0] / p["second_ns"][0], rel=1e-12)
        assert p["ratio_max"] == pytest.approx(max(p["first_ns"]) / max(p["second_ns"]), rel=1e-12)
    assert "rank 0 ratio" in run.stdout
