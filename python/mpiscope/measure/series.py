"""A series of runs of the bench in one command (the Alltoall lab's check,
compare, contention and fft): each run with its own ops, sizes, options,
environment and launcher arguments; a failed run is recorded, not
raised; the series shares one --timeout."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope.errors import RunFailedError, StoppedError
from mpiscope.measure.plan import available_cores
from mpiscope.measure.request import MeasureRequest

__all__ = ["RunSeries", "oversubscribed", "simulated"]


class RunSeries:
    """One run after another of the same command, each with its own plan,
    environment and launcher arguments; a failure is recorded, not raised;
    the whole series shares --timeout."""

    def __init__(
        self, request: MeasureRequest, bench: Any, tmp: Path, declared: Mapping[str, set[str]]
    ) -> None:
        self.request = request
        self.bench = bench
        self.tmp = tmp
        self.declared = declared  # op -> its options: an option no op of a run has is dropped
        self.count = 0
        self.deadline = None if request.timeout is None else time.monotonic() + request.timeout

    def run(
        self,
        label: str,
        ops: Sequence[str],
        sizes: Sequence[int],
        options: Mapping[str, str],
        env: Mapping[str, str] | None = None,
        launcher_args: Sequence[str] = (),
        **params: Any,
    ) -> tuple[dict[str, Any] | None, str | None]:
        """(the run's result document or None, its error or None)."""
        from mpiscope.measure.plan import RunPlan, bench_plan
        from mpiscope.measure.progress import ProgressDisplay
        from mpiscope.measure.runner import BenchRun, Echo, run_bench_runs

        index = self.count
        self.count += 1
        known = set().union(*(self.declared.get(op, set()) for op in ops))
        options = {k: v for k, v in options.items() if k in known}
        out = self.tmp / f"run-{index}.json"
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            return None, "not started: --timeout reached"
        request = self.request.with_options(**params, timeout=remaining, force=True,
                                            dry_run=False)  # fmt: skip
        bench = self.bench.with_settings(env=env, launcher_args=launcher_args)
        plan = RunPlan(list(ops), list(sizes), None, out, oversubscribed(request),
                       request.param("max_launches") or 1000,
                       options=tuple(options.items()))  # fmt: skip
        run = BenchRun(bench_plan(request, plan, bench.profile, bench.launcher))
        display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)

        def render(result: Any) -> str:
            return f"  {label}: {len(result.points)} points"

        error = None
        try:
            run_bench_runs([run], bench, self.tmp, request, display, out,
                         Echo(render, path=False))  # fmt: skip
        except StoppedError:
            raise  # told to stop: no further run of the series
        except RunFailedError as exc:
            error = str(exc).split("; partial result")[0]
            print(f"  {label}: failed: {error}")
        try:
            doc = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
        except (OSError, ValueError):
            doc = None
        return doc, error


def simulated(request: MeasureRequest) -> bool:
    from mpiscope.measure.simulation import launch_platform

    return launch_platform(request) is not None


def oversubscribed(request: MeasureRequest) -> bool:
    """More ranks than cores (a simulated run never is)."""
    return not simulated(request) and request.np > available_cores()
