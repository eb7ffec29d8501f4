"""Faults met by the command line itself (issue 13): a double Ctrl-C, a
result file of deeply nested brackets, outputs on a read-only place, a
named pipe given as a result, a comparison with no common point, empty
option values. Each must give one ``mpiscope: error:`` line (or, for
Ctrl-C, one ``mpiscope: interrupted`` line) and never hang: every child is
bounded by a timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope_fakes import SAMPLE, FakeMpi

#: The longest any command here may take before the test calls it a hang.
HANG_SECONDS = 60


def cli(*args: str, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run([sys.executable, "-m", "mpiscope", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=HANG_SECONDS,
                          check=False)  # fmt: skip


def one_error(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mpiscope: error: "), lines[0]
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    return lines[0]


# --- malformed and unusual inputs -------------------------------------------------


def test_deeply_nested_result_is_one_error(tmp_path: Path) -> None:
    """Defect 6: 100,000 nested brackets used to raise RecursionError."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    line = one_error(cli("report", str(path)))
    assert "deep.json" in line


def test_report_on_a_named_pipe_does_not_hang(tmp_path: Path) -> None:
    """Defect 6: reading a FIFO nobody writes to blocked forever."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    line = one_error(cli("report", str(fifo)))
    assert "not a regular file" in line


@pytest.mark.parametrize("command", ["export", "html"])
def test_outputs_on_a_read_only_place_are_one_error(tmp_path: Path, command: str) -> None:
    """Defect 6: an output in a directory that cannot be written used to end
    in an OSError traceback."""
    if os.geteuid() == 0:
        target = Path("/proc/mpiscope-out")  # root writes anywhere but there
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        target = ro / "out"
    suffix = ".csv" if command == "export" else ".html"
    one_error(cli(command, str(SAMPLE), "-o", f"{target}{suffix}"))


def test_compare_with_no_common_point_exits_2(sample_doc: dict[str, object],
                                              tmp_path: Path) -> None:  # fmt: skip
    """Defect 5: two documents that share no point used to compare as
    '0 point(s) compared' with exit code 0."""
    other = json.loads(json.dumps(sample_doc))
    for point in other["points"]:  # type: ignore[index]
        point["op"] = "nosuchop"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    line = one_error(cli("compare", str(SAMPLE), str(path)))
    assert "no point in common" in line


@pytest.mark.parametrize("option", ["--mpi", "--out"])
def test_empty_option_value_is_refused(fake_mpi: FakeMpi, tmp_path: Path, option: str) -> None:
    """Defect 8: ``--mpi ''`` and ``--out ''`` used to fall back to the defaults."""
    line = one_error(cli("run", "bcast", "--np", "2", option, "", env=fake_mpi.env, cwd=tmp_path))
    assert option in line and "empty" in line
    assert not fake_mpi.mpiexec_log.exists(), "an empty option value reached mpiexec"


@pytest.mark.parametrize("size", ["64T", "1024T"])
def test_sizes_beyond_the_machine_are_refused_before_launch(
    fake_mpi: FakeMpi, tmp_path: Path, size: str
) -> None:
    """Defect 7: --sizes 64G on a 24 GiB machine launched, wrote a 0-point
    file and failed in the bench ('value out of range'). Now it is refused
    first, with the memory the point needs and what the machine has."""
    out = tmp_path / "r.json"
    line = one_error(cli("run", "bcast", "--np", "2", "--sizes", f"8,{size}", "--out", str(out),
                         env=fake_mpi.env, cwd=tmp_path))  # fmt: skip
    assert "needs at least" in line and "this machine has" in line, line
    assert not fake_mpi.mpiexec_log.exists(), "the run was launched"
    assert not out.exists()


def test_align_has_an_upper_bound(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    """Defect 7: --align 4T reached aligned_alloc (ASan: a 4 TiB allocation)."""
    out = str(tmp_path / "r.json")
    line = one_error(cli("run", "bcast", "--np", "2", "--align", str(4 << 40), "--out", out,
                         env=fake_mpi.env, cwd=tmp_path))  # fmt: skip
    assert "--align" in line and "at most" in line
    assert not fake_mpi.mpiexec_log.exists()


def test_launch_exit_codes_name_signals() -> None:
    """Defect 7: a rank's signal is named, not 'exit code 9'."""
    from mpiscope.launcher import describe_launch_exit

    assert describe_launch_exit(137) == "exit code 137: a rank was killed by SIGKILL"
    assert describe_launch_exit(3) == "exit code 3"
    assert describe_launch_exit(-9) == "killed by SIGKILL"


def test_mpich_banner_becomes_the_signal() -> None:
    """MPICH's multi-line report of a dead rank is not printed: its signal
    goes into the one error line."""
    from mpiscope.launcher import _Banner

    errors: list[str] = []
    banner = _Banner(errors)
    lines = ["=" * 83, "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
             "=   EXIT CODE: 9", "=" * 83,
             "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)",
             "This typically refers to a problem with your application.",
             "Please see the FAQ page for debugging suggestions"]  # fmt: skip
    assert all(banner.take(line) for line in lines)
    assert not banner.take("ordinary output")
    assert errors == ["a rank was killed by SIGKILL"]
    errors.clear()
    lines.insert(2, "=   PID 4242 RUNNING AT node7")  # MPICH 4 and 5 name the process
    banner = _Banner(errors)
    assert all(banner.take(line) for line in lines)
    assert errors == ["a rank (pid 4242 on node7) was killed by SIGKILL"]


def test_failed_series_keeps_the_previous_result(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    """Defect 3 for a series of runs: every run crashes before its
    first point; the previous --out file stays, and the line says so."""
    out = tmp_path / "r.json"
    out.write_text(SAMPLE.read_text())
    before = out.read_bytes()
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="crash")
    proc = cli("run", "bcast", "--np", "2", "--sizes", "8", "--runs", "2", "--out", str(out),
               "--force", "--quiet", env=env, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    line = proc.stderr.splitlines()[-1]  # after the fake bench's own words
    assert line.startswith("mpiscope: error: run 0 of 2: "), line
    assert f"the previous {out} is kept as it was" in line, line
    assert out.read_bytes() == before
