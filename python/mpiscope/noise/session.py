"""One detector run: ranks pinned by layout, the agent started, packets collected.

The ranks run ``mpiscope-noise detect`` under the MPI's launcher; its rank 0
reports each packet as a line (``@mpiscope noise-packet {...}``), and the
document is rewritten atomically after every packet, so a run stopped
part-way keeps every packet it measured (status "running" or "failed").
"""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.launcher import (
    Event,
    OutputEvent,
    WarningEvent,
    build_env,
    describe_exit,
    mpiexec_command,
    run_streaming,
)
from mpiscope.mpi_profile import MpiProfile
from mpiscope.noise.agent import Agent, AgentSpec, parse_record
from mpiscope.noise.binding import Topology, format_cpu_list
from mpiscope.noise.spec import DETECTORS, LAYOUTS
from mpiscope.result.growing import GrowingDocument
from mpiscope.version import package_version

__all__ = [
    "DEFAULT_BLOCK",
    "DEFAULT_GROUPS",
    "MAX_GROUPS",
    "DetectorPlan",
    "check_blocks",
    "noise_programs",
    "plan_layout",
    "run_detector",
    "same_work",
]

#: Packets per block of the alternating design when the user gives none.
DEFAULT_BLOCK = 4
#: Iteration groups timed per packet by an alternating run (the periodic test).
DEFAULT_GROUPS = 128
#: The most groups a packet times: MPISCOPE__NOISE_MAX_GROUPS of src/noise/detect_options.h.
MAX_GROUPS = 4096
#: The least silence (s) allowed before a detector counts as hung.
SILENCE_FLOOR_S = 60.0


@dataclass(frozen=True)
class DetectorPlan:
    """Everything one detector run needs (times in seconds)."""

    detector: str
    packet_s: float
    packets: int
    nprocs: int
    layout: str | None = None
    design: str = "separate"
    block: int = DEFAULT_BLOCK
    agent: AgentSpec | None = None
    calibrate_s: float | None = None
    iterations: int | None = None
    alltoall_bytes: int | None = None
    messages: int | None = None
    message_bytes: int | None = None
    stream_elements: int | None = None
    triads: int | None = None
    pin_cores: list[int] | None = None
    groups: int = 0  # 0: no group times
    stop_file: str | None = None  # --until-decided: the detector stops once it exists

    def __post_init__(self) -> None:
        if self.detector not in DETECTORS:
            raise MpiscopeError(
                f"unknown detector '{self.detector}' (choose from {', '.join(DETECTORS)})"
            )
        if self.layout is not None and self.layout not in LAYOUTS:
            choices = ", ".join(LAYOUTS)
            raise MpiscopeError(f"unknown layout '{self.layout}' (choose from {choices})")
        if self.packets < 2:
            raise MpiscopeError(f"--packets {self.packets}: at least 2 packets make a sample")
        if self.design == "alternate":
            if self.agent is None:
                raise MpiscopeError(
                    "--design alternate switches an agent on and off: give --inject or --agent"
                )
            check_blocks(self.packets, self.block)


def check_blocks(packets: int, block: int) -> None:
    """The alternating design needs two blocks of each state."""
    if packets < 4 * block:
        raise MpiscopeError(
            f"--design alternate with blocks of {block} needs at least {4 * block} packets "
            f"(two blocks of each state), not --packets {packets}"
        )


@dataclass(frozen=True)
class NoisePrograms:
    detect: str  # mpiscope-noise
    inject: str  # mpiscope-inject


def noise_programs(profile: MpiProfile) -> NoisePrograms:
    """The noise programs built with the profile's bench (installed beside it)."""
    bin_dir = Path(profile.check_bench()).parent
    found = []
    for name in ("mpiscope-noise", "mpiscope-inject"):
        path = bin_dir / name
        if not os.access(path, os.X_OK):
            raise MpiscopeError(f"{path} is missing: rebuild mpiscope (make MPI={profile.name})")
        found.append(str(path))
    return NoisePrograms(*found)


def plan_layout(
    topology: Topology, nprocs: int, layout: str | None, agent_core: int | None,
    has_agent: bool,
) -> tuple[list[int] | None, int | None]:
    """The cores of the ranks and of the agent for a layout of the seed.

    Returns (rank cores, agent core); (None, agent_core) when no layout is asked.
    """
    if layout is None:
        return None, agent_core
    cores = topology.logical if layout == "all" else topology.first_threads()
    if nprocs > len(cores):
        what = "logical CPUs" if layout == "all" else "physical cores"
        raise MpiscopeError(
            f"layout {layout} puts one rank per {what[:-1]}: --np {nprocs} is more than "
            f"the {len(cores)} {what} here"
        )
    ranks = cores[:nprocs]
    if layout == "A":
        if has_agent:
            raise MpiscopeError("layout A runs without an agent (it is the baseline)")
        return ranks, None
    if not has_agent:
        return ranks, None
    if layout == "B":
        free = [c for c in topology.logical if c not in ranks]
        if agent_core is None:
            if not free:
                raise MpiscopeError(
                    f"layout B needs a core the detector does not use: with "
                    f"{len(topology.logical)} CPUs, use --np {nprocs - 1}"
                )
            return ranks, free[-1]
        if agent_core in ranks:
            raise MpiscopeError(f"layout B: --agent-core {agent_core} runs a detector rank")
        return ranks, agent_core
    if agent_core is None:
        return ranks, ranks[-1]
    if agent_core not in ranks:
        raise MpiscopeError(
            f"layout {layout}: --agent-core {agent_core} runs no detector rank "
            f"(ranks on {format_cpu_list(ranks)})"
        )
    return ranks, agent_core


