"""MPI-IO ops (file_write, file_read) where things go wrong: a directory that
does not exist (refused before launching), a full and a read-only file
system (each rank refuses before creating anything), a rank killed while
the file is open; in every case one error line and nothing left in the
directory. The file systems are tmpfs mounted in a private mount namespace
(``unshare -rm``: no privilege needed where user namespaces are allowed),
listed from inside it once the run is over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from real_bench import (
    HANG_SECONDS,
    REAL_MPI,
    bench_ranks,
    finish,
    kill_run,
    leftovers,
    mpiscope,
    start,
)

#: Run a command with DIR (its first argument) a fresh tmpfs of OPTIONS,
#: then list DIR into DIR.listing (outside the tmpfs) and exit as it did.
MOUNTED = 'mount -t tmpfs -o "$1" tmpfs "$0" || exit 99; shift; "$@"; rc=$?; ls -A "$0" > ' \
          '"$0.listing"; exit $rc'  # fmt: skip


def one_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error:"), stderr[-2000:]
    return lines[0]


def on_tmpfs(directory: Path, options: str, *args: str) -> subprocess.CompletedProcess[str]:
    directory.mkdir()
    run = subprocess.run(
        ["unshare", "-rm", "sh", "-c", MOUNTED, str(directory), options, sys.executable, "-m",
         "mpiscope", *args, "--mpi", REAL_MPI],
        capture_output=True, text=True, timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    assert run.returncode != 99, f"cannot mount a tmpfs in a user namespace: {run.stderr}"
    return run


@pytest.mark.mpi
def test_no_such_directory_is_refused_before_launching(tmp_path: Path) -> None:
    run = mpiscope("run", "file_write", "--sizes", "8", "--option", f"dir={tmp_path}/none",
                   "--out", "x.json", "--quiet", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 2
    assert "no such directory" in one_error(run.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.mpi
@pytest.mark.parametrize(
    ("op", "options", "size", "said"),
    [
        ("file_write", "size=1m", "1M", "1048576 bytes free on its file system"),
        ("file_read", "size=1m", "1M", "1048576 bytes free on its file system"),
        ("file_write", "ro,size=1m", "8", "read-only file system"),
    ],
)
def test_a_file_system_that_cannot_hold_the_point(op: str, options: str, size: str, said: str,
                                                  tmp_path: Path) -> None:  # fmt: skip
    target = tmp_path / "fs"
    run = on_tmpfs(target, options, "run", op, "--sizes", size, "--option", f"dir={target}",
                   "--out", str(tmp_path / "r.json"), "--quiet")  # fmt: skip
    assert run.returncode == 1
    line = one_error(run.stderr)
    assert said in line and op in line, line
    assert (tmp_path / "fs.listing").read_text() == ""  # nothing was created in it


def open_files_in(pid: int, directory: Path) -> list[str]:
    """The files under ``directory`` the process holds open (deleted ones too)."""
    found = []
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd)
            if target.startswith(f"{directory}/"):
                found.append(target)
    except OSError:  # the process ended, or a descriptor closed meanwhile
        pass
    return found


@pytest.mark.mpi
@pytest.mark.slow
def test_a_killed_rank_leaves_no_file(tmp_path: Path) -> None:
    """While file_write measures (a point that cannot end before the test
    acts: 100000 valid launches of 16 MiB, synced), rank 1 is killed once it holds
    the file open, already unlinked; the run ends with one line and the
    directory is empty."""
    target = tmp_path / "io"
    target.mkdir()
    proc = start("run", "file_write", "--np", "2", "--sizes", "16M", "--option",
                 f"dir={target}", "--option", "sync=1", "--stop", "count", "--max-valid", "100000",
                 "--max-launches", "100000", "--max-point-seconds", "600",
                 "--out", str(tmp_path / "k.json"), cwd=tmp_path)  # fmt: skip
    try:
        deadline = time.monotonic() + HANG_SECONDS
        held: list[str] = []
        # the op's event: its file open on rank 1 and already unlinked (rank 0
        # unlinks it just after the collective open: a look in between sees
        # it still named, as a CI run did)
        while not held or not all(name.endswith(" (deleted)") for name in held):
            assert proc.poll() is None, "the run ended before rank 1 held its file unlinked"
            assert time.monotonic() < deadline, f"rank 1 never held its file unlinked: {held}"
            rank1 = bench_ranks(proc).get(1)
            held = open_files_in(rank1, target) if rank1 else []
            time.sleep(0.05)
        os.kill(rank1, signal.SIGKILL)
        _, err = finish(proc)
    finally:
        kill_run(proc)
    assert proc.returncode not in (0, None)
    assert sum(line.startswith("mpiscope: error:") for line in err.splitlines()) == 1, err[-2000:]
    assert sorted(p.name for p in target.iterdir()) == []
    assert leftovers(proc) == []
