"""One health check: its launches, in order, each kept as it ends.

1. **collectives** - every rank: the collectives (Allreduce and Barrier by
   default) by the window method with raw per-rank start and end on the
   global clock (the stragglers), and the placement every later phase uses
   (hosts, each rank's node and CPUs, the clocks).
2. **links-latency**, **links-bandwidth** - one rank per node (or every
   rank, ``links="ranks"``, and always on one node): ``multi_lat`` and
   ``mbw_mr`` over a round-robin of disjoint pairs
   (:mod:`mpiscope.health.schedule`), by the round-time method: each round
   starts at one moment of the global clock after the previous round ended,
   so a slow round (a bad link is 4 times slower) cannot overrun into the
   next round's slot and make its pairs late, as a fixed window would.
3. **probe** - real runs: ``mpiscope-noise probe`` (FWQ, FTQ, selfish
   detours and the STREAM triad) on every rank's core, under the same
   launcher. Not in a simulation: SimGrid simulates neither the operating
   system's detours nor memory.
4. **check** - real runs (unless turned off): the machine check of
   ``mpiscope check`` (timers, clock synchronizations, the machine's
   states), its verdicts shown beside the health verdict.

Every launch goes through the engine's one launch path
(:func:`mpiscope.measure.runner.run_bench_runs`) with a plan built by
:func:`mpiscope.measure.plan.bench_plan`: the same launchers (mpiexec,
srun, hosts, SMPI), the same result documents, kept in the run's raw
directory. A launch that fails stops the check: what was measured is
analyzed and written, the phase says why it failed, and a rank the launcher
saw die is named (:func:`failed_ranks`). The health document is written
after every phase.
"""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.health import MAX_POINT_LAUNCHES
from mpiscope.health.fingerprint import FingerprintRule
from mpiscope.health.links import METRICS, LinkRule
from mpiscope.health.schedule import Schedule
from mpiscope.health.stragglers import StragglerRule
from mpiscope.measure.request import MeasureRequest
from mpiscope.record import replace

__all__ = ["HealthPlan", "Phase", "RunState", "failed_ranks", "run_health"]

#: A link phase makes up for late launches with up to this many times the
#: launches its samples need (on a quiet machine it needs none more).
LATE_ALLOWANCE = 4

#: The probe kinds of the fingerprint.
PROBE_KINDS = ("fwq", "ftq", "selfish", "triad")


@dataclass(frozen=True)
class HealthPlan:
    """What one health check measures (the command's options)."""

    out: Path
    raw_dir: Path
    links: str = "nodes"  # "nodes" or "ranks"
    latency_bytes: int = 8
    bandwidth_bytes: int = 1 << 20
    bandwidth_window: int = 16
    samples: int = 10  # of every pair (bandwidth: half in each direction)
    ops: tuple[str, ...] = ("allreduce", "barrier")
    op_options: tuple[tuple[str, str], ...] = ()  # --option: of the collectives
    collective_bytes: int = 8
    straggler_seconds: float = 3.0  # real runs
    straggler_window_ns: float = 1e6  # real runs: a launch every ms
    simulated_launches: int = 100  # simulated runs: no noise to wait for
    probe_seconds: float = 1.0
    check: bool = True
    drift_seconds: float = 1.0
    link_rule: LinkRule = LinkRule()
    straggler_rule: StragglerRule = StragglerRule()
    fingerprint_rule: FingerprintRule = FingerprintRule()


@dataclass
class Phase:
    """One launch of the check, as the document records it."""

    name: str
    status: str = "pending"  # pending, complete, failed, skipped
    ranks: int | None = None
    launcher: str | None = None
    seconds: float | None = None
    error: str | None = None
    reason: str | None = None  # skipped: why
    document: str | None = None  # its file in the raw directory

    def record(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


@dataclass
class RunState:
    """Everything measured so far: the input of :func:`mpiscope.health.verdict.health_document`."""

    plan: HealthPlan
    request: MeasureRequest  # the measurements' options, as the user gave them
    simulated: bool
    phases: list[Phase] = field(default_factory=list)
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)  # by phase name
    schedules: dict[str, Schedule] = field(default_factory=dict)  # by metric name
    link_unit: str = "node"
    unit_ranks: list[list[int]] = field(default_factory=list)  # the collective ranks of each unit
    unit_names: list[str] = field(default_factory=list)
    probe: dict[str, Any] | None = None
    failed: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    started: str = ""
    ended: str | None = None


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


