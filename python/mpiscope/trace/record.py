"""Recording a trace: the tracer library of an MPI installation, the trace
directory, and the environment that puts the tracer under a program.

The tracer (libmpiscope-trace.so, built for each MPI by ``make``) goes in
LD_PRELOAD: the program is not rebuilt. docs/tracer.md tells more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from mpiscope import inputs
from mpiscope.errors import MpiscopeError
from mpiscope.launcher import build_env
from mpiscope.mpi_profile import MpiProfile, select_profile
from mpiscope.trace.reader import other_worlds

__all__ = ["check_program", "prepare_dir", "rank_files", "traced_env", "tracer_library"]

#: An ELF shared object starts so (magic, then e_type ET_DYN at byte 16).
_ELF = b"\x7fELF"
_ET_DYN = 3


def tracer_library(mpi: str | None) -> tuple[MpiProfile, str]:
    """The selected MPI profile and its tracer library (MPISCOPE_TRACE_LIB overrides)."""
    profile = select_profile(mpi)
    given = os.environ.get("MPISCOPE_TRACE_LIB")
    lib = given or os.path.join(profile.prefix, "lib", "libmpiscope-trace.so")
    if not os.path.exists(lib):
        raise MpiscopeError(f"no tracer library at {lib} (MPI {profile.name!r}): run `make` "
                            "(or make MPI=openmpi), or set MPISCOPE_TRACE_LIB")
    what = "MPISCOPE_TRACE_LIB" if given else "the tracer library"
    head = _head(lib, what)
    if head[:4] != _ELF or int.from_bytes(head[16:18], "little") != _ET_DYN:
        raise MpiscopeError(f"{what} {lib} is not a shared library (ELF shared object): the "
                            "program could not preload it")  # fmt: skip
    return profile, lib


def _head(path: str, what: str) -> bytes:
    """The first bytes of a regular file (its ELF header)."""
    with inputs.open_input(path, what, limit=None) as file:
        try:
            return file.read(18)
        except OSError as exc:
            raise MpiscopeError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def check_program(program: str, what: str) -> str:
    """The path of the program a trace starts: an executable regular file
    (a name without / is looked up on the PATH); one line when it is not."""
    found = shutil.which(program) if os.sep not in program else program
    if found is None or not os.path.exists(found):
        raise MpiscopeError(f"{what} {program} does not exist (nor is it on the PATH)")
    if not os.path.isfile(found):
        raise MpiscopeError(f"{what} {program} is not a program: not a regular file")
    if not os.access(found, os.X_OK):
        raise MpiscopeError(f"{what} {program} is not executable")
    return found


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
    try:
        for f in old:
            f.unlink()
        for w in worlds:  # else the next run's spawned jobs would go to world-2, ...
            try:
                w.rmdir()
            except OSError:
                pass  # something else is in it: kept, and the next world takes another number
        out.mkdir(exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=out, prefix=".mpiscope-probe-")  # writable?
        probe.close()
    except OSError as exc:
        raise MpiscopeError(f"cannot write the trace {out}: {exc.strerror or exc}") from None


def traced_env(profile: MpiProfile, lib: str, out: Path, records: int | None) -> dict[str, str]:
    """The profile's environment with the tracer preloaded, writing into ``out``."""
    env = build_env(profile)
    env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["MPISCOPE_TRACE_DIR"] = str(out)
    env["MPISCOPE_TRACE_QUIET"] = "1"  # a rank's failed writes: said once, in mpiscope's line
    if records is not None:
        env["MPISCOPE_TRACE_RECORDS"] = str(records)
    return env
