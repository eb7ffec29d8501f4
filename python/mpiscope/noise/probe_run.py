"""One probe run: FWQ, FTQ and selfish detours on every core, raw files kept.

With MPI, one rank per core (``mpiexec -n N mpiscope-noise probe``, rank r
pinned to the r-th core); alone, one pinned thread per core in a single
process. An injector may run around it, to see what an agent looks like.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.launcher import (
    OutputEvent,
    WarningEvent,
    build_env,
    describe_exit,
    mpiexec_command,
    run_streaming,
)
from mpiscope.mpi_profile import MpiProfile
from mpiscope.noise.agent import Agent, AgentSpec
from mpiscope.noise.session import noise_programs
from mpiscope.outputs import check_output_dir

__all__ = ["ProbePlan", "read_partial", "run_probe"]

PROBE_KINDS = ("fwq", "ftq", "selfish")


@dataclass(frozen=True)
class ProbePlan:
    cores: list[int]
    seconds_per_kind: float
    kinds: tuple[str, ...] = PROBE_KINDS
    alone: bool = False  # threads in one process instead of MPI ranks
    agent: AgentSpec | None = None
    fwq_work_ns: int | None = None
    ftq_quantum_ns: int | None = None
    selfish_threshold_ns: int | None = None


def probe_argv(plan: ProbePlan, program: str, raw_dir: Path) -> list[str]:
    cores = ",".join(str(c) for c in plan.cores)
    argv = [program, "probe", "--seconds", f"{plan.seconds_per_kind:g}",
            "--out-dir", str(raw_dir), "--kinds", ",".join(plan.kinds)]
    argv += ["--threads", cores] if plan.alone else ["--pin-cores", cores]
    for flag, value in (("--fwq-work-ns", plan.fwq_work_ns),
                        ("--ftq-quantum-ns", plan.ftq_quantum_ns),
                        ("--selfish-threshold-ns", plan.selfish_threshold_ns)):
        if value is not None:
            argv += [flag, str(value)]
    return argv


def run_probe(plan: ProbePlan, profile: MpiProfile, raw_dir: Path,
              timeout_s: float | None = None) -> dict[str, Any]:
    """Run the probes into ``raw_dir``; return what the run itself reported.

    The returned dict has ``command``, ``agent`` (its description and the
    injector's summary, or None) and ``warnings``.
    """
    from mpiscope.noise.probes import read_probe_dir  # lazy: numpy

    programs = noise_programs(profile)
    env = build_env(profile)
    check_output_dir(raw_dir, "--raw-dir")
    argv = probe_argv(plan, programs.detect, raw_dir)
    if not plan.alone:
        argv = [*mpiexec_command(profile, len(plan.cores), oversubscribe=True), *argv]
    warnings: list[str] = []
    other: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, WarningEvent):
            warnings.append(event.text)
        elif isinstance(event, OutputEvent):
            other.append(event.line)

    agent = Agent(plan.agent, programs.inject, env) if plan.agent else None
    timeout = timeout_s or 60 + 3 * plan.seconds_per_kind * len(plan.kinds)
    try:
        if agent is not None:
            agent.start()
        code = run_streaming(argv, env, timeout, on_event)
    finally:
        if agent is not None:
            agent.stop()
    if code != 0:
        tail = "; ".join(line for line in other[-3:] if not line.startswith("@"))
        raise RunFailedError(
            f"mpiscope-noise probe failed ({describe_exit(code)})" + (f": {tail}" if tail else "")
        )
    doc = read_probe_dir(raw_dir)
    doc["command"] = argv
    doc["agent"] = agent.document() if agent is not None else None
    doc["mode"] = "threads" if plan.alone else "mpi"
    if warnings:
        doc.setdefault("warnings", []).extend(warnings)
    return doc


def read_partial(raw_dir: Path) -> dict[str, Any] | None:
    """The probe document of what an interrupted run finished (the probes
    run one kind after the other), or None when no probe finished."""
    from mpiscope.noise.probes import read_probe_dir  # lazy: numpy

    try:
        doc = read_probe_dir(raw_dir, finished_only=True)
    except MpiscopeError:
        return None
    doc["warnings"] = [*doc.get("warnings", []), "interrupted: the probes that had not "
                       "finished are missing"]  # fmt: skip
    return doc
