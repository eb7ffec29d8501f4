"""``mpiscope startup``: MPI started by MPI_Init, MPI_Init_thread or a
session in fresh processes, run after run, each call timed on every
rank and the first round trips to every peer; the report and HTML page of
its document (tests/data/startup-result.json, recorded by
tests/data/record.py); bad input refused in one line before anything runs;
real runs on MPICH and Open MPI, validated."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.mpi_profile import find_profiles
from mpiscope.reports.html import render_html
from mpiscope.reports.report import render_report
from mpiscope.reports.startup import is_startup, startup_tables
from mpiscope.result import load_result
from mpiscope_fakes import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = DATA / "startup-result.json"
CALLS = {
    "init": ["MPI_Init"],
    "init_thread": ["MPI_Init_thread"],
    "session": ["MPI_Session_init", "MPI_Group_from_session_pset", "MPI_Comm_create_from_group"],
}
#: Round trips between each pair of ranks: the first, the second, nine warm ones.
ROUND_TRIPS = 11


def test_the_report_summarises_each_way_over_its_runs() -> None:
    result = load_result(RECORDED)
    assert is_startup(result)
    rows, calls = startup_tables(result)
    points = result.data["points"]
    ways = {(p["how"], p["nprocs"]) for p in points}
    assert {(r[0], int(r[1])) for r in rows} == ways
    for row in rows:  # runs per way: as many as the document holds
        assert int(row[2]) == sum(1 for p in points if (p["how"], p["nprocs"]) == (row[0],
                                                                                  int(row[1])))
    assert [c[2] for c in calls if c[0] == "session"] == CALLS["session"]
    text = render_report(result)
    assert "the start of MPI" in text and "first contact" in text
    assert f"validated: {sum(p['validation']['messages_checked'] for p in points)} messages" in text
    page = render_html([result])
    assert "The start of MPI" in page and "MPI_Comm_create_from_group" in page


def test_a_failed_check_is_reported(tmp_path: Path) -> None:
    doc = json.loads(RECORDED.read_text())
    point = doc["points"][0]
    point["validation"].update(failures=1, first_mismatch_rank=1, first_mismatch_launch=0,
                               first_mismatch="the message of round trip 0: byte 3")  # fmt: skip
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    text = render_report(load_result(tmp_path / "bad.json"))
    assert "1 with a failure" in text and "VALIDATION FAILED" in text and "byte 3" in text


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--how", "init,bogus"], "'bogus' is not one of init, init_thread, session"),
        (["--how", "init,init"], "a way appears twice"),
        (["--size", "8,16"], "--size must be one size"),
        (["--runs", "0"], "--runs"),
        (["--thread-level", "most"], "thread level"),
        (["--nprocs", "2,2"], "appears twice"),
    ],
)
def test_bad_input_is_one_line(argv: list[str], fragment: str, tmp_path: Path) -> None:
    run = run_cli(["startup", *argv], cwd=tmp_path)
    assert run.code == 2, run.err_lines
    assert len(run.err_lines) == 1 and run.err_lines[0].startswith("mpiscope: error:")
    assert fragment in run.err_lines[0], run.err_lines[0]
    assert not list(tmp_path.iterdir())


def startup(mpi: str, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str],
                                                           dict[str, Any]]:  # fmt: skip
    out = tmp_path / "s.json"
    run = subprocess.run([sys.executable, "-m", "mpiscope", "startup", "--mpi", mpi, *args,
                          "--validate", "--out", str(out), "--quiet"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return run, json.loads(out.read_text())


def check_point(point: dict[str, Any]) -> None:
    """What every run's point must hold, whatever the machine's speed."""
    n = point["nprocs"]
    assert point["kind"] == "startup" and point["calls"] == CALLS[point["how"]]
    assert [r["rank"] for r in point["ranks"]] == list(range(n))
    for rank in point["ranks"]:
        assert len(rank["call_ns"]) == len(point["calls"])
        assert rank["total_ns"] == pytest.approx(sum(rank["call_ns"]))
        assert all(t > 0 for t in rank["call_ns"])
        assert 0 <= rank["start_ns"] < rank["ready_ns"] <= point["all_ready_ns"]
    first = point["peers"]["first_ns"]
    assert all((first[i][j] is None) == (i == j) for i in range(n) for j in range(n))
    assert all(first[i][j] == first[j][i] for i in range(n) for j in range(n))
    v = point["validation"]
    assert v["failures"] == 0
    assert v["messages_checked"] == n * (n - 1) * ROUND_TRIPS  # both ends of every round trip


@pytest.mark.mpi
@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
def test_every_way_starts_and_is_validated(mpi: str, tmp_path: Path) -> None:
    assert mpi in find_profiles(), f"MPI '{mpi}' is not built: run `make MPI={mpi}`"
    run, doc = startup(mpi, tmp_path, "--np", "2", "--runs", "2")
    points = doc["points"]
    assert [p["run"] for p in points] == list(range(6))  # one point per run
    assert sorted(p["how"] for p in points) == sorted([*CALLS] * 2)
    # interleaved: every way once before any twice, the second round in another order
    assert {p["how"] for p in points[:3]} == set(CALLS)
    assert [p["how"] for p in points[:3]] != [p["how"] for p in points[3:]]
    for point in points:
        check_point(point)
    granted = {p["how"]: p["thread_level"] for p in points}
    assert granted["init_thread"] in ("MPI_THREAD_MULTIPLE", "MPI_THREAD_SERIALIZED",
                                      "MPI_THREAD_FUNNELED", "MPI_THREAD_SINGLE")
    assert "the start of MPI" in run.stdout


@pytest.mark.mpi
def test_process_counts_each_start_their_own_runs(tmp_path: Path) -> None:
    _, doc = startup("mpich", tmp_path, "--nprocs", "2,3", "--oversubscribe", "--how", "session",
                     "--runs", "1")  # fmt: skip
    assert [p["nprocs"] for p in doc["points"]] == [2, 3]
    assert ["-n 2" in run["command"] and "-n 3" not in run["command"]
            for run in doc["runs"]] == [True, False]
    for point in doc["points"]:
        check_point(point)
