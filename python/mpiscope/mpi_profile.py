"""MPI installations that mpiscope can run with ("profiles").

The build (``make``, ``make MPI=openmpi``) writes one JSON profile per MPI it
built mpiscope-bench with, at ``<sys.prefix>/share/mpiscope/mpi/<name>.json``::

    {"name": "mpich", "implementation": "mpich", "prefix": "/...",
     "mpicc": "/.../mpicc", "mpiexec": "/.../mpiexec",
     "bench": "/.../mpiscope-bench"}

Selection: ``--mpi NAME``, else the environment variable ``MPISCOPE_MPI``,
else "mpich" if present, else the only profile. ``MPIEXEC`` and
``MPISCOPE_BENCH`` override the two paths of the chosen profile; with no
profile at all, ``MPISCOPE_BENCH`` alone defines one (implementation
"other", mpiexec from ``MPIEXEC`` or the PATH). ``MPISCOPE_PROFILE_DIR``
replaces the profile directory (tests, relocated installs).

``make smpi`` writes the profile ``smpi`` (implementation "smpi", mpiexec
``smpirun``): the bench built for SimGrid SMPI, which runs only on a
simulated platform (``--launcher smpi``, :mod:`mpiscope.measure.simulation`)
and is never chosen by default.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from mpiscope import inputs
from mpiscope.errors import MpiscopeError

__all__ = [
    "IMPLEMENTATIONS",
    "MpiProfile",
    "find_profiles",
    "profile_dir",
    "select_profile",
]

IMPLEMENTATIONS = ("mpich", "openmpi", "other", "smpi")
DEFAULT_NAME = "mpich"
_HINT = "run `make` (or make MPI=openmpi)"
_KEYS = ("name", "implementation", "prefix", "mpicc", "mpiexec", "bench")
#: The largest profile read (a few hundred bytes in practice).
MAX_PROFILE_BYTES = 1 << 20


@dataclass(frozen=True)
class MpiProfile:
    """One MPI installation and the mpiscope-bench built with it."""

    name: str
    implementation: str  # "mpich" | "openmpi" | "other" | "smpi" (SimGrid, --launcher smpi)
    prefix: str
    mpicc: str
    mpiexec: str
    bench: str
    source: str  # where the profile came from: a file path or "environment"

    def check_bench(self) -> str:
        """The bench path, after checking it is an executable file."""
        return _check_executable(self.bench, "mpiscope-bench", self.source)

    def check_mpiexec(self) -> str:
        """The mpiexec path, after checking it is an executable file."""
        return _check_executable(self.mpiexec, "mpiexec", self.source)


def profile_dir() -> Path:
    """The directory holding the profiles (``MPISCOPE_PROFILE_DIR`` if set)."""
    override = os.environ.get("MPISCOPE_PROFILE_DIR")
    if override:
        return Path(override)
    return Path(sys.prefix) / "share" / "mpiscope" / "mpi"


def find_profiles(directory: Path | None = None) -> dict[str, MpiProfile]:
    """All profiles in ``directory`` (default :func:`profile_dir`), by name."""
    directory = profile_dir() if directory is None else directory
    try:
        files = sorted(directory.glob("*.json"))
    except OSError as exc:
        raise MpiscopeError(f"cannot read the MPI profile directory {directory}: {exc}") from None
    profiles: dict[str, MpiProfile] = {}
    for path in files:
        profile = _read_profile(path)
        profiles[profile.name] = profile
    return profiles


def select_profile(name: str | None = None) -> MpiProfile:
    """The profile to run with, following the rules in the module doc."""
    requested = name or os.environ.get("MPISCOPE_MPI") or None
    directory = profile_dir()
    profiles = find_profiles(directory)
    if requested is None:  # the SMPI build runs only when asked for (--launcher smpi)
        profiles = {k: p for k, p in profiles.items() if p.implementation != "smpi"}
    if requested is not None:
        if requested not in profiles:
            have = ", ".join(sorted(profiles)) or "none"
            raise MpiscopeError(
                f"no MPI installation named {requested!r} in {directory} "
                f"(available: {have}): {_HINT}"
            )
        chosen = profiles[requested]
    elif DEFAULT_NAME in profiles:
        chosen = profiles[DEFAULT_NAME]
    elif len(profiles) == 1:
        chosen = next(iter(profiles.values()))
    elif profiles:
        raise MpiscopeError(
            f"several MPI installations ({', '.join(sorted(profiles))}): "
            "choose one with --mpi NAME or MPISCOPE_MPI"
        )
    else:
        environment = _profile_from_environment()
        if environment is None:
            raise MpiscopeError(f"no MPI installation found in {directory}: {_HINT}")
        return environment
    return _apply_overrides(chosen)


def _apply_overrides(profile: MpiProfile) -> MpiProfile:
    mpiexec = os.environ.get("MPIEXEC") or profile.mpiexec
    bench = os.environ.get("MPISCOPE_BENCH") or profile.bench
    return replace(profile, mpiexec=mpiexec, bench=bench)


def _profile_from_environment() -> MpiProfile | None:
    bench = os.environ.get("MPISCOPE_BENCH")
    if not bench:
        return None
    mpiexec = os.environ.get("MPIEXEC") or shutil.which("mpiexec") or "mpiexec"
    return MpiProfile(
        name="environment",
        implementation="other",
        prefix=str(Path(mpiexec).resolve().parent.parent) if os.sep in mpiexec else "",
        mpicc="",
        mpiexec=mpiexec,
        bench=bench,
        source="environment (MPISCOPE_BENCH)",
    )


def _read_profile(path: Path) -> MpiProfile:
    data = inputs.read_json(path, "MPI profile", limit=MAX_PROFILE_BYTES)
    if not isinstance(data, dict):
        raise MpiscopeError(f"MPI profile {path} is not a JSON object")
    missing = [key for key in _KEYS if not isinstance(data.get(key), str)]
    if missing:
        raise MpiscopeError(f"MPI profile {path} lacks string field(s): {', '.join(missing)}")
    if data["implementation"] not in IMPLEMENTATIONS:
        raise MpiscopeError(
            f"MPI profile {path}: implementation {data['implementation']!r} is not one of "
            f"{', '.join(IMPLEMENTATIONS)}"
        )
    return MpiProfile(**{key: data[key] for key in _KEYS}, source=str(path))


def _check_executable(path: str, what: str, source: str) -> str:
    resolved = shutil.which(path) if os.sep not in path else path
    if resolved is None or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        raise MpiscopeError(f"{what} not found or not executable: {path} (from {source}): {_HINT}")
    return resolved
