"""Simulated clusters: mpiscope-bench under SimGrid SMPI (``--launcher smpi``).

The SMPI build (``make smpi``) is an MPI installation like the others
(profile ``smpi``, implementation "smpi", mpiexec ``smpirun``) that runs
only on a platform file: ``--platform NAME`` (a platform shipped in
``platforms/``) or ``--platform PATH.xml``. Each run gets a hostfile
covering ``--np`` ranks (``host:cores`` for multicore hosts) and the
simulator settings :data:`DEFAULT_CFG` plus the user's ``--smpi-cfg``.
What the result records about the simulation (platform, its SHA-256, the
settings) comes from :func:`simulation_meta`.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import subprocess
import sys
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.mpi_profile import MpiProfile, find_profiles, select_profile
from mpiscope.record import Record

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from mpiscope.measure.request import MeasureRequest

__all__ = [
    "DEFAULT_CFG",
    "LAUNCHERS",
    "SMPI_PROFILE",
    "Platform",
    "launch_platform",
    "load_platform",
    "parse_cfg",
    "platform_dirs",
    "shipped_platforms",
    "simulation_meta",
    "smpi_alone",
    "smpi_command",
    "smpi_profile",
]

LAUNCHERS = ("mpiexec", "smpi")
SMPI_PROFILE = "smpi"
#: Passed to every simulation. simulate-computation:no: the host's own
#: computation between MPI calls must not become simulated time (it would
#: add this machine's speed, and its noise, to the simulated cluster's
#: times). test:0: SMPI injects 0.1 ms, growing, into each MPI_Test (to
#: move polling loops on); it made a 21 us iallreduce overlapped with
#: 12.7 us of computation read 3.11 ms. The engine's waits read the clock,
#: which advances it, so no loop of the bench polls without time passing.
DEFAULT_CFG = ("smpi/simulate-computation:no", "smpi/test:0")
#: smpirun's informational lines (every configuration change) hidden; its
#: warnings and errors still show.
_LOG = "--log=root.thres:warning"
_REPO_ROOT = Path(__file__).resolve().parents[3]


class Platform(Record):
    """A SimGrid platform file and the hosts it declares, in file order."""

    path: Path
    sha256: str
    hosts: tuple[tuple[str, int], ...]  # (name, cores)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def cores(self) -> int:
        return sum(cores for _, cores in self.hosts)

    def hostfile(self, nprocs: int, per_host: int | None = None) -> str:
        """The hostfile of an ``nprocs``-rank run: the first hosts in order,
        each filled to its cores (``host:cores`` when it has several), or
        to ``per_host`` ranks (``mpiscope health``: one rank per node)."""
        lines, placed = [], 0
        for name, cores in self.hosts:
            if placed >= nprocs:
                break
            take = min(cores if per_host is None else min(per_host, cores), nprocs - placed)
            lines.append(f"{name}:{take}" if cores > 1 else name)
            placed += take
        return "\n".join(lines) + "\n"


def platform_dirs() -> list[Path]:
    """Where shipped platforms are looked for: ``MPISCOPE_PLATFORM_DIR``, the
    source tree's ``platforms/``, the installed copy (``make smpi``)."""
    override = os.environ.get("MPISCOPE_PLATFORM_DIR")
    dirs = [Path(override)] if override else []
    dirs += [_REPO_ROOT / "platforms", Path(sys.prefix) / "share" / "mpiscope" / "platforms"]
    return dirs


def shipped_platforms() -> list[str]:
    """The names of the shipped platforms (file names without ``.xml``)."""
    names = {p.stem for d in platform_dirs() if d.is_dir() for p in d.glob("*.xml")}
    return sorted(names)


def _find_platform(spec: str) -> Path:
    path = Path(spec).expanduser()
    if path.is_file():
        return path.absolute()
    if os.sep not in spec:
        stem = spec[:-4] if spec.endswith(".xml") else spec
        for directory in platform_dirs():
            candidate = directory / f"{stem}.xml"
            if candidate.is_file():
                return candidate
    shipped = ", ".join(shipped_platforms()) or "none found"
    raise MpiscopeError(
        f"no platform {spec!r}: neither a file nor a shipped platform ({shipped})"
    )


