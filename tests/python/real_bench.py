"""The real command line against the real MPICH build, for tests marked
``mpi``; and runs that are still measuring whenever a test acts on them.

A test that must act while the bench measures (a signal, a killed rank, a
timeout) waits for an event the product emits, never for a sleep to outlast
the work: :data:`UNENDING` measures a barrier point first (its progress line
says the bench is measuring and the CLI is reading its lines), then a
wait-pattern point whose every launch waits 1 s on rank 0 and 2 s on rank 1
(wall time, on any processor), for at least ``k_init + min_valid`` launches
and up to ten minutes: it cannot end before the test acts, however fast or
slow the machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REAL_MPI = "mpich"

#: `mpiscope run` arguments of a run that ends its first point at once and
#: then measures for minutes (see the module doc).
UNENDING = ["barrier,waitpattern_up", "--np", "2", "--sizes", "1", "--option", "unit_us=1000000",
            "--max-point-seconds", "600", "--max-launches", "1000"]  # fmt: skip

#: The environment variable that tags the processes of a run (:func:`start`).
TAG = "MPISCOPE_TEST_RUN"
_TAGS: dict[int, str] = {}

#: The longest a test waits for an event of a real run before calling it a hang.
HANG_SECONDS = 300


def mpiscope(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The real command line, against the real MPICH build."""
    return subprocess.run(
        [sys.executable, "-m", "mpiscope", *args, "--mpi", REAL_MPI],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The real command line in the background, tagged (``MPISCOPE_TEST_RUN``
    in its environment, inherited by everything it starts) so that its
    processes can be found: :func:`bench_ranks`, :func:`leftovers`."""
    tag = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-m", "mpiscope", *args, "--mpi", REAL_MPI],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**(os.environ if env is None else env), TAG: tag}, start_new_session=True,
        preexec_fn=_stop_signals_default,
    )  # fmt: skip
    _TAGS[proc.pid] = tag
    return proc


def _stop_signals_default() -> None:
    """In the child: the stop signals the tests send act even when the suite
    runs with them ignored (``nohup make test`` ignores SIGHUP, and a
    command keeps a signal it was started ignoring)."""
    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)


def wait_for_progress(proc: subprocess.Popen[str], points: int = 1) -> list[str]:
    """Read the run's stderr until ``points`` progress lines have come (the
    CLI prints one per finished point when stderr is not a terminal): the
    bench is then measuring the next point and the CLI waits for its lines.
    The lines read are returned; the run ending first fails the test."""
    assert proc.stderr is not None
    seen: list[str] = []
    while sum(line.startswith("[") for line in seen) < points:
        line = proc.stderr.readline()
        if not line:
            proc.wait(timeout=HANG_SECONDS)
            raise AssertionError(f"the run ended (exit {proc.returncode}) before its "
                                 f"progress line {points}: {''.join(seen)}")  # fmt: skip
        seen.append(line)
    return seen


def finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The rest of the run's stdout and stderr once it has ended."""
    try:
        return proc.communicate(timeout=HANG_SECONDS)
    finally:
        if proc.poll() is None:
            kill_run(proc)


def kill_run(proc: subprocess.Popen[str]) -> None:
    """SIGKILL a run started by :func:`start` and every process it started:
    the launcher and the ranks sit in sessions of their own, and a failed
    test once left two ranks writing 16 MiB files for the rest of CI."""
    if proc.poll() is None:
        os.killpg(proc.pid, 9)
        proc.wait()
    for pid, _, _ in _tagged(proc):
        with contextlib.suppress(OSError):
            os.kill(pid, 9)


def _tagged(proc: subprocess.Popen[str]) -> Iterator[tuple[int, str, list[bytes]]]:
    """(pid, command name, environment) of every live process of a run
    started by :func:`start`, wherever it sits in the process tree."""
    tag = f"{TAG}={_TAGS[proc.pid]}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        state = stat[stat.rindex(")") + 2 :].split()[0]
        if tag in environ and state != "Z":
            yield int(entry.name), stat[stat.index("(") + 1 : stat.rindex(")")], environ


def leftovers(proc: subprocess.Popen[str]) -> list[str]:
    """The command names of the processes of a run still alive: once a run
    of mpiscope has ended, nothing it started may be left."""
    return sorted(name for pid, name, _ in _tagged(proc) if pid != proc.pid)


def bench_ranks(proc: subprocess.Popen[str]) -> dict[int, int]:
    """The mpiscope-bench processes of a run, by MPI rank (from the PMI_RANK
    the launcher gives each rank): rank -> pid."""
    ranks = {}
    for pid, name, environ in _tagged(proc):
        for item in environ:
            if name == "mpiscope-bench" and item.startswith(b"PMI_RANK="):
                ranks[int(item.split(b"=", 1)[1])] = pid
    return ranks


def read(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc
