"""mpiexec on ``--hosts`` and ``--hostfile``, for real on this machine.

Each MPI spells them its own way (MPICH's hydra ``-hosts``/``-f``, Open
MPI's ``--host``/``--hostfile``, hostfile lines ``host:2`` vs ``host
slots=2``): the runs below use ``localhost`` with 2 slots, and the result
must name this machine as the node of both ranks. The Open MPI runs need
its build (``make MPI=openmpi``). Runs on many
nodes are simulated (SimGrid SMPI, ``make smpi``): each rank's node there.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.mpi_profile import find_profiles
from test_smpi import needs_smpi

#: The hostfile of 2 slots on this machine, in each MPI's format.
HOSTFILE = {"mpich": "localhost:2\n", "openmpi": "localhost slots=2\n"}
#: The launcher words each MPI gets for --hosts / --hostfile / --ppn / --cpu-bind.
WORDS = {
    "mpich": (["-hosts", "localhost:2"], "-f", ["-ppn", "2", "-bind-to", "core"]),
    "openmpi": (["--host", "localhost:2"], "--hostfile",
                ["--map-by", "ppr:2:node", "--bind-to", "core"]),
}  # fmt: skip


def _profile(name: str) -> Any:
    profile = find_profiles().get(name)
    assert profile is not None and os.access(profile.bench, os.X_OK), f"make MPI={name}"
    return profile


def _run(mpi: str, tmp_path: Path, *flags: str) -> dict[str, Any]:
    out = tmp_path / f"{mpi}.json"
    env = dict(os.environ)
    if mpi != "mpich":
        env.pop("MPISCOPE_BENCH", None)  # a bench override is the MPICH build's
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "barrier", "--np", "2", *flags,
         "--sizes", "0", "--stop", "count", "--max-launches", "20", "--mpi", mpi, "--quiet",
         "--out", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    environment: dict[str, Any] = json.loads(out.read_text())["environment"]
    assert environment["launcher_name"] == "mpiexec"
    assert environment["ranks"] == 2
    assert environment["hosts"] == [socket.gethostname()]
    assert environment["rank_nodes"] == [0, 0]
    return environment


@pytest.mark.mpi
@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
def test_hosts(mpi: str, tmp_path: Path) -> None:
    _profile(mpi)
    environment = _run(mpi, tmp_path, "--hosts", "localhost:2")
    hosts_words, _, _ = WORDS[mpi]
    assert environment["launcher"].split()[3:] == hosts_words
    assert environment["binding"] == "launcher default"


@pytest.mark.mpi
@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
def test_hostfile_ppn_and_binding(mpi: str, tmp_path: Path) -> None:
    _profile(mpi)
    hostfile = tmp_path / "hosts.txt"
    hostfile.write_text(HOSTFILE[mpi])
    environment = _run(mpi, tmp_path, "--hostfile", "hosts.txt", "--ppn", "2",
                       "--cpu-bind", "cores")  # fmt: skip
    _, file_flag, placement = WORDS[mpi]
    assert environment["launcher"].split()[3:] == [file_flag, str(hostfile), *placement]
    assert environment["binding"] == "cores"
    # bound to a core each: one CPU per rank, not the same one
    cpus = environment["rank_cpus"]
    assert len(cpus) == 2 and all(cpu.isdigit() for cpu in cpus) and cpus[0] != cpus[1]
    assert environment["ranks_per_node"] == 2


@pytest.mark.mpi
def test_a_host_that_does_not_exist_fails(tmp_path: Path) -> None:
    """The hosts really reach mpiexec: an unknown one is a failed run."""
    _profile("mpich")
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "barrier", "--np", "2", "--hosts",
         "no-such-host.invalid:2", "--sizes", "0", "--mpi", "mpich", "--quiet", "--timeout",
         "60", "--out", str(tmp_path / "r.json")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1].startswith("mpiscope: error:")


@needs_smpi
@pytest.mark.parametrize(("platform", "np", "per_node"), [("cluster-8x8", 24, 8),
                                                          ("flat-1024", 32, 1)])  # fmt: skip
def test_node_of_every_rank_on_simulated_hosts(
    platform: str, np: int, per_node: int, tmp_path: Path
) -> None:
    """Many nodes, as this machine cannot give: the ranks fill the platform's
    hosts in order, so rank r is on node r // per_node."""
    out = tmp_path / "sim.json"
    env = {k: v for k, v in os.environ.items() if k != "MPISCOPE_BENCH"}
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "barrier", "--launcher", "smpi", "--platform",
         platform, "--np", str(np), "--sizes", "0", "--stop", "count", "--max-launches", "10",
         "--quiet", "--out", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    environment = json.loads(out.read_text())["environment"]
    assert environment["rank_nodes"] == [rank // per_node for rank in range(np)]
    assert len(set(environment["hosts"])) == len(environment["hosts"]) == np // per_node
    assert environment["nodes"] == np // per_node
    assert environment["launcher_name"] == "smpi" and "binding" not in environment
    assert "rank_cpus" not in environment  # one process for all simulated ranks