def load_platform(spec: str) -> Platform:
    """The platform named ``spec`` (shipped name or file path), its hosts
    read from its ``<cluster>`` and ``<host>`` elements."""
    import hashlib
    import xml.etree.ElementTree as ET  # noqa: N817 - only a simulated run reads XML

    path = _find_platform(spec)
    try:
        data = path.read_bytes()
        root = ET.fromstring(data)
    except OSError as exc:
        raise MpiscopeError(f"cannot read platform {path}: {exc.strerror or exc}") from None
    except ET.ParseError as exc:
        raise MpiscopeError(f"platform {path} is not valid XML: {exc}") from None
    hosts: list[tuple[str, int]] = []
    for element in root.iter():
        if element.tag == "cluster":
            hosts += _cluster_hosts(element, path)
        elif element.tag == "host":
            hosts.append((element.get("id", ""), _cores(element, path)))
    if not hosts:
        raise MpiscopeError(f"platform {path} declares no host (no <host> or <cluster>)")
    return Platform(path, hashlib.sha256(data).hexdigest(), tuple(hosts))


def _cores(element: ET.Element, path: Path) -> int:
    text = element.get("core", "1")
    if not text.isdigit() or int(text) < 1:
        raise MpiscopeError(f"platform {path}: core={text!r} is not a positive integer")
    return int(text)


def _cluster_hosts(cluster: ET.Element, path: Path) -> list[tuple[str, int]]:
    """A cluster's hosts: prefix + each number of ``radical`` + suffix
    (radical: ``0-7`` or ``0-3,8,10-11``)."""
    prefix, suffix = cluster.get("prefix", ""), cluster.get("suffix", "")
    cores = _cores(cluster, path)
    radical = cluster.get("radical", "")
    numbers: list[int] = []
    for part in radical.split(","):
        low, _, high = part.strip().partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise MpiscopeError(f"platform {path}: cluster radical {radical!r} is not N-M[,N-M]")
        numbers += range(int(low), int(high or low) + 1)
    return [(f"{prefix}{n}{suffix}", cores) for n in numbers]


def parse_cfg(text: str) -> str:
    """Type of ``--smpi-cfg``: ``KEY:VALUE`` (a SimGrid configuration item)."""
    key, sep, value = text.partition(":")
    if not sep or not key.strip() or not value.strip() or " " in text:
        raise argparse.ArgumentTypeError(
            f"must be KEY:VALUE, a SimGrid setting such as smpi/host-speed:1Gf, not {text!r}"
        )
    return text


def launch_platform(args: MeasureRequest) -> Platform | None:
    """The platform of a ``--launcher smpi`` run (None for mpiexec), after
    checking the launcher flags together; MpiscopeError on bad input."""
    launcher = getattr(args, "launcher", None) or "mpiexec"
    platform = getattr(args, "platform", None)
    cfg = getattr(args, "smpi_cfg", None) or []
    if launcher != "smpi":
        if platform is not None:
            raise MpiscopeError("--platform is for simulated runs: add --launcher smpi")
        if cfg:
            raise MpiscopeError("--smpi-cfg is for simulated runs: add --launcher smpi")
        return None
    if platform is None:
        shipped = ", ".join(shipped_platforms()) or "none found"
        raise MpiscopeError(
            f"--launcher smpi needs --platform NAME|FILE.xml (shipped: {shipped})"
        )
    if getattr(args, "mpi", None) not in (None, SMPI_PROFILE):
        raise MpiscopeError(
            f"--launcher smpi runs the SMPI build of mpiscope-bench, not --mpi {args.mpi}"
        )
    loaded = load_platform(platform)
    per_host = getattr(args, "ranks_per_host", None)
    room = loaded.cores if per_host is None else sum(min(per_host, c) for _, c in loaded.hosts)
    if args.np > room:
        what = "cores" if per_host is None else f"slots ({per_host} a host)"
        raise MpiscopeError(
            f"--np {args.np} is more than the {room} {what} of platform {loaded.name}"
        )
    return loaded


