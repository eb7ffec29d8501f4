"""How small an agent each detector finds on this machine, and how often it cries wolf.

For every detector, an alternating run (layout C: the agent on a detector
rank's core) per injector setting, plus one A/A run whose "agent" is a
sleeping process paused and resumed exactly like a real one: any detection
there is a false positive. The smallest agent is the one with the least CPU
load (frequency x burst) that a criterion detected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mpiscope.mpi_profile import MpiProfile
from mpiscope.noise.agent import AgentSpec
from mpiscope.noise.binding import Topology
from mpiscope.noise.criteria import CRITERIA, compare_run
from mpiscope.noise.session import DEFAULT_GROUPS, DetectorPlan, plan_layout, run_detector
from mpiscope.noise.spec import InjectorSpec
from mpiscope.version import package_version

__all__ = ["CalibrationPlan", "estimate_seconds", "run_calibration"]

#: A sham agent: it sleeps, so pausing and resuming it changes nothing.
SHAM_COMMAND = "exec sleep 100000"
#: Start-up, calibration and tear-down of one launch, for the time estimate.
_LAUNCH_OVERHEAD_S = 2.0


@dataclass(frozen=True)
class CalibrationPlan:
    detectors: tuple[str, ...]
    hz: tuple[float, ...]
    bursts_ns: tuple[float, ...]
    nprocs: int
    packet_s: float
    packets: int
    block: int
    stream_elements: int | None = None  # stream-ring work per rank (default: 4x the LLC)

    def agents(self) -> list[InjectorSpec]:
        """The injector settings that fit in their period, lightest load first."""
        specs = [InjectorSpec(hz=f, burst_ns=b) for f in self.hz for b in self.bursts_ns
                 if b < 1e9 / f]
        return sorted(specs, key=lambda s: (s.hz * s.burst_ns, s.burst_ns))

    def runs(self) -> int:
        return len(self.detectors) * (len(self.agents()) + 1)


def estimate_seconds(plan: CalibrationPlan) -> float:
    """An upper estimate of the wall time of the whole calibration."""
    per_run = plan.packets * plan.packet_s + min(1.0, plan.packet_s / 4) + _LAUNCH_OVERHEAD_S
    return plan.runs() * per_run


def run_calibration(
    plan: CalibrationPlan,
    profile: MpiProfile,
    topology: Topology,
    on_run: Callable[[int, int, str, dict[str, Any]], None],
    on_packet: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run the sweep; ``on_run(i, total, label, verdict)`` after each run."""
    rows: list[dict[str, Any]] = []
    total = plan.runs()
    index = 0
    ranks, core = plan_layout(topology, plan.nprocs, "C", None, has_agent=True)
    for detector in plan.detectors:
        settings: list[tuple[str, AgentSpec]] = [("A/A", AgentSpec(command=SHAM_COMMAND))]
        settings += [(spec.label, AgentSpec(injector=spec)) for spec in plan.agents()]
        for label, agent in settings:
            index += 1
            if agent.injector is not None:
                agent = AgentSpec(injector=replace(agent.injector, core=core))
            else:
                agent = replace(agent, core=core)
            run_plan = DetectorPlan(
                detector=detector, packet_s=plan.packet_s, packets=plan.packets,
                nprocs=plan.nprocs, layout="C", design="alternate", block=plan.block,
                agent=agent, pin_cores=ranks, stream_elements=plan.stream_elements,
                groups=DEFAULT_GROUPS,
            )
            doc = run_detector(run_plan, profile, topology, None, on_packet=on_packet)
            verdict = compare_run(doc, f"{detector} {label}")
            inj = agent.injector
            rows.append({
                "detector": detector,
                "agent": label,
                "sham": inj is None,
                "hz": inj.hz if inj else None,
                "burst_ns": inj.burst_ns if inj else None,
                "load": inj.hz * inj.burst_ns / 1e9 if inj else 0.0,
                "fired": verdict["fired"],
                "detected": verdict["detected"],
                "mean_difference": verdict["mean_difference"],
                "boundary_gap": verdict["criteria"]["ci_overlap"]["boundary_gap"],
                "p_value": verdict["criteria"]["mann_whitney"]["p_value"],
                "baseline_median_s": verdict["baseline"]["median_s"],
                **_paired_row(verdict),
            })
            on_run(index, total, f"{detector} {label}", verdict)
    return {
        "schema_version": "1.4",  # 1.3: runs[] hold the paired limit; 1.4: periodic_hz if found
        "kind": "noise-calibration",
        "mpiscope_version": package_version(),
        "plan": {"detectors": list(plan.detectors), "hz": list(plan.hz),
                 "bursts_ns": list(plan.bursts_ns), "nprocs": plan.nprocs,
                 "packet_seconds": plan.packet_s, "packets": plan.packets,
                 "block": plan.block, "layout": "C", "design": "alternate",
                 "stream_elements": plan.stream_elements},
        "runs": rows,
        "smallest": smallest_detected(rows, plan.detectors),
        "false_positives": {d: [r["fired"] for r in rows if r["detector"] == d and r["sham"]]
                            for d in plan.detectors},
    }


def _paired_row(verdict: dict[str, Any]) -> dict[str, Any]:
    """The paired estimate, its p-value and the stated limit of a verdict, for a row."""
    crit, lim = verdict["criteria"], verdict.get("limit") or {}
    signed, interval = crit.get("signed_rank"), crit.get("paired_interval")
    periodic = crit.get("periodic")
    return {
        "paired_estimate": interval["estimate"] if interval else None,
        "periodic_hz": periodic["frequency_hz"] if periodic and periodic["detected"] else None,
        "signed_rank_p": signed["p_value"] if signed else None,
        "rules_out_above": lim.get("rules_out_above"),
        "detectable": lim.get("detectable"),
    }


def smallest_detected(rows: list[dict[str, Any]],
                      detectors: tuple[str, ...]) -> dict[str, dict[str, str | None]]:
    """Per detector and criterion, the lightest agent that criterion detected."""
    out: dict[str, dict[str, str | None]] = {}
    for detector in detectors:
        found = sorted((r for r in rows if r["detector"] == detector and not r["sham"]),
                       key=lambda r: (r["load"], r["burst_ns"]))
        out[detector] = {
            criterion: next((r["agent"] for r in found if criterion in r["fired"]), None)
            for criterion in CRITERIA
        }
    return out
