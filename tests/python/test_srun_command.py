"""``--launcher srun``: the srun command line mpiscope builds, its errors,
and a whole run through a fake srun.

The fake srun (a script) records its argv, checks that it got what a real
srun needs (``--ntasks``, ``--mpi``) and starts the ranks with the MPICH
build's mpiexec, so the bench really runs and the result really records
the launcher; the real Slurm test is tests/python/test_srun_slurm.py.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.measure.cluster import launch_command
from mpiscope.measure.options import add_launcher_options, measure_defaults
from mpiscope.measure.request import MeasureRequest
from mpiscope.mpi_profile import find_profiles
from mpiscope_fakes import run_cli, write_script


class _Profile:
    def __init__(self, implementation: str) -> None:
        self.implementation = implementation
        self.prefix = ""
        self.mpiexec = "/opt/mpi/bin/mpiexec"


def _args(*argv: str, np: int = 4) -> MeasureRequest:
    parser = argparse.ArgumentParser()
    add_launcher_options(parser)
    args = parser.parse_args(list(argv))
    return MeasureRequest.of({**measure_defaults(), **vars(args)}, np=np, oversubscribe=False)


@pytest.fixture
def fake_srun_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = write_script(tmp_path / "srun", "raise SystemExit(0)\n")
    monkeypatch.setenv("MPISCOPE_SRUN", str(path))
    return path


def test_srun_command_words(fake_srun_path: Path) -> None:
    args = _args(
        "--launcher", "srun", "-N", "2", "--ntasks-per-node", "2", "--cpu-bind", "cores",
        "--partition", "debug", "--account", "hpc", "--srun-arg=--exclusive",
    )  # fmt: skip
    assert launch_command(_Profile("mpich"), args) == [
        str(fake_srun_path), "--ntasks=4", "--nodes=2", "--ntasks-per-node=2",
        "--partition=debug", "--account=hpc", "--cpu-bind=cores", "--mpi=pmi2",
        "--kill-on-bad-exit=1", "--exclusive",
    ]  # fmt: skip


def test_srun_mpi_type_by_implementation(fake_srun_path: Path) -> None:
    plain = _args("--launcher", "srun")
    assert "--mpi=pmix" in launch_command(_Profile("openmpi"), plain)
    assert not any(w.startswith("--mpi=") for w in launch_command(_Profile("other"), plain))
    chosen = _args("--launcher", "srun", "--srun-mpi", "pmix_v4")
    assert "--mpi=pmix_v4" in launch_command(_Profile("mpich"), chosen)


@pytest.mark.parametrize(
    ("implementation", "words"),
    [
        ("mpich", ["-hosts", "n1:2,n2:2", "-ppn", "2", "-bind-to", "socket"]),
        ("openmpi", ["--host", "n1:2,n2:2", "--map-by", "ppr:2:node", "--bind-to", "package"]),
    ],
)
def test_mpiexec_hosts_in_each_spelling(implementation: str, words: list[str]) -> None:
    args = _args("--hosts", "n1:2,n2:2", "--ppn", "2", "--cpu-bind", "sockets")
    command = launch_command(_Profile(implementation), args)
    assert command == ["/opt/mpi/bin/mpiexec", "-n", "4", *words]


def test_mpiexec_hostfile_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hosts.txt").write_text("n1:2\n")
    monkeypatch.chdir(tmp_path)
    args = _args("--hostfile", "hosts.txt")
    assert launch_command(_Profile("mpich"), args)[-2:] == ["-f", str(tmp_path / "hosts.txt")]
    assert launch_command(_Profile("openmpi"), args)[-2:] == [
        "--hostfile", str(tmp_path / "hosts.txt"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "np", "message"),
    [
        (["--nodes", "2"], 4, "--nodes is for --launcher srun"),
        (["--partition", "p"], 4, "--partition is for --launcher srun"),
        (["--hosts", "a", "--hostfile", "/etc/hostname"], 4, "give one of them"),
        (["--cpu-bind", "map_cpu:0"], 4, "with mpiexec one of none, cores"),
        (["--hostfile", "/nonexistent/hosts"], 4, "no such file"),
        (["--launcher", "srun", "--hosts", "a"], 4, "--hosts is for mpiexec"),
        (["--launcher", "srun", "-N", "2", "--ppn", "1"], 4, "do not fit"),
        (["--launcher", "srun", "-N", "4"], 2, "fewer ranks than --nodes"),
        (["--launcher", "smpi", "--ppn", "2"], 4, "is for real runs"),
    ],
)
def test_flags_that_do_not_go_together(
    argv: list[str], np: int, message: str, fake_srun_path: Path
) -> None:
    with pytest.raises(MpiscopeError, match=message):
        launch_command(_Profile("mpich"), _args(*argv, np=np))


@pytest.mark.parametrize("flag", [["--hosts", "a,b"], ["--cpu-bind", "cores"], ["--ppn", "2"]])
def test_simulated_run_refuses_placement_flags(tmp_path: Path, flag: list[str]) -> None:
    """The command line, not only launch_command: find_bench checks the flags
    before it takes the smpi path (they were silently ignored there)."""
    run = run_cli(["run", "bcast", "--np", "2", "--launcher", "smpi", "--platform", "cluster-8x8",
                   *flag, "--dry-run", "--out", str(tmp_path / "r.json")])  # fmt: skip
    assert run.code != 0
    assert len(run.err_lines) == 1 and "is for real runs" in run.err_lines[0], run.err_lines


@pytest.mark.mpi
def test_no_srun_is_one_error_line(tmp_path: Path) -> None:
    env = {**os.environ, "MPISCOPE_SRUN": str(tmp_path / "missing-srun")}
    run = run_cli(
        ["run", "bcast", "--launcher", "srun", "--np", "2", "--out", str(tmp_path / "r.json")],
        env=env,
    )  # fmt: skip
    assert run.code != 0
    assert run.err_lines == [
        f"mpiscope: error: --launcher srun: no MPISCOPE_SRUN={tmp_path / 'missing-srun'} "
        "(run on a Slurm login node, inside salloc or sbatch)"
    ]


def test_bad_hosts_is_one_error_line(tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--hosts", "a:0", "--out", str(tmp_path / "r.json")])
    assert run.code != 0
    assert len(run.err_lines) == 1 and "must be HOST[:SLOTS]" in run.err_lines[0]


#: The fake srun: records argv, refuses what a real srun would not start an
#: MPICH job with, and runs the ranks under the MPICH build's mpiexec.
FAKE_SRUN = """
import json, os, sys
log, mpiexec = os.environ["FAKE_SRUN_LOG"], os.environ["FAKE_SRUN_MPIEXEC"]
argv = sys.argv[1:]
with open(log, "w") as f:
    json.dump(argv, f)
