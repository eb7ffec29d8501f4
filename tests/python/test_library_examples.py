"""The library form: the examples in examples/library, built against the
INSTALLED libmpiscope of each built MPI (the profile's prefix, where `make`
installs it) once with CMake's find_package(mpiscope) and once with
pkg-config, run with 2 ranks, their result documents opened with
`mpiscope report`. No timing thresholds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope.launcher import build_env, mpiexec_command
from mpiscope.mpi_profile import MpiProfile, find_profiles

MPIS = ["mpich", "openmpi"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "library"
OPS = {
    "one_to_two": {"user_one_to_two", "one_to_two"},
    "linear_bcast": {"user_linear_bcast", "bcast"},
}


def run(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:  # fmt: skip
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=timeout, check=False)  # fmt: skip
    output = result.stdout[-2000:] + result.stderr[-3000:]
    assert result.returncode == 0, f"{' '.join(argv)}:\n{output}"
    return result


@pytest.fixture(params=MPIS)
def profile(request: pytest.FixtureRequest) -> MpiProfile:
    profiles = find_profiles()
    name: str = request.param
    assert name in profiles, f"MPI '{name}' is not built: run `make MPI={name}`"
    return profiles[name]


def build_with_cmake(profile: MpiProfile, build: Path) -> Path:
    env = {**os.environ, "CC": profile.mpicc}
    prefix = f"-DCMAKE_PREFIX_PATH={profile.prefix}"
    run(["cmake", "-S", str(EXAMPLES), "-B", str(build), prefix], env)
    run(["cmake", "--build", str(build)], env)
    return build


def build_with_pkg_config(profile: MpiProfile, build: Path) -> Path:
    build.mkdir()
    pkgconfig = Path(profile.prefix) / "lib" / "pkgconfig"
    run(["make", "-C", str(EXAMPLES), f"BUILD={build}", f"MPICC={profile.mpicc}",
         f"PKG_CONFIG_PATH={pkgconfig}"])  # fmt: skip
    return build


def linked_library(binary: Path) -> Path:
    """The directory the dynamic linker takes libmpiscope from."""
    for line in run(["ldd", str(binary)]).stdout.splitlines():
        name, _, where = line.strip().partition(" => ")
        if name.startswith("libmpiscope.so"):
            return Path(where.split(" (")[0]).resolve().parent
    raise AssertionError(f"{binary} is not linked with libmpiscope")


@pytest.mark.parametrize("how", ["cmake", "pkg-config"])
@pytest.mark.mpi
def test_examples_against_installed_library(profile: MpiProfile, how: str, tmp_path: Path) -> None:
    installed = Path(profile.prefix)
    assert (installed / "lib" / "cmake" / "mpiscope" / "mpiscopeConfig.cmake").is_file()
    assert (installed / "lib" / "pkgconfig" / "mpiscope.pc").is_file()
    build = (build_with_cmake if how == "cmake" else build_with_pkg_config)(profile, tmp_path / how)
    env = build_env(profile)
    for name, ops in OPS.items():
        binary = build / name
        assert binary.is_file()
        assert linked_library(binary) == (installed / "lib").resolve()  # the installed one
        # validated on one build, timed on the other: both paths of the API
        out = tmp_path / f"{name}-{how}.json"
        flags = ["--validate"] if how == "pkg-config" else []
        command = [*mpiexec_command(profile, 2, True), str(binary), *flags, str(out)]
        ran = run(command, env, tmp_path)
        assert f"{name}: result {out}" in ran.stdout
        doc = json.loads(out.read_text())
        assert doc["status"] == "complete" and doc["environment"]["ranks"] == 2
        assert {p["op"] for p in doc["points"]} == ops
        for p in doc["points"]:
            assert p["launches_total"] > 0
            if flags:
                assert p["validation"]["launches_checked"] > 0
                assert p["validation"]["failures"] == 0, p["validation"]["first_mismatch"]
        report = run([sys.executable, "-m", "mpiscope", "report", str(out)])
        assert all(op in report.stdout for op in ops)