def same_work(base: dict[str, Any], detector: str, source: str) -> dict[str, Any]:
    """The DetectorPlan fields that make a run do the work of the run ``base``.

    Two separate runs compare only if every packet does the same work: the
    second reuses the first's calibrated iterations (and message and array
    sizes) instead of calibrating again on a machine that may have changed.
    """
    setup = base.get("detector") or {}
    if base.get("kind") != "noise-run" or "iterations_per_packet" not in setup:
        raise MpiscopeError(f"{source} is not a noise-run that reported its setup")
    if setup.get("name") != detector:
        raise MpiscopeError(f"{source} ran the {setup.get('name')} detector, not {detector}")
    stream = setup.get("stream") or {}
    fields = {
        "iterations": setup["iterations_per_packet"],
        "alltoall_bytes": setup.get("alltoall_bytes"),
        "messages": stream.get("messages"),
        "message_bytes": stream.get("message_bytes"),
        "stream_elements": stream.get("elements_per_rank"),
        "triads": stream.get("triads"),
    }
    return {key: value for key, value in fields.items() if value is not None}


def detect_argv(plan: DetectorPlan, program: str, agent_pgid: int | None) -> list[str]:
    """The ``mpiscope-noise detect`` arguments for a plan."""
    argv = [program, "detect", "--detector", plan.detector,
            "--packet-seconds", f"{plan.packet_s:g}", "--packets", str(plan.packets)]
    optional = {
        "--calibrate-seconds": plan.calibrate_s,
        "--iterations": plan.iterations,
        "--alltoall-bytes": plan.alltoall_bytes,
        "--messages": plan.messages,
        "--message-bytes": plan.message_bytes,
        "--stream-elements": plan.stream_elements,
        "--triads": plan.triads,
    }
    for flag, value in optional.items():
        if value is not None:
            argv += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    if plan.pin_cores:
        argv += ["--pin-cores", ",".join(str(c) for c in plan.pin_cores)]
    if plan.groups:
        argv += ["--groups", str(plan.groups)]
    if plan.stop_file and plan.design == "alternate":
        argv += ["--stop-file", plan.stop_file]
    if plan.design == "alternate" and agent_pgid is not None:
        argv += ["--block", str(plan.block), "--agent-pgid", str(agent_pgid)]
    return argv


def environment(profile: MpiProfile, topology: Topology) -> dict[str, Any]:
    """Where the run happened, for the document."""
    cpu_model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "host": platform.node(),
        "cpu_model": cpu_model,
        "logical_cpus": len(topology.logical),
        "physical_cores": len(topology.physical),
        "kernel": platform.release(),
        "mpi": profile.name,
        "mpi_implementation": profile.implementation,
        **({"mpi_wheel": profile.pypi_wheel} if profile.pypi_wheel else {}),
    }