options = {}
while argv and argv[0].startswith("--"):
    key, _, value = argv.pop(0)[2:].partition("=")
    options[key] = value
if "ntasks" not in options or options.get("mpi") != "pmi2":
    sys.exit("fake srun: needs --ntasks=N and --mpi=pmi2 for MPICH")
os.execv(mpiexec, [mpiexec, "-n", options["ntasks"], *argv])
"""


def _mpich() -> Any:
    profile = find_profiles().get("mpich")
    assert profile is not None and Path(profile.bench).is_file(), "no MPICH build: run make"
    return profile


@pytest.mark.mpi
def test_run_through_a_fake_srun(tmp_path: Path) -> None:
    profile = _mpich()
    log = tmp_path / "srun-argv.json"
    srun = write_script(tmp_path / "srun", FAKE_SRUN)
    env = {**os.environ, "MPISCOPE_SRUN": str(srun), "FAKE_SRUN_LOG": str(log),
           "FAKE_SRUN_MPIEXEC": profile.mpiexec}  # fmt: skip
    out = tmp_path / "srun.json"
    run = run_cli(
        ["run", "bcast", "--np", "2", "--launcher", "srun", "-N", "1", "--ntasks-per-node", "2",
         "--cpu-bind", "cores", "--partition", "debug", "--sizes", "8", "--stop", "count",
         "--max-launches", "20", "--mpi", "mpich", "--quiet", "--out", str(out)],
        env=env, cwd=tmp_path,
    )  # fmt: skip
    assert run.code == 0, run.stderr
    argv = json.loads(log.read_text())
    assert argv[:6] == ["--ntasks=2", "--nodes=1", "--ntasks-per-node=2", "--partition=debug",
                        "--cpu-bind=cores", "--mpi=pmi2"]  # fmt: skip
    assert argv[7:] == [os.environ.get("MPISCOPE_BENCH") or profile.bench, "--plan",
                        argv[9]]  # fmt: skip
    environment = json.loads(out.read_text())["environment"]
    assert environment["launcher"].startswith(f"{srun} --ntasks=2 --nodes=1")
    assert environment["launcher_name"] == "srun"
    assert environment["binding"] == "cores"
    assert environment["hosts"] == [socket.gethostname()]
    assert environment["rank_nodes"] == [0, 0]
    assert environment["ranks_per_node"] == 2
    assert "launcher     " + environment["launcher"] in run.stdout


def test_a_commands_own_nodes_flag_is_not_srun_s(fake_srun_path: Path) -> None:
    """The Alltoall lab's --nodes (virtual nodes, dest ``nodes``) is its own:
    neither refused with mpiexec nor passed to srun."""
    request = MeasureRequest.of({**measure_defaults(), "nodes": 0}, np=4)
    assert launch_command(_Profile("mpich"), request) == ["/opt/mpi/bin/mpiexec", "-n", "4"]
    srun = request.with_options(launcher="srun")
    assert not any(w.startswith("--nodes") for w in launch_command(_Profile("mpich"), srun))
