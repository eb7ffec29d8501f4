"""Open MPI's session directory left by a killed mpiexec (CI, 2026-11-27:
an mpiexec given the process id of an earlier, SIGKILLed one stopped with
"The PMIx server's listener thread failed to start", exit code 213). mpiscope
removes the directory of a launcher it had to kill, and names the cause
when a launch fails on someone else's.

The launchers here are small scripts that behave as mpiexec does with its
directory; the last test checks that Open MPI really fails that way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope import launcher
from mpiscope.launcher import build_env, mpiexec_command, stop_process_group
from mpiscope.session_dirs import LISTENER_FAILED, session_dir
from trace_helpers import profile_or_fail

#: A launcher that makes its session directory, then (with "ignore") does
#: not end on SIGTERM, as an mpiexec busy with its ranks may not in 5 s.
LAUNCHER = """
import os, signal, sys, time
path = os.path.join(os.environ["TMPDIR"], f"ompi.{os.getpid()}")
os.mkdir(path)
open(os.path.join(path, "pmix.host.tool"), "w").write("rendezvous")
if sys.argv[1] == "ignore":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if sys.argv[1] == "die":
    os.kill(os.getpid(), signal.SIGKILL)
print("ready", flush=True)
time.sleep(600)
"""


def started(behavior: str, tmp_path: Path) -> subprocess.Popen[str]:
    """The launcher, once its directory exists (it says so)."""
    proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, behavior], text=True,
                            stdout=subprocess.PIPE, start_new_session=True)  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    return proc


@pytest.fixture
def own_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(launcher, "KILL_GRACE_SECONDS", 0.5)  # only how long the test takes
    return tmp_path


def test_a_launcher_killed_by_sigkill_leaves_no_session_dir(own_tmpdir: Path) -> None:
    proc = started("ignore", own_tmpdir)
    assert session_dir(proc.pid).is_dir()
    stop_process_group(proc)
    assert proc.returncode == -signal.SIGKILL
    assert not session_dir(proc.pid).exists()


def test_a_launcher_killed_by_anyone_leaves_no_session_dir(own_tmpdir: Path) -> None:
    """Killed by SIGKILL while mpiscope waits for it (the OOM killer, a
    user's kill -9), not by mpiscope's stop."""
    code = launcher.run_passthrough([sys.executable, "-c", LAUNCHER, "die"], os.environ, 600)
    assert code == -signal.SIGKILL
    assert [p.name for p in own_tmpdir.iterdir() if p.name.startswith("ompi.")] == []


def test_a_launcher_that_ends_on_sigterm_keeps_its_own_say(own_tmpdir: Path) -> None:
    """Ended on SIGTERM, a launcher has had its chance to clean up; what it
    chose to keep is not mpiscope's to remove."""
    proc = started("end", own_tmpdir)
    stop_process_group(proc)
    assert proc.returncode == -signal.SIGTERM
    assert session_dir(proc.pid).is_dir()


def test_only_a_directory_is_removed(own_tmpdir: Path) -> None:
    """A file of that name (not Open MPI's) stays."""
    from mpiscope.session_dirs import remove_left_behind

    (own_tmpdir / "ompi.4242").write_text("not a session")
    remove_left_behind(4242)
    assert (own_tmpdir / "ompi.4242").read_text() == "not a session"


def test_the_directory_follows_tmpdir_then_temp_then_tmp() -> None:
    assert session_dir(7, {"TMPDIR": "/a", "TEMP": "/b"}) == Path("/a/ompi.7")
    assert session_dir(7, {"TMPDIR": "", "TEMP": "/b", "TMP": "/c"}) == Path("/b/ompi.7")
    assert session_dir(7, {"TMP": "/c"}) == Path("/c/ompi.7")
    assert session_dir(7, {}) == Path("/tmp/ompi.7")


@pytest.mark.mpi
def test_open_mpi_stops_on_a_stale_session_dir_and_the_error_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real mpiexec started at the process id of a stale directory (a shell
    that makes it, then execs mpiexec, keeping its id): Open MPI says what
    LISTENER_FAILED matches, exits 213 and removes the directory; the
    reason mpiscope gives names it."""
    profile = profile_or_fail("openmpi")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    env = build_env(profile)
    stale = 'd="$TMPDIR/ompi.$$"; mkdir "$d"; echo stale > "$d/pmix.$(uname -n).tool"; exec "$@"'
    argv = ["sh", "-c", stale, "sh", *mpiexec_command(profile, 1), "true"]
    proc = subprocess.Popen(argv, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    _, stderr = proc.communicate(timeout=240)
    assert proc.returncode == 213, stderr
    assert LISTENER_FAILED in stderr
    assert not (tmp_path / f"ompi.{proc.pid}").exists()

    errors: list[str] = []
    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe:
        pipe.write(stderr)
    with os.fdopen(read) as stream:
        launcher._pump_errors(stream, errors, proc.pid)
    assert errors == [f"Open MPI's mpiexec could not start: {tmp_path}/ompi.{proc.pid} was "
                      "left by a killed job that had the same process id (mpiexec removed it "
                      "as it stopped): run again"]