def new_document(plan: DetectorPlan, env: dict[str, Any]) -> dict[str, Any]:
    return {
        # The fields it holds: 1.4 a sequential decision "agent", 1.3 group times or
        # a sequential decision, 1.2 mpi_wheel.
        "schema_version": ("1.4" if plan.stop_file else "1.3" if plan.groups
                           else "1.2" if "mpi_wheel" in env else "1.0"),
        "kind": "noise-run",
        "mpiscope_version": package_version(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "status": "running",
        "error": None,
        "units": {"time": "s", "burst": "ns", "frequency": "Hz"},
        "environment": env,
        "detector": {"name": plan.detector, "packet_seconds": plan.packet_s,
                     "packets": plan.packets},
        "layout": plan.layout,
        "design": plan.design,
        "block": plan.block if plan.design == "alternate" else None,
        "agent": plan.agent.describe() if plan.agent else None,
        "binding": [],
        "packets": [],
    }


class _Collector:
    """Turns the detector's lines into the document, writing it as it grows."""

    def __init__(self, doc: dict[str, Any], out: Path | None,
                 on_packet: Callable[[dict[str, Any]], None] | None,
                 on_warning: Callable[[str], None]) -> None:
        self.doc = doc
        self.file = GrowingDocument(out, "packets") if out is not None else None
        self.head_changed = True  # the first packet writes the document whole
        self.on_packet, self.on_warning = on_packet, on_warning
        self.other: list[str] = []
        packet_s = float(doc["detector"]["packet_seconds"])
        # Until the calibration says how long a packet really takes.
        self.silence_s = SILENCE_FLOOR_S + 10 * packet_s

    def __call__(self, event: Event) -> None:
        if isinstance(event, WarningEvent):
            self.on_warning(event.text)
            return
        if not isinstance(event, OutputEvent):
            return
        record = parse_record(event.line)
        if record is None:
            self.other.append(event.line)
            return
        kind, data = record
        if kind == "noise-setup":
            name = data.get("detector", self.doc["detector"]["name"])
            self.doc["detector"] = {**data, "name": name}
            self.head_changed = True
            self._pace(data)
        elif kind == "noise-binding":
            self.doc["binding"].append(data)
            self.head_changed = True
        elif kind == "noise-packet":
            self.doc["packets"].append(data)
            if not self.doc["detector"].get("groups"):  # else saved and shown with its groups
                self.grow()
                if self.on_packet:
                    self.on_packet(data)
        elif kind == "noise-groups":
            packets = self.doc["packets"]
            if packets and packets[-1].get("index") == data.get("index"):
                packets[-1]["groups_ns"] = data.get("groups_ns")
                if "stolen_ns" in data:
                    packets[-1]["stolen_ns"] = data["stolen_ns"]
            self.grow()
            if self.on_packet and packets:
                self.on_packet(packets[-1])

    def _pace(self, setup: dict[str, Any]) -> None:
        """Allow silences from the real packet length; warn if it exceeds the asked one."""
        packet_s = float(setup.get("packet_seconds") or 0)
        per_iteration_ns = (setup.get("calibration") or {}).get("per_iteration_ns")
        iterations = int(setup.get("iterations_per_packet") or 1)
        if per_iteration_ns:
            real_s = iterations * per_iteration_ns / 1e9
            if real_s > 1.5 * packet_s:
                self.on_warning(
                    f"one iteration of the detector takes {per_iteration_ns / 1e9:.3g} s, so a "
                    f"packet takes about {real_s:.3g} s, not {packet_s:g} s "
                    "(lengthen --packet, or shrink the work: --stream-elements, --triads)"
                )
            packet_s = max(packet_s, real_s)
        self.silence_s = SILENCE_FLOOR_S + 5 * packet_s

    def grow(self) -> None:
        """Add the new packets to the file (the whole document if more changed)."""
        if self.file is not None:
            self.file.save(self.doc, whole=self.head_changed)
            self.head_changed = False

    def save(self) -> None:
        """The whole document (at the start, at the end, on a failure)."""
        if self.file is not None:
            self.file.save(self.doc, whole=True)


def run_detector(
    plan: DetectorPlan,
    profile: MpiProfile,
    topology: Topology,
    out: Path | None,
    *,
    timeout_s: float | None = None,
    on_packet: Callable[[dict[str, Any]], None] | None = None,
    on_warning: Callable[[str], None] = lambda text: None,
) -> dict[str, Any]:
    """Run the detector of ``plan``; return the noise-run document (also at ``out``).

    A run that fails part-way still writes what it measured (status "failed")
    before the error is raised.
    """
    programs = noise_programs(profile)
    env = build_env(profile)
    doc = new_document(plan, environment(profile, topology))
    collector = _Collector(doc, out, on_packet, on_warning)
    collector.save()
    agent = Agent(plan.agent, programs.inject, env) if plan.agent else None
    try:
        if agent is not None:
            agent.start()
            doc["agent"] = agent.document()
        argv = [*mpiexec_command(profile, plan.nprocs, oversubscribe=True),
                *detect_argv(plan, programs.detect, agent.pgid if agent else None)]
        doc["command"] = argv
        if agent is not None and not agent.alive():
            raise RunFailedError("the agent ended before the detector started")
        code = run_streaming(argv, env, timeout_s, collector,
                             idle_timeout=lambda: collector.silence_s)
        if code != 0:
            tail = "; ".join(collector.other[-3:])
            raise RunFailedError(
                f"mpiscope-noise detect failed ({describe_exit(code)})"
                + (f": {tail}" if tail else "")
            )
        stopped = plan.stop_file is not None and os.path.exists(plan.stop_file)
        if len(doc["packets"]) < plan.packets and not stopped:
            raise RunFailedError(
                f"the detector reported {len(doc['packets'])} of {plan.packets} packets"
            )
    except BaseException as exc:
        doc["status"] = "failed"
        doc["error"] = str(exc) or type(exc).__name__
        _stop_agent(agent, doc)
        collector.save()
        raise
    _stop_agent(agent, doc)
    doc["status"] = "complete"
    collector.save()
    return doc


def _stop_agent(agent: Agent | None, doc: dict[str, Any]) -> None:
    if agent is not None:
        agent.stop()
        doc["agent"] = agent.document()