def simulation_meta(args: MeasureRequest) -> dict[str, str]:
    """The result's environment entries of a simulated run (none otherwise):
    the platform file's name and SHA-256 and the simulator settings passed."""
    platform = launch_platform(args)
    if platform is None:
        return {}
    return {
        "platform": platform.name,
        "platform_sha256": platform.sha256,
        "smpi_cfg": " ".join(_cfg(args)),
    }


def _cfg(args: MeasureRequest) -> list[str]:
    return [*DEFAULT_CFG, *(getattr(args, "smpi_cfg", None) or [])]


def smpi_command(smpirun: str, platform: Platform, args: MeasureRequest) -> list[str]:
    """``smpirun -np N -platform P -hostfile H --cfg=...`` for ``args.np``
    ranks, started in a directory of its own (``env -C``: smpirun leaves
    its temporary hostfile in the current directory when a run fails) that
    also holds the hostfile and is removed at exit."""
    import shutil
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="mpiscope-smpi-"))
    atexit.register(shutil.rmtree, directory, True)
    per_host = getattr(args, "ranks_per_host", None)  # set by commands, not a flag
    hostfile = directory / f"hosts-{platform.path.stem}-{args.np}.txt"
    hostfile.write_text(platform.hostfile(args.np, per_host), encoding="utf-8")
    cfg = [f"--cfg={item}" for item in _cfg(args)]
    return [
        "env", "-C", str(directory), smpirun, "-np", str(args.np), "-platform", str(platform.path),
        "-hostfile", str(hostfile), *cfg, _LOG,
    ]  # fmt: skip


def build_smpi(make_dir: Path | None = None) -> None:
    """Build and install the SMPI bench (``make smpi``), printing one line;
    MpiscopeError with the build's last lines when it fails."""
    root = make_dir or _REPO_ROOT
    if not (root / "Makefile").is_file() or not (root / "cmake" / "smpi.cmake").is_file():
        raise MpiscopeError(
            "the SMPI build of mpiscope-bench is missing and no source tree is at hand: "
            "run `make smpi` in the mpiscope source tree"
        )
    print(f"mpiscope: building mpiscope-bench for SimGrid SMPI (make -C {root} smpi)",
          file=sys.stderr, flush=True)  # fmt: skip
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(root), "smpi"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        log = root / "build" / "smpi.make.log"
        with contextlib.suppress(OSError):
            log.write_text(done.stdout, encoding="utf-8")
        lines = [line.strip() for line in done.stdout.splitlines() if line.strip()] or ["no output"]
        cause = next((line for line in lines if "error:" in line), lines[-1])
        raise MpiscopeError(f"make smpi failed: {cause} (all of its output: {log})")


def smpi_profile() -> MpiProfile:
    """The SMPI installation, built first (``make smpi``) when it is missing."""
    profile = find_profiles().get(SMPI_PROFILE)
    if profile is None or not os.access(profile.bench, os.X_OK):
        build_smpi()
    profile = select_profile(SMPI_PROFILE)
    profile.check_bench()
    profile.check_mpiexec()
    return profile


#: A one-host platform for the bench's queries (``--list-ops``): an SMPI
#: program runs only inside the simulator.
_QUERY_PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="query" routing="Full"><host id="query" speed="1Gf"/></zone>
</platform>
"""


def smpi_alone(smpirun: str, argv: list[str]) -> list[str]:
    """``argv`` (the bench and its arguments) as one simulated rank on a
    one-host platform written into a directory removed at exit."""
    import shutil
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="mpiscope-smpi-"))
    atexit.register(shutil.rmtree, directory, True)
    platform = directory / "query.xml"
    platform.write_text(_QUERY_PLATFORM, encoding="utf-8")
    (directory / "hosts.txt").write_text("query\n", encoding="utf-8")
    return ["env", "-C", str(directory), smpirun, "-np", "1", "-platform", str(platform),
            "-hostfile", str(directory / "hosts.txt"), _LOG, *argv]  # fmt: skip