#: ``srun: error: node7: task 3: Killed`` (Slurm names the task: the rank).
_TASK_RE = re.compile(r"\btask (\d+)\b")
#: MPICH's banner, as :mod:`mpiscope.launcher` says it.
_PID_RE = re.compile(r"\(pid (\d+) on (\S+)\) was killed by (\S+)")


def failed_ranks(error: str, environment: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The ranks a failed launch's error names: Slurm's task numbers, or
    the process id MPICH's banner gives, looked up in the launch's
    ``environment.rank_pids``; [] when the launcher said no more.

    MPICH names the first process of the node, in rank order, that ended
    abnormally, and its clean-up ends the node's other ranks with SIGKILL:
    a rank it names as killed by SIGKILL may have been ended by that
    clean-up after a later rank of its node died (seen here under load:
    rank 1 killed, rank 0 named). Such an entry's ``ranks`` lists every
    rank that may have been the first to die."""
    env = environment or {}
    found: dict[int, dict[str, Any]] = {}
    for match in _TASK_RE.finditer(error):
        rank = int(match.group(1))
        found.setdefault(rank, {"rank": rank, "how": error})
    pids = env.get("rank_pids") or []
    for match in _PID_RE.finditer(error):
        pid, host, signal = int(match.group(1)), match.group(2), match.group(3)
        if pid in pids:
            rank = pids.index(pid)
            found[rank] = _named_by_mpich(rank, pid, signal, env.get("rank_nodes") or [])
        else:
            found.setdefault(
                -1, {"rank": None, "pid": pid, "host": host, "how": f"killed by {signal}"}
            )
    hosts, nodes = env.get("hosts") or [], env.get("rank_nodes") or []
    for entry in found.values():
        who = entry.get("rank")
        if who is not None and who < len(nodes) and "host" not in entry:
            entry["host"] = hosts[nodes[who]]
    return [found[k] for k in sorted(found)]


def _named_by_mpich(rank: int, pid: int, signal: str, nodes: Sequence[int]) -> dict[str, Any]:
    """The failed entry of the rank MPICH's banner names (see failed_ranks)."""
    entry: dict[str, Any] = {"rank": rank, "pid": pid, "how": f"killed by {signal}"}
    node = nodes[rank] if rank < len(nodes) else None
    later = [r for r in range(rank + 1, len(nodes)) if nodes[r] == node]
    if signal == "SIGKILL" and later:
        entry["ranks"] = [rank, *later]
        entry["how"] = (
            f"rank {rank} was killed by SIGKILL, or MPICH's clean-up killed it after "
            f"{_spelled(later)} of its node died: MPICH names the first rank that ended, "
            "in rank order"
        )
    return entry


def _spelled(ranks: Sequence[int]) -> str:
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    return "one of ranks " + ", ".join(str(r) for r in ranks)


class _Runner:
    """Runs the phases of one check into ``state``."""

    def __init__(self, state: RunState, write: Callable[[RunState], None]) -> None:
        self.state = state
        self.write = write
        self.plan = state.plan
        timeout = state.request.timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout

    # --- one launch -----------------------------------------------------
    def _remaining(self) -> float | None:
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RunFailedError(
                f"the health check did not finish within --timeout {self.state.request.timeout:g} s"
            )
        return left

    def _bench_phase(
        self, phase: Phase, request: MeasureRequest, run_plan: Any
    ) -> dict[str, Any] | None:
        """Make one run of the bench; its document (complete, or what a failed
        launch left), None when it left nothing."""
        from mpiscope.measure.plan import bench_plan, check_plan
        from mpiscope.measure.progress import ProgressDisplay
        from mpiscope.measure.runner import BenchRun, find_bench, run_bench_runs
        from mpiscope.result import load_result

        out = self.plan.raw_dir / f"{phase.name}.json"
        request = request.with_options(timeout=self._remaining())
        bench = find_bench(request)
        if run_plan is None:
            plan_doc = check_plan(request, out, bench.profile, bench.launcher,
                                  self.plan.drift_seconds)  # fmt: skip
        else:
            plan_doc = bench_plan(
                request, replace(run_plan, out=out), bench.profile, bench.launcher
            )
        phase.ranks = request.np
        phase.launcher = " ".join(bench.launcher)
        phase.document = out.name
        display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)
        started = time.monotonic()
        try:
            plans = self.plan.raw_dir / "plans"  # the launch's own files; its result beside
            plans.mkdir(exist_ok=True)
            run_bench_runs([BenchRun(plan_doc)], bench, plans, request, display, out)
            phase.status = "complete"
        except RunFailedError as exc:
            phase.status, phase.error = "failed", str(exc)
        finally:
            phase.seconds = time.monotonic() - started
        try:
            doc = dict(load_result(out).data) if out.exists() else None
        except MpiscopeError:
            doc = None
        if phase.status == "failed":
            env = (doc or {}).get("environment") or (self.state.docs.get("collectives") or {}).get(
                "environment"
            )
            self.state.failed += [
                dict(f, phase=phase.name) for f in failed_ranks(phase.error or "", env)
            ]
        return doc

    def _run_plan(
        self,
        request: MeasureRequest,
        ops: Sequence[str],
        size: int,
        options: Sequence[tuple[str, str]],
        launches: int,
    ) -> Any:
        from mpiscope.measure.plan import RunPlan, check_cores

        return RunPlan(
            ops=list(ops),
            sizes=[size],
            nprocs=None,
            out=self.plan.out,
            oversubscribed=check_cores(request),
            max_launches=launches,
            methods=tuple(request.method or ()),
            options=tuple(options),
        )

    def _begin(self, name: str) -> Phase:
        phase = Phase(name)
        self.state.phases.append(phase)
        if not self.state.request.quiet:
            print(f"health: {name}", file=sys.stderr, flush=True)
        return phase

    def _skip(self, name: str, reason: str) -> None:
        self.state.phases.append(Phase(name, status="skipped", reason=reason))

    # --- the phases -----------------------------------------------------
    def collectives(self) -> bool:
        phase = self._begin("collectives")
        plan = self.plan
        if self.state.simulated:
            launches, timing = plan.simulated_launches, {}
        else:
            launches = max(8, math.ceil(plan.straggler_seconds * 1e9 / plan.straggler_window_ns))
            timing = {"window_ns": plan.straggler_window_ns}
        ns = self.state.request.with_options(
            raw=True,
            stop="count",
            max_launches=launches,
            max_valid=launches,
            method=["window"],
            cache=["warm"],
            **timing,
        )
        run_plan = self._run_plan(ns, plan.ops, plan.collective_bytes, plan.op_options, launches)
        doc = self._bench_phase(phase, ns, run_plan)
        if doc is not None:
            self.state.docs["collectives"] = doc
        self.write(self.state)
        return phase.status == "complete"

    def links(self) -> bool:
        env = self.state.docs["collectives"]["environment"]
        nodes = len(env.get("hosts") or [])
        by_node = self.plan.links == "nodes" and nodes >= 2
        if self.plan.links == "nodes" and nodes < 2:
            self.state.warnings.append(
                "one node: the link matrix is between ranks (over shared memory), not nodes"
            )
        rank_nodes = env.get("rank_nodes") or [0] * env["ranks"]
        if by_node:
            self.state.link_unit = "node"
            self.state.unit_ranks = [
                [r for r, n in enumerate(rank_nodes) if n == k] for k in range(nodes)
            ]
            units = nodes
        else:
            self.state.link_unit = "rank"
            self.state.unit_ranks = [[r] for r in range(env["ranks"])]
            units = env["ranks"]
        if units < 2:
            self._skip("links-latency", "one rank: no link to measure")
            self._skip("links-bandwidth", "one rank: no link to measure")
            return True
        placement = self._link_placement(units) if by_node else {}
        for metric, size, options, both in (
            ("latency", self.plan.latency_bytes, [("mode", "blocking")], False),
            (
                "bandwidth",
                self.plan.bandwidth_bytes,
                [("window", str(self.plan.bandwidth_window))],
                True,
            ),
        ):
            schedule = Schedule(units, tuple(range(units)), both_ways=both)
            self.state.schedules[metric] = schedule
            cycles = math.ceil(self.plan.samples / 2) if both else self.plan.samples
            launches = cycles * len(schedule.rounds)
            # valid launches (every rank on time) are what the pairs' samples
            # come from: a busy machine makes some late, and the point goes on
            # for up to LATE_ALLOWANCE times as many launches to make them up
            most = min(LATE_ALLOWANCE * launches, max(MAX_POINT_LAUNCHES, launches))
            phase = self._begin(f"links-{metric}")
            ns = self.state.request.with_options(
                np=units,
                raw=True,
                stop="count",
                max_launches=most,
                max_valid=launches,
                method=["roundtime"],
                cache=["warm"],
                **placement,
            )
            run_plan = self._run_plan(
                ns,
                [METRICS[metric].op],
                size,
                [("pairs", schedule.pairs_text()), *options],
                most,
            )
            doc = self._bench_phase(phase, ns, run_plan)
            if doc is not None:
                self.state.docs[f"links-{metric}"] = doc
                if by_node and not self._placed_one_per_node(phase, doc, units):
                    del self.state.docs[f"links-{metric}"]
            self._name_units(env, doc, by_node)
            self.write(self.state)
            if phase.status != "complete":
                return False
        return True

    def _link_placement(self, units: int) -> dict[str, Any]:
        """One rank on each node: the launcher's words for it."""
        if self.state.simulated:
            return {"ranks_per_host": 1, "srun_nodes": None}
        if self.state.request.launcher == "srun":
            return {"srun_nodes": units, "ntasks_per_node": 1}
        return {"ntasks_per_node": 1}

    def _placed_one_per_node(self, phase: Phase, doc: Mapping[str, Any], units: int) -> bool:
        placed = (doc.get("environment") or {}).get("rank_nodes") or []
        if len(set(placed)) == units == len(placed):
            return True
        phase.status = "failed"
        phase.error = (
            f"the launcher did not place one rank on each of the {units} nodes "
            f"(rank_nodes {placed[:16]}): the matrix would not be between nodes"
        )
        return False

    def _name_units(
        self, env: Mapping[str, Any], doc: Mapping[str, Any] | None, by_node: bool
    ) -> None:
        if by_node and doc is not None:
            link_env = doc.get("environment") or {}
            hosts, placed = link_env.get("hosts") or [], link_env.get("rank_nodes") or []
            self.state.unit_names = [hosts[n] for n in placed]
            order = {h: k for k, h in enumerate(env.get("hosts") or [])}
            nodes = env.get("rank_nodes") or []
            self.state.unit_ranks = [
                [r for r, n in enumerate(nodes) if n == order.get(name, -1)]
                for name in self.state.unit_names
            ]
        elif not by_node:
            self.state.unit_names = [f"rank {r}" for r in range(len(self.state.unit_ranks))]

    def probe(self) -> bool:
        if self.state.simulated:
            self._skip(
                "probe",
                "simulated: SimGrid simulates no operating-system noise and no "
                "memory, so there are no detours or triad bandwidth to probe",
            )
            return True
        from mpiscope.measure.runner import find_bench
        from mpiscope.noise.probe_run import ProbePlan, run_probe

        phase = self._begin("probe")
        ns = self.state.request
        bench = find_bench(ns)
        probe_plan = ProbePlan(
            cores=[],
            seconds_per_kind=self.plan.probe_seconds,
            kinds=PROBE_KINDS,
            launcher=tuple(bench.launcher),
        )
        raw = self.plan.raw_dir / "probe"
        phase.ranks, phase.launcher, phase.document = ns.np, " ".join(bench.launcher), raw.name
        started = time.monotonic()
        try:
            self.state.probe = run_probe(
                probe_plan, bench.profile, raw, timeout_s=self._remaining()
            )
            phase.status = "complete"
        except RunFailedError as exc:
            phase.status, phase.error = "failed", str(exc)
            env = self.state.docs["collectives"].get("environment")
            self.state.failed += [dict(f, phase=phase.name) for f in failed_ranks(str(exc), env)]
        phase.seconds = time.monotonic() - started
        self.write(self.state)
        return phase.status == "complete"

    def check(self) -> bool:
        if self.state.simulated:
            self._skip("check", "simulated: one simulated clock for every rank")
            return True
        if not self.plan.check:
            self._skip("check", "turned off (--no-check)")
            return True
        phase = self._begin("check")
        doc = self._bench_phase(phase, self.state.request, None)
        if doc is not None:
            self.state.docs["check"] = doc
        self.write(self.state)
        return phase.status == "complete"


def run_health(state: RunState, write: Callable[[RunState], None]) -> RunState:
    """Run every phase in order until one fails; ``write(state)`` after each.
    A Ctrl-C writes what was measured, then goes on up."""
    plan = state.plan
    if plan.raw_dir.exists():
        shutil.rmtree(plan.raw_dir)
    plan.raw_dir.mkdir(parents=True)
    state.started = _utc_now()
    runner = _Runner(state, write)
    steps = (runner.collectives, runner.links, runner.probe, runner.check)
    try:
        for step in steps:
            if not step():
                break
    except KeyboardInterrupt:
        state.warnings.append("interrupted: the check stopped where it was")
        state.ended = _utc_now()
        write(state)
        raise
    except RunFailedError as exc:  # the --timeout between launches
        state.warnings.append(str(exc))
    done = {p.name for p in state.phases}
    for name in ("collectives", "links-latency", "links-bandwidth", "probe", "check"):
        if name not in done:
            state.phases.append(Phase(name, status="skipped", reason="an earlier phase failed"))
    state.ended = _utc_now()
    write(state)
    return state
