"""Recording a trace: the tracer library of an MPI installation, the trace
directory, and the environment that puts the tracer under a program.

The tracer (libmpiscope-trace.so, built for each MPI by ``make``) goes in
LD_PRELOAD: the program is not rebuilt. docs/tracer.md tells more.
"""

from __future__ import annotations

import os
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.launcher import build_env
from mpiscope.mpi_profile import MpiProfile, select_profile
from mpiscope.trace.reader import other_worlds

__all__ = ["prepare_dir", "rank_files", "traced_env", "tracer_library"]


def tracer_library(mpi: str | None) -> tuple[MpiProfile, str]:
    """The selected MPI profile and its tracer library (MPISCOPE_TRACE_LIB overrides)."""
    profile = select_profile(mpi)
    lib = os.environ.get("MPISCOPE_TRACE_LIB") or os.path.join(
        profile.prefix, "lib", "libmpiscope-trace.so")
    if not os.path.isfile(lib):
        raise MpiscopeError(f"no tracer library at {lib} (MPI {profile.name!r}): run `make` "
                            "(or make MPI=openmpi), or set MPISCOPE_TRACE_LIB")
    return profile, lib


def rank_files(out: Path) -> list[Path]:
    """The per-rank event files of a trace directory, in rank order."""
    return sorted(out.glob("rank-*.mst")) if out.is_dir() else []


def prepare_dir(out: Path, force: bool) -> None:
    """Create the trace directory; an old trace in it is replaced only with ``force``."""
    if out.exists() and not out.is_dir():
        raise MpiscopeError(f"{out} exists and is not a directory")
    worlds = other_worlds(out) if out.is_dir() else []
    old = rank_files(out) + [f for w in worlds for f in rank_files(w)]
    if old and not force:
        raise MpiscopeError(f"{out} already holds a trace (use --force to replace it)")
    for f in old:
        f.unlink()
    for w in worlds:  # else the next run's spawned jobs would go to world-2, ...
        try:
            w.rmdir()
        except OSError:
            pass  # something else is in it: kept, and the next world takes another number
    out.mkdir(parents=True, exist_ok=True)


def traced_env(profile: MpiProfile, lib: str, out: Path, records: int | None) -> dict[str, str]:
    """The profile's environment with the tracer preloaded, writing into ``out``."""
    env = build_env(profile)
    env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["MPISCOPE_TRACE_DIR"] = str(out)
    if records is not None:
        env["MPISCOPE_TRACE_RECORDS"] = str(records)
    return env
