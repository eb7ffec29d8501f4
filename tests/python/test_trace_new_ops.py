"""The tracer on mpiscope's own MPI-IO, partitioned and start-up runs: the
bench measuring file_write and partitioned_pingpong, traced under MPICH and
Open MPI, gives the MPI-IO table of the summary (calls, bytes, files, the
explicit offsets of each rank's region) and every partitioned round
matched, and a start-up by a session shows its calls in the timeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpiscope.trace.analysis import analyze
from mpiscope.trace.merge import load
from mpiscope.trace.summary import render_summary
from trace_helpers import mpiscope, profile_or_fail

MPIS = ["mpich", "openmpi"]
SIZE = 4096


@pytest.fixture(params=MPIS)
def mpi(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    profile_or_fail(name)
    return name


def bench_traced(mpi: str, tmp_path: Path, *bench_args: str) -> Path:
    bench = profile_or_fail(mpi).bench
    run = mpiscope("trace", "--mpi", mpi, "--np", "2", "-o", "t", bench, *bench_args, mpi=mpi,
                   cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return tmp_path / "t"


def plan(mpi: str, tmp_path: Path, *run_args: str) -> Path:
    """The plan `mpiscope run ...` gives the bench (its --dry-run)."""
    dry = mpiscope("run", *run_args, "--mpi", mpi, "--np", "2", "--max-launches", "12",
                   "--min-valid", "4", "--ledger", "off", "--out", str(tmp_path / "r.json"),
                   "--dry-run", mpi=mpi, cwd=tmp_path)  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    path = tmp_path / "plan.json"
    path.write_text(dry.stdout)
    return path


@pytest.mark.mpi
def test_file_io_and_partitioned_rounds_in_the_summary(mpi: str, tmp_path: Path) -> None:
    plan_file = plan(mpi, tmp_path, "file_write,partitioned_pingpong", "--sizes", str(SIZE),
                     "--option", "access=collective", "--option", "threads=1")  # fmt: skip
    merged = load(bench_traced(mpi, tmp_path, "--plan", str(plan_file)))
    a = analyze(merged)
    io = {s.name: s for s in a.io}
    write = io["MPI_File_write_at_all"]
    assert write.calls > 0 and write.bytes == write.calls * SIZE
    # a shared file, contiguous: rank r's region starts at r * SIZE
    assert (write.min_offset, write.max_offset) == (0, SIZE)
    assert write.files and all(handle for _, handle in write.files)
    assert io["MPI_File_open"].calls == io["MPI_File_close"].calls > 0
    points = json.loads((tmp_path / "r.json").read_text())["points"]
    launches = sum(p["launches_total"] for p in points if p["op"] == "partitioned_pingpong")
    matched = merged.matched.get("partitioned", 0)
    # each launch two partitioned messages (there and back), and the untimed first rounds
    assert matched >= 2 * launches
    assert not merged.unmatched_why.get("partitioned")
    text = render_summary(merged)
    assert "MPI-IO" in text and f"0 .. {SIZE}" in text
    assert f"partitioned: {matched} messages matched" in text


@pytest.mark.mpi
def test_a_session_start_is_in_the_timeline(mpi: str, tmp_path: Path) -> None:
    merged = load(bench_traced(mpi, tmp_path, "--startup", "session", "--sizes", "8",
                               "--out", str(tmp_path / "s.json")))  # fmt: skip
    assert merged.trace.ranks[0].meta["model"] == "sessions"
    for timeline in merged.timelines:
        names = [timeline.name(i) for i in range(len(timeline.records))]
        assert names.index("MPI_Session_init") < names.index("MPI_Comm_create_from_group")
    point = json.loads((tmp_path / "s.json").read_text())["points"][0]
    assert point["calls"][0] == "MPI_Session_init"
