"""Open MPI's session directory, ``$TMPDIR/ompi.<pid of mpiexec>``.

mpiexec (PRRTE's prterun) makes it when it starts and removes it when it
ends, on SIGTERM too; killed by SIGKILL it leaves it behind. A later
mpiexec that gets the same process id (pids wrap at 32,768 on many Linux
systems, within minutes on a busy machine) finds the dead one's rendezvous
files there and cannot start: "The PMIx server's listener thread failed to
start", exit code 213, before any rank runs (it removes the directory as
it stops, so the next launch starts). So mpiscope removes the directory of
a launcher it reaps killed by SIGKILL (its own stop's, or anyone's), and
when a launch fails that way, its error line says why.

Checked with Open MPI 5.0 (docs/guarantees.md, "Processes mpiscope starts").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: Open MPI's words when a stale session directory stops mpiexec.
LISTENER_FAILED = "The PMIx server's listener thread failed to start"


def session_dir(pid: int, env: Mapping[str, str] | None = None) -> Path:
    """Where the mpiexec of process id ``pid`` keeps its session: the first
    of TMPDIR, TEMP, TMP set in ``env`` (default: this process's), else /tmp."""
    env = os.environ if env is None else env
    base = next((env[k] for k in ("TMPDIR", "TEMP", "TMP") if env.get(k)), "/tmp")
    return Path(base) / f"ompi.{pid}"


def remove_left_behind(pid: int) -> None:
    """Remove the session directory of a launcher that was killed (SIGKILL)
    and has been reaped: nothing else can own it, and the next process
    given this id would fail on it. Only a directory of this user's."""
    path = session_dir(pid)
    try:
        if path.is_dir() and not path.is_symlink() and path.stat().st_uid == os.geteuid():
            import shutil

            shutil.rmtree(path, ignore_errors=True)
    except OSError:
        pass  # gone meanwhile, or not ours to look at


def stale_dir_reason(pid: int) -> str:
    """The reason to say when mpiexec ``pid`` could not start its PMIx
    server. The failing mpiexec removes the stale directory as it exits,
    so the next launch starts."""
    return (f"Open MPI's mpiexec could not start: {session_dir(pid)} was left by a killed "
            "job that had the same process id (mpiexec removed it as it stopped): run again")
