"""`mpiscope trace` options and outputs (issue 13, defects 6 and 8): an
output the file system refuses is one error line, `summary -o FILE` writes
FILE, an impossible --records is refused before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trace_helpers import two_rank_trace


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=120)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("mpiscope: error: ") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    return proc.stderr


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return two_rank_trace(tmp_path / "t")


def test_summary_out_writes_the_file(trace: Path, tmp_path: Path) -> None:
    proc = cli("trace", "summary", "t", "-o", "summary.txt", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "summary.txt").read_text()
    assert "messages: 1 matched" in text and "Time per function" in text
    assert proc.stdout == ""


@pytest.mark.parametrize("view", [["summary"], ["export", "--format", "chrome"],
                                  ["export", "--format", "perfetto"],
                                  ["export", "--format", "otf2"], ["view"]])
def test_an_output_that_cannot_be_written_is_one_line(trace: Path, tmp_path: Path,
                                                      view: list[str]) -> None:
    (tmp_path / "plain-file").write_text("not a directory")
    out = "plain-file/out"  # refused by any file system, for any user
    err = one_line_error(cli("trace", view[0], "t", *view[1:], "-o", out, cwd=tmp_path))
    assert "cannot write plain-file/out" in err


@pytest.mark.parametrize("records", ["100000000000", "16777217", "15"])
def test_records_beyond_the_bounds_is_refused(tmp_path: Path, records: str) -> None:
    err = one_line_error(cli("trace", "--records", records, "--np", "2", "./x", cwd=tmp_path))
    assert "--records: must be at" in err and ("16777216" in err or "least 16" in err)
