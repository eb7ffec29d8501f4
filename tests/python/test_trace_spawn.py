"""A job started by MPI_Comm_spawn wrote rank files of the same names as its
parent's (rank-00000.mst, ...) into the same directory with O_TRUNC, over the
parent's open files (mpi4py's test_spawn: the parent's trace corrupt from
the first overwritten byte). Each MPI world now has files of its own: the
first in the directory, each later one (a spawned job, another run into the
directory) in DIR/world-K, and no file is ever created over another.

tests/trace/spawn.c traced for real (MPICH and Open MPI, 2 ranks spawning 2,
oversubscribed); timing-free."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mpiscope.launcher import mpiexec_command
from mpiscope.trace.merge import load
from mpiscope.trace.reader import F_PART, check_rank_file, read_trace
from mpiscope.trace.record import traced_env
from trace_helpers import (
    ROOT,
    build_example,
    mpiscope,
    profile_or_fail,
    rec,
    tracer_lib,
    write_rank,
)

SOURCE = ROOT / "tests" / "trace" / "spawn.c"
OUTPUT = {"spawn: parent done", "spawn: child done"}


def check_world(trace: Path, spawned: bool, sendrecvs: int) -> None:
    """Two ranks, whole files, the ring's messages all matched."""
    t = read_trace(trace)
    assert [r.rank for r in t.ranks] == [0, 1] and not t.missing_ranks
    for r in t.ranks:
        assert check_rank_file(r.path) == "" and r.end_status == "finalized"
        assert bool(r.meta["spawned"]) == spawned
        calls = r.records[(r.records["flags"] & F_PART) == 0]
        names = [r.functions[f] for f in calls["func"]]
        assert names.count("MPI_Sendrecv") == sendrecvs
        assert ("MPI_Comm_spawn" in names) != spawned
    merged = load(trace)
    assert len(merged.messages) == 2 * sendrecvs
    assert merged.unmatched_sends == merged.unmatched_recvs == 0


@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
@pytest.mark.mpi
def test_a_spawned_job_writes_its_own_files_and_the_parents_stay_whole(
        mpi: str, tmp_path: Path) -> None:
    exe = build_example("spawn", mpi, tmp_path, SOURCE)
    profile = profile_or_fail(mpi)
    launch = [*mpiexec_command(profile, 2, oversubscribe=True), str(exe)]  # room for 2 more
    run = mpiscope("trace", "--mpi", mpi, "-o", "t", "--", *launch, mpi=mpi, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert set(run.stdout.splitlines()) == OUTPUT
    assert ("2 rank file(s) in t, 2 more in 1 other MPI world(s) (world-1: each a trace of "
            "its own)") in run.stderr
    trace = tmp_path / "t"
    assert sorted(str(p.relative_to(trace)) for p in trace.rglob("*.mst")) == [
        "rank-00000.mst", "rank-00001.mst", "world-1/rank-00000.mst", "world-1/rank-00001.mst"]
    check_world(trace, spawned=False, sendrecvs=15)
    check_world(trace / "world-1", spawned=True, sendrecvs=3)

    summary = mpiscope("trace", "summary", "t", mpi=mpi, cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert ("other world world-1: 2 rank file(s), started by MPI_Comm_spawn: a trace of its "
            "own, not in this summary (mpiscope trace summary t/world-1)") in summary.stdout
    child = mpiscope("trace", "summary", "t/world-1", mpi=mpi, cwd=tmp_path)
    assert child.returncode == 0, child.stderr
    assert "world: started by MPI_Comm_spawn (world 1); its parent's trace is in t" in (
        child.stdout)

    # another run into the same directory, without mpiscope: its world and its
    # spawned one take the next numbers; the first trace is left as it was
    before = {p: p.read_bytes() for p in trace.rglob("*.mst")}
    again = subprocess.run(launch, cwd=tmp_path,
                           env=traced_env(profile, tracer_lib(mpi), trace, None),
                           capture_output=True, text=True, timeout=240, check=False)
    assert again.returncode == 0, again.stderr
    assert set(again.stdout.splitlines()) == OUTPUT
    assert {p: p.read_bytes() for p in before} == before
    check_world(trace / "world-2", spawned=False, sendrecvs=15)
    check_world(trace / "world-3", spawned=True, sendrecvs=3)
    summary = mpiscope("trace", "summary", "t", mpi=mpi, cwd=tmp_path)
    assert "other world world-2: 2 rank file(s), another run into this directory" in (
        summary.stdout)

    # --force replaces every world's files: the spawned job is world-1 again
    forced = mpiscope("trace", "--mpi", mpi, "--force", "-o", "t", "--", *launch, mpi=mpi,
                      cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert sorted(p.name for p in trace.iterdir()) == ["rank-00000.mst", "rank-00001.mst",
                                                        "world-1"]
    check_world(trace, spawned=False, sendrecvs=15)
    check_world(trace / "world-1", spawned=True, sendrecvs=3)


@pytest.mark.mpi
def test_many_worlds_are_said_in_one_line(tmp_path: Path) -> None:
    """mpi4py's test_spawn started 60 worlds: one line for them all."""
    trace = tmp_path / "t"
    trace.mkdir()
    calls = [rec("MPI_Init", 0, 10), rec("MPI_Finalize", 20, 30)]
    for r in range(2):
        write_rank(trace, r, 2, calls)
    for k in range(1, 6):
        (trace / f"world-{k}").mkdir()
        write_rank(trace / f"world-{k}", 0, 1, calls,
                   meta_extra={"world": k, "spawned": k != 3})
    summary = mpiscope("trace", "summary", "t", mpi="mpich", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert ("other worlds: 5 (world-1 to world-5), 5 rank file(s), 4 started by "
            "MPI_Comm_spawn, 1 another run into this directory: each a trace of its own, not "
            "in this summary (mpiscope trace summary t/world-K)") in summary.stdout
