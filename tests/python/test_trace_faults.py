"""What a trace keeps when the program ends badly (issue 13, defects 2 and 4):
records stream to the rank files as buffers fill, so a rank that is killed
loses at most its last buffer (two halves: the current one, and the full
one its call had not written yet), the other ranks' files are there with every
call they made before MPI_Finalize, and every rank's file has the clock
synchronization of the start. tests/mpi/trace_faults.c is the program;
--records 64 makes its 1,000 calls fill many buffers. Bounded by timeouts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mpiscope.trace.merge import load
from mpiscope.trace.reader import read_trace
from trace_helpers import ROOT, build_example, mpiscope, profile_or_fail

CALLS = 1000
BUFFER = 64
PROGRAM = ROOT / "tests" / "mpi" / "trace_faults.c"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    profile_or_fail("mpich")
    return build_example("trace_faults", "mpich", tmp_path_factory.mktemp("bin"), PROGRAM)


def run_fault(program: Path, tmp_path: Path, fault: str, *extra: str):
    return mpiscope("trace", "--mpi", "mpich", "--np", "2", "--records", str(BUFFER),
                    "--timeout", "60", "-o", "t", str(program), "--fault", fault,
                    "--calls", str(CALLS), *extra, mpi="mpich", cwd=tmp_path, timeout=120)


def comm_rank_calls(merged, rank: int) -> int:
    tl = merged.timelines[rank]
    return sum(1 for i in range(len(tl.records)) if tl.main[i] and tl.name(i) == "MPI_Comm_rank")


@pytest.mark.parametrize("fault", ["kill", "abort", "segv", "mpi_abort", "exit"])
@pytest.mark.mpi
def test_a_crashed_rank_leaves_every_rank_file(program: Path, tmp_path: Path, fault: str) -> None:
    run = run_fault(program, tmp_path, fault)
    assert run.returncode != 0, run.stderr  # the run went wrong: never a silent success
    trace = read_trace(tmp_path / "t")
    assert not trace.missing_ranks, run.stderr
    for rank in trace.ranks:  # the clock sync of the start is in every file
        assert 0 in rank.clocks, rank.path
    merged = load(tmp_path / "t")
    # rank 0 (killed by the launcher in MPI_Finalize, waiting for rank 1)
    # has every call it made before: its records were written at MPI_Finalize;
    # MPI_Abort makes MPICH SIGKILL it at once, maybe before it got there: then
    # it loses at most its last buffer, like any SIGKILLed rank
    lost0 = CALLS + 1 - comm_rank_calls(merged, 0)
    assert 0 <= lost0 <= (2 * BUFFER if fault == "mpi_abort" else 0)
    # rank 1 has all of its calls, or all but its last buffer when SIGKILLed
    lost = CALLS + 1 - comm_rank_calls(merged, 1)
    assert 0 <= lost <= (2 * BUFFER if fault == "kill" else 0)
    assert len(merged.messages) == 3 and merged.unmatched_recvs == merged.unmatched_sends == 0
    summary = mpiscope("trace", "summary", "t", mpi="mpich", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert "PARTIAL" in summary.stdout and "no file for rank" not in summary.stdout
    view = mpiscope("trace", "view", "t", mpi="mpich", cwd=tmp_path)
    assert view.returncode == 0, view.stderr
    assert (tmp_path / "t.html").stat().st_size > 0


@pytest.mark.mpi
def test_a_program_failing_after_finalize_leaves_a_whole_trace(program: Path,
                                                               tmp_path: Path) -> None:
    """A program's own failure (exit status 3 after MPI_Finalize, as a test
    suite with failed tests) is mpiscope's exit 1, but its trace is whole:
    it was called 'partial' (the full mpi4py suite, 8 failed tests)."""
    run = run_fault(program, tmp_path, "status")
    assert run.returncode == 1, run.stderr
    assert "exited with code 3; its trace is whole" in run.stderr, run.stderr
    assert "partial" not in run.stderr
    trace = read_trace(tmp_path / "t")
    assert all(r.complete and not r.short_reason() for r in trace.ranks)


@pytest.mark.mpi
def test_a_correct_run_is_complete(program: Path, tmp_path: Path) -> None:
    run = run_fault(program, tmp_path, "none")
    assert run.returncode == 0, run.stderr
    trace = read_trace(tmp_path / "t")
    assert all(r.complete and not r.short_reason() for r in trace.ranks)
    merged = load(tmp_path / "t")
    assert comm_rank_calls(merged, 0) == comm_rank_calls(merged, 1) == CALLS + 1
    assert sum(r.dropped for r in trace.ranks) == 0  # full buffers are written, not dropped


@pytest.mark.mpi
def test_a_file_size_limit_is_an_error_naming_the_short_file(program: Path,
                                                           tmp_path: Path) -> None:
    """A full disk (here: RLIMIT_FSIZE in the ranks) cuts the rank files:
    `mpiscope trace` fails and names them, even though the program ran."""
    run = mpiscope("trace", "--mpi", "mpich", "--np", "2", "--records", str(BUFFER), "--timeout",
                   "60", "-o", "t", str(program), "--fault", "none", "--calls", "50000",
                   "--fsize", "200000", mpi="mpich", cwd=tmp_path, timeout=120)
    assert "rank 0 done" in run.stdout
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("mpiscope: error: ") and "rank-00000.mst" in last
    assert "short" in last
    summary = mpiscope("trace", "summary", "t", mpi="mpich", cwd=tmp_path)
    assert summary.returncode == 0 and "PARTIAL" in summary.stdout
