"""The trace as Python: mpiscope.trace_program and mpiscope.open_trace
read their options with the command's parser (the same one-line errors),
and the Traced they return gives what `mpiscope trace summary|export`
give, from the same library code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mpiscope
from mpiscope.errors import MpiscopeError, RunFailedError
from trace_helpers import build_example, tracer_lib, two_rank_trace


@pytest.fixture
def written(tmp_path: Path) -> Path:
    return two_rank_trace(tmp_path / "t")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", "trace", *args], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=120)  # fmt: skip


def test_an_open_trace_reads_as_the_command_shows_it(
    written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    traced = mpiscope.open_trace("t")
    assert traced.directory.resolve() == written
    assert [f.name for f in traced.files] == ["rank-00000.mst", "rank-00001.mst"]
    summary = _cli("summary", "t", "-o", "s.txt", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert (tmp_path / "s.txt").read_text().startswith(traced.summary())
    analysis = traced.analysis()
    assert {f.name: f.calls for f in analysis.functions} == {"MPI_Send": 1, "MPI_Recv": 1}
    assert analysis.stream.messages == 1  # matched
    chrome = traced.export("chrome", tmp_path / "api.json")
    assert _cli("export", "t", "--format", "chrome", "-o", "cli.json", cwd=tmp_path).returncode == 0
    assert chrome.read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert traced.export("perfetto") == Path("t.pftrace")
    assert (tmp_path / "t.pftrace").stat().st_size > 0


def test_bad_calls_are_one_line_before_anything_runs(written: Path, tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="no trace there"):
        mpiscope.open_trace(tmp_path)
    with pytest.raises(MpiscopeError, match="no export format 'vtk'"):
        mpiscope.open_trace(written).export("vtk")
    with pytest.raises(MpiscopeError, match=r"mpiscope.trace_program\(\): unknown option 'ranks'"):
        mpiscope.trace_program("./app", ranks=2)
    with pytest.raises(MpiscopeError, match="--np"):
        mpiscope.trace_program("./app", np=0)
    with pytest.raises(MpiscopeError, match="both start the ranks"):
        mpiscope.trace_program(["mpiexec", "-n", "2", "./app"], np=2)
    with pytest.raises(MpiscopeError, match="does not exist"):
        mpiscope.trace_program(str(tmp_path / "nothing"), np=2, out=tmp_path / "n")


@pytest.mark.mpi
def test_a_program_traced_from_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    exe = build_example("late_p2p", "mpich", tmp_path)
    monkeypatch.setenv("MPISCOPE_TRACE_LIB", tracer_lib("mpich"))
    traced = mpiscope.trace_program(str(exe), np=2, out=tmp_path / "p", mpi="mpich")
    assert capsys.readouterr().err == ""  # the command's lines are the command's
    assert len(traced.files) == 2 and traced.worlds == ()
    names = {f.name for f in traced.analysis().functions}
    assert {"MPI_Send", "MPI_Recv"} <= names
    with pytest.raises(MpiscopeError, match="--force"):  # the trace is there: not replaced
        mpiscope.trace_program(str(exe), np=2, out=tmp_path / "p", mpi="mpich")
    failing = tmp_path / "fails.sh"
    failing.write_text("#!/bin/sh\nexit 3\n")
    failing.chmod(0o755)
    with pytest.raises(RunFailedError, match="exited with code 3"):
        mpiscope.trace_program(str(failing), np=2, out=tmp_path / "f", mpi="mpich")
