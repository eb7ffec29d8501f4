"""Real clusters: ``--launcher srun`` (Slurm) and mpiexec on ``--hosts`` /
``--hostfile``, with ranks per node and CPU binding.

One set of flags, spelled for each launcher where they differ
(srun / MPICH hydra's mpiexec / Open MPI's mpiexec):

* ``--nodes N``: ``--nodes=N`` / refused / refused (list the hosts);
* ``--ntasks-per-node K``: ``--ntasks-per-node=K`` / ``-ppn K`` /
  ``--map-by ppr:K:node``;
* ``--cpu-bind B``: ``--cpu-bind=B`` as given / ``-bind-to core`` /
  ``--bind-to core`` (``cores``; :data:`BINDINGS` for the others);
* ``--hosts H``: refused (Slurm places) / ``-hosts H`` / ``--host H``;
* ``--hostfile F``: refused / ``-f F`` / ``--hostfile F``;
* ``--partition``, ``--account``: srun's own flags / refused / refused.

srun also gets ``--mpi=TYPE``: the process-management interface the MPI
library speaks (MPICH: ``pmi2``; Open MPI 5: ``pmix``; ``--srun-mpi``
overrides it), and ``--srun-arg ARG`` passes anything else to srun.
What the result records of it comes from :func:`cluster_meta`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mpiscope import inputs
from mpiscope.errors import MpiscopeError
from mpiscope.launcher import Installation, mpiexec_command
from mpiscope.parsing import MAX_RANKS, int_in

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from mpiscope.measure.request import MeasureRequest

__all__ = [
    "BINDINGS",
    "LAUNCHERS",
    "SRUN_MPI",
    "add_cluster_options",
    "cluster_meta",
    "launch_command",
    "check_hosts",
    "parse_hosts",
    "read_hostfile",
    "runs_elsewhere",
    "srun_path",
]

LAUNCHERS = ("mpiexec", "srun", "smpi")
#: srun's --mpi for each MPI implementation: MPICH's built-in PMI client
#: speaks PMI-2 over the PMI_FD Slurm's mpi/pmi2 plugin opens; Open MPI 5
#: speaks only PMIx (mpi/pmix). "other": Slurm's own default (MpiDefault).
SRUN_MPI = {"mpich": "pmi2", "openmpi": "pmix"}
#: ``--cpu-bind`` values mpiexec understands, in each implementation's words
#: (srun takes any of its own values as given).
BINDINGS = {
    "none": {"mpich": "none", "openmpi": "none"},
    "cores": {"mpich": "core", "openmpi": "core"},
    "threads": {"mpich": "hwthread", "openmpi": "hwthread"},
    "sockets": {"mpich": "socket", "openmpi": "package"},
    "numa": {"mpich": "numa", "openmpi": "numa"},
}
#: The flags only srun takes, by their argparse names (``--nodes`` is
#: ``srun_nodes``: the Alltoall lab's own ``--nodes`` is ``nodes``).
_SRUN_ONLY = ("srun_nodes", "partition", "account", "srun_mpi", "srun_arg")
#: The flags of the srun command, by their argparse names.
_SRUN_FLAGS = {"srun_nodes": "--nodes", "ntasks_per_node": "--ntasks-per-node",
               "partition": "--partition", "account": "--account", "cpu_bind": "--cpu-bind"}


def add_cluster_options(p: argparse.ArgumentParser, counts: bool = True) -> None:
    """The placement flags of real runs (srun, mpiexec on several hosts);
    ``counts``: with ``--nodes`` and ``--ntasks-per-node`` (a command with a
    ``--nodes`` of its own leaves them out: ``--srun-arg=--nodes=N`` then)."""
    if counts:
        p.add_argument(
            "--nodes", "-N", dest="srun_nodes", type=int_in(1, MAX_RANKS), metavar="N",
            help="with --launcher srun: nodes to run on (srun --nodes)",
        )  # fmt: skip
        p.add_argument(
            "--ntasks-per-node", "--ppn", dest="ntasks_per_node", type=int_in(1, MAX_RANKS),
            metavar="K",
            help="ranks per node: srun --ntasks-per-node, MPICH -ppn, "
            "Open MPI --map-by ppr:K:node",
        )  # fmt: skip
    p.add_argument(
        "--cpu-bind", metavar="HOW",
        help="pin ranks: with srun any --cpu-bind value (cores, sockets, map_cpu:0,2, ...); "
        f"with mpiexec one of {', '.join(BINDINGS)} (-bind-to / --bind-to)",
    )  # fmt: skip
    p.add_argument("--partition", metavar="NAME", help="with --launcher srun: Slurm partition")
    p.add_argument("--account", metavar="NAME", help="with --launcher srun: Slurm account")
    p.add_argument(
        "--srun-mpi", metavar="TYPE",
        help="with --launcher srun: srun --mpi=TYPE (default: pmi2 for MPICH, pmix for Open MPI; "
        "see srun --mpi=list)",
    )  # fmt: skip
    p.add_argument(
        "--srun-arg", action="append", default=[], metavar="ARG",
        help="with --launcher srun: one more srun argument, e.g. --srun-arg=--exclusive; "
        "repeatable",
    )  # fmt: skip
    p.add_argument(
        "--hosts", type=parse_hosts, metavar="H[:K],...",
        help="with mpiexec: hosts to run on, each with K slots (MPICH -hosts, Open MPI --host)",
    )  # fmt: skip
    p.add_argument(
        "--hostfile", metavar="FILE",
        help="with mpiexec: a hostfile in your MPI's format (MPICH -f, Open MPI --hostfile)",
    )  # fmt: skip


def parse_hosts(text: str) -> str:
    """Type of ``--hosts``: ``h1,h2`` or ``h1:2,h2:2`` (names, optional slots)."""
    for item in text.split(","):
        name, sep, slots = item.partition(":")
        if not name.strip() or " " in item or (sep and not (slots.isdigit() and int(slots) > 0)):
            raise argparse.ArgumentTypeError(
                f"must be HOST[:SLOTS],... such as node1:2,node2:2, not {text!r}"
            )
    return text


#: The largest hostfile read (a line per host).
MAX_HOSTFILE_BYTES = 16 << 20


def read_hostfile(path: str) -> list[str]:
    """The host names of a hostfile (MPICH ``host[:n]``, Open MPI ``host
    slots=n``; ``#`` comments), read before the launcher reads it: a
    regular UTF-8 text file that names at least one host."""
    try:
        text = inputs.read_text(path, "--hostfile", MAX_HOSTFILE_BYTES)
    except UnicodeDecodeError:
        raise MpiscopeError(f"--hostfile {path}: not a hostfile (not UTF-8 text)") from None
    hosts = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.partition("#")[0].split()
        if not words:
            continue
        name = words[0].partition(":")[0]
        if not name or not all(c.isalnum() or c in "-._" for c in name):
            raise MpiscopeError(f"--hostfile {path}: line {number} does not start with a host "
                                f"name: {line.strip()[:60]!r}")  # fmt: skip
        hosts.append(name)
    if not hosts:
        raise MpiscopeError(f"--hostfile {path}: names no host")
    return hosts


def check_hosts(request: MeasureRequest) -> None:
    """The hosts mpiexec would reach (--hosts, --hostfile): each name must
    resolve, else ssh and the launcher each say so, several lines, after
    the launch."""
    if _launcher(request) != "mpiexec":
        return
    flag, hosts = "--hosts", []
    if request.hostfile:
        flag, hosts = "--hostfile", read_hostfile(request.hostfile)
    elif request.hosts:
        hosts = [item.partition(":")[0] for item in request.hosts.split(",")]
    if not hosts:
        return
    import socket  # only for named hosts: 2-4 ms of every run's start

    for host in dict.fromkeys(hosts):
        try:
            socket.getaddrinfo(host, None)
        except (OSError, UnicodeError):
            raise MpiscopeError(f"{flag}: host {host!r} has no address (unknown name)") from None


def _launcher(request: MeasureRequest) -> str:
    return request.launcher or "mpiexec"


def _given(request: MeasureRequest, name: str) -> bool:
    value = getattr(request, name, None)
    return value not in (None, [], (), "")


def _flag(name: str) -> str:
    return _SRUN_FLAGS.get(name) or "--" + name.replace("_", "-")


def check_cluster_flags(request: MeasureRequest) -> None:
    """Refuse placement flags that the chosen launcher does not take."""
    launcher = _launcher(request)
    if launcher == "smpi":
        placed = [n for n in (*_SRUN_ONLY, "ntasks_per_node", "cpu_bind", "hosts", "hostfile")
                  if _given(request, n)]  # fmt: skip
        if placed:
            raise MpiscopeError(
                f"{_flag(placed[0])} is for real runs: a simulated run places its ranks on "
                "--platform's hosts"
            )
        return
    if launcher == "mpiexec":
        srun_only = [n for n in _SRUN_ONLY if _given(request, n)]
        if srun_only:
            hint = " (with mpiexec, list the hosts: --hosts or --hostfile)" if (
                srun_only[0] == "srun_nodes") else ""  # fmt: skip
            raise MpiscopeError(f"{_flag(srun_only[0])} is for --launcher srun{hint}")
        if _given(request, "hosts") and _given(request, "hostfile"):
            raise MpiscopeError("--hosts and --hostfile: give one of them")
        if request.cpu_bind and request.cpu_bind not in BINDINGS:
            raise MpiscopeError(
                f"--cpu-bind {request.cpu_bind!r}: with mpiexec one of {', '.join(BINDINGS)}"
            )
        if request.hostfile:
            read_hostfile(request.hostfile)
        return
    for name in ("hosts", "hostfile"):
        if _given(request, name):
            raise MpiscopeError(
                f"{_flag(name)} is for mpiexec: under srun, Slurm places the ranks "
                "(--nodes, --ntasks-per-node, or --srun-arg=--nodelist=...)"
            )
    if request.cpu_bind and " " in request.cpu_bind:
        raise MpiscopeError(f"--cpu-bind {request.cpu_bind!r}: one srun --cpu-bind value")
    nodes, per_node = request.srun_nodes, request.ntasks_per_node
    if nodes and per_node and request.np > nodes * per_node:
        raise MpiscopeError(
            f"--np {request.np} ranks do not fit on --nodes {nodes} x --ntasks-per-node {per_node}"
        )
    if nodes and request.np < nodes:
        raise MpiscopeError(f"--np {request.np} is fewer ranks than --nodes {nodes}")


def runs_elsewhere(request: MeasureRequest) -> bool:
    """Whether the ranks may run on other machines than this one (srun, or
    mpiexec on hosts): this machine's cores then say nothing about them."""
    check_cluster_flags(request)
    return _launcher(request) == "srun" or bool(request.hosts or request.hostfile)


def srun_path() -> str:
    """srun: ``MPISCOPE_SRUN`` if set, else the one on PATH."""
    override = os.environ.get("MPISCOPE_SRUN")
    import shutil

    found = override or shutil.which("srun")
    if not found or not os.access(found, os.X_OK):
        where = f"MPISCOPE_SRUN={override}" if override else "srun on PATH"
        raise MpiscopeError(
            f"--launcher srun: no {where} (run on a Slurm login node, inside salloc or sbatch)"
        )
    return found


def srun_mpi(profile: Installation, request: MeasureRequest) -> str | None:
    """The ``--mpi`` type srun is given (None: Slurm's default)."""
    return request.srun_mpi or SRUN_MPI.get(profile.implementation)


def launch_command(profile: Installation, request: MeasureRequest) -> list[str]:
    """The launcher part of a real run's command for ``request.np`` ranks:
    ``srun --ntasks N ...`` or ``mpiexec -n N ...`` with the placement flags
    in the words of the profile's implementation."""
    check_cluster_flags(request)
    if _launcher(request) == "srun":
        return _srun_command(profile, request)
    command = mpiexec_command(profile, request.np, request.oversubscribe)
    return [*command, *_mpiexec_placement(profile.implementation, request)]


def _srun_command(profile: Installation, request: MeasureRequest) -> list[str]:
    command = [srun_path(), f"--ntasks={request.np}"]
    for name, flag in _SRUN_FLAGS.items():
        if _given(request, name):
            command.append(f"{flag}={getattr(request, name)}")
    mpi = srun_mpi(profile, request)
    if mpi:
        command.append(f"--mpi={mpi}")
    # one rank failing ends the step instead of leaving the others waiting
    command.append("--kill-on-bad-exit=1")
    return [*command, *request.srun_arg]


def _mpiexec_placement(implementation: str, request: MeasureRequest) -> list[str]:
    openmpi = implementation == "openmpi"
    words: list[str] = []
    if request.hosts:
        words += ["--host" if openmpi else "-hosts", request.hosts]
    if request.hostfile:
        path = str(Path(request.hostfile).expanduser().absolute())
        words += ["--hostfile" if openmpi else "-f", path]
    if request.ntasks_per_node:
        per_node = request.ntasks_per_node
        words += ["--map-by", f"ppr:{per_node}:node"] if openmpi else ["-ppn", str(per_node)]
    if request.cpu_bind:
        bind = BINDINGS[request.cpu_bind]["openmpi" if openmpi else "mpich"]
        words += ["--bind-to" if openmpi else "-bind-to", bind]
    return words


def cluster_meta(request: MeasureRequest) -> dict[str, str]:
    """The result's environment entries of a run's placement: the launcher's
    name and the binding asked for (``launcher default`` when none was)."""
    launcher = _launcher(request)
    meta = {"launcher_name": launcher}
    if launcher != "smpi":
        meta["binding"] = request.cpu_bind or "launcher default"
    return meta
