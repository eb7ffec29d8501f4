"""``mpiscope run --launcher srun`` on a real, single-node Slurm.

The test writes a minimal slurm.conf for this host (authentication
``auth/none``: one machine, no munge; ports of its own, state in a
temporary directory), starts Debian's slurmctld and slurmd as root, runs
the MPICH build of mpiscope-bench under srun (``--mpi=pmi2``: MPICH's PMI
client speaks PMI-2 to Slurm's mpi/pmi2 plugin) and shuts Slurm down
again. It needs root and the packages slurmctld, slurmd and slurm-client
(``make deps`` installs them); without them it is skipped, saying why
(a failure under ``make test``). Open MPI runs too when its build is there and Slurm's
mpi/pmix plugin finds libpmix (Debian's libpmix-dev).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mpiscope.mpi_profile import find_profiles

DAEMONS = ("slurmctld", "slurmd")
#: Where Debian's Slurm 22.05 mpi/pmix plugin looks for the PMIx library.
PMIX_LIB = "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so"
START_SECONDS = 30.0


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "a single-node Slurm is started as root: not root"
    for program in (*DAEMONS, "srun", "sinfo", "scontrol"):
        if shutil.which(program) is None and not Path("/usr/sbin", program).is_file():
            return (f"{program} is not installed (make deps: apt-get install "
                    "slurmctld slurmd slurm-client, as root)")  # fmt: skip
    profile = find_profiles().get("mpich")
    if profile is None or not Path(profile.bench).is_file():
        return "the MPICH build of mpiscope-bench is missing: run make"
    return None


pytestmark = [pytest.mark.slurm, pytest.mark.mpi,
              pytest.mark.skipif(_missing() is not None, reason=_missing() or "")]


def _program(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _node_line(host: str) -> str:
    """This host as slurmd sees it (``slurmd -C``: CPUs, sockets, cores)."""
    found = subprocess.run([_program("slurmd"), "-C"], capture_output=True, text=True,
                           timeout=30, check=True).stdout.splitlines()[0]  # fmt: skip
    words = [w for w in found.split() if not w.startswith(("NodeName=", "RealMemory="))]
    return f"NodeName={host} NodeAddr=127.0.0.1 {' '.join(words)} State=UNKNOWN"


def _write_conf(root: Path, host: str) -> Path:
    ctld, slurmd = _free_ports(2)
    for sub in ("state", "spool", "log"):
        (root / sub).mkdir()
    conf = root / "slurm.conf"
    conf.write_text("\n".join([
        "ClusterName=mpiscope-test",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={ctld}", f"SlurmdPort={slurmd}",
        "AuthType=auth/none", "CredType=cred/none",
        "SlurmUser=root", "SlurmdUser=root",
        f"StateSaveLocation={root}/state", f"SlurmdSpoolDir={root}/spool",
        f"SlurmctldPidFile={root}/slurmctld.pid", f"SlurmdPidFile={root}/slurmd.pid",
        f"SlurmctldLogFile={root}/log/slurmctld.log", f"SlurmdLogFile={root}/log/slurmd.log",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/affinity",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        "MpiDefault=none", "ReturnToService=2", "SchedulerType=sched/builtin",
        _node_line(host),
        "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]) + "\n")  # fmt: skip
    return conf


def _stop(pid_file: Path) -> None:
    """SIGTERM, then SIGKILL, to a daemon this test started (by its pid file)."""
    with contextlib.suppress(OSError, ValueError):
        pid = int(pid_file.read_text().strip())
        for sig in (signal.SIGTERM, signal.SIGKILL):
            os.kill(pid, sig)
            for _ in range(50):
                time.sleep(0.1)
                os.kill(pid, 0)  # raises once it has ended


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("slurm")
    root.chmod(0o755)
    host = socket.gethostname().split(".")[0]
    conf = _write_conf(root, host)
    env = {**os.environ, "SLURM_CONF": str(conf)}
    try:
        subprocess.run([_program("slurmctld"), "-f", str(conf), "-i"], env=env, check=True,
                       timeout=30)  # fmt: skip
        subprocess.run([_program("slurmd"), "-f", str(conf)], env=env, check=True, timeout=30)
        state = ""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True,
                                   text=True, timeout=10, check=False).stdout.strip()  # fmt: skip
            if state == "idle":
                break
            time.sleep(0.5)
        logs = "\n".join(p.read_text()[-1500:] for p in sorted((root / "log").glob("*.log")))
        assert state == "idle", f"the test's Slurm node is {state!r}, not idle:\n{logs}"
        yield env
    finally:
        subprocess.run(["scontrol", "shutdown"], env=env, capture_output=True, timeout=30,
                       check=False)  # fmt: skip
        for daemon in DAEMONS:
            _stop(root / f"{daemon}.pid")


def test_srun_mpi_plugins(slurm: dict[str, str]) -> None:
    listed = subprocess.run(["srun", "--mpi=list"], env=slurm, capture_output=True, text=True,
                            timeout=60, check=True)  # fmt: skip
    assert "pmi2" in listed.stdout + listed.stderr


#: srun --mpi=TYPE for each MPI: MPICH's PMI client speaks PMI-2; Open MPI 5
#: speaks PMIx only (Slurm's mpi/pmix loads libpmix.so: Debian's libpmix-dev).
SRUN_MPI = {"mpich": "pmi2", "openmpi": "pmix"}


@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
def test_run_under_srun(mpi: str, slurm: dict[str, str], tmp_path: Path) -> None:
    profile = find_profiles().get(mpi)
    assert profile is not None and os.access(profile.bench, os.X_OK), f"make MPI={mpi}"
    if mpi == "openmpi":
        assert Path(PMIX_LIB).is_file(), f"Slurm's mpi/pmix needs {PMIX_LIB} (make deps)"
    env = dict(slurm)
    if mpi != "mpich":
        env.pop("MPISCOPE_BENCH", None)  # a bench override is the MPICH build's
    out = tmp_path / "srun.json"
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "bcast", "--np", "2", "--launcher", "srun",
         "--cpu-bind", "cores", "--sizes", "8", "--stop", "count", "--max-launches", "20",
         "--mpi", mpi, "--quiet", "--out", str(out)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    environment = json.loads(out.read_text())["environment"]
    assert environment["launcher"].split()[1:] == [
        "--ntasks=2", "--cpu-bind=cores", f"--mpi={SRUN_MPI[mpi]}", "--kill-on-bad-exit=1",
    ]  # fmt: skip
    assert environment["launcher_name"] == "srun"
    assert environment["binding"] == "cores"
    # two ranks of one MPI job (a singleton per task would make ranks == 1 and fail)
    assert environment["ranks"] == 2 and environment["ranks_per_node"] == 2
    assert environment["hosts"] == [socket.gethostname()]
    assert environment["rank_nodes"] == [0, 0]
    # srun bound each rank to a core of its own
    cpus = environment["rank_cpus"]
    assert len(cpus) == 2 and all(cpu.isdigit() for cpu in cpus) and cpus[0] != cpus[1]


def test_srun_without_pmi_is_two_singletons(slurm: dict[str, str], tmp_path: Path) -> None:
    """--srun-mpi none: each task is an MPI job of its own (rank 0 of 1); the
    bench sees one rank where two were asked for and stops before writing
    anything (so the test above can fail). Before, each singleton measured
    alone and raced for the one result file: a 1-rank document was kept."""
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "bcast", "--np", "2", "--launcher", "srun",
         "--srun-mpi", "none", "--sizes", "8", "--stop", "count", "--max-launches", "20",
         "--mpi", "mpich", "--quiet", "--out", str(tmp_path / "none.json")],
        env=slurm, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    line = run.stderr.splitlines()[-1]
    assert line.startswith("mpiscope: error: mpiscope-bench failed: "), line
    assert "1 rank started where 2 were asked for" in line and "give srun --mpi" in line, line
    assert not (tmp_path / "none.json").exists()


def test_health_under_srun(slurm: dict[str, str], tmp_path: Path) -> None:
    """mpiscope health with srun starting every phase's ranks (collectives,
    the links between the two ranks, the probes on their cores): each phase
    completes and says srun started it; the probes ran on the cores srun
    bound the ranks to."""
    out = tmp_path / "h.json"
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "health", "--np", "2", "--launcher", "srun",
         "--cpu-bind", "cores", "--seconds", "1", "--probe-seconds", "0.5", "--no-check",
         "--mpi", "mpich", "--quiet", "--out", str(out)],
        env=slurm, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    doc = json.loads(out.read_text())
    assert run.returncode == (1 if doc["suspects"] else 0), run.stderr
    phases = {p["name"]: p for p in doc["phases"]}
    assert [p["status"] for p in phases.values()] == ["complete"] * 4 + ["skipped"]
    for name in ("collectives", "links-latency", "links-bandwidth", "probe"):
        launcher = phases[name]["launcher"].split()
        assert launcher[0].endswith("srun") and "--ntasks=2" in launcher, phases[name]
    assert doc["environment"]["launcher_name"] == "srun"
    cpus = doc["environment"]["rank_cpus"]
    cores = doc["fingerprint"]["cores"]["cores"]
    assert [str(c["core"]) for c in sorted(cores, key=lambda c: c["rank"])] == cpus
