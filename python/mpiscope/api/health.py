"""The cluster health check from Python, as ``mpiscope health`` runs it.

``mpiscope.health_check(np=2, out="h.json")`` runs the check
(:mod:`mpiscope.health.session`) with the options of ``mpiscope health``
by name, checked by the command's own parser, and returns a
:class:`Health`: its document, its verdict's text and exit code.
``mpiscope.open_health(path)`` reads a health document back. The command
line (:mod:`mpiscope.commands.health`) is a thin layer over these.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.api.options import api_call, parse_options
from mpiscope.errors import MpiscopeError
from mpiscope.health import MAX_POINT_LAUNCHES
from mpiscope.parsing import float_in, int_in

__all__ = ["Health", "add_health_options", "health_check", "open_health", "record_health"]

#: The largest --window: the bandwidth operations' own bound (``window``
#: of bw, bibw and mbw_mr, src/ops/bandwidth.c), which their option
#: description does not carry.
MAX_WINDOW = 4096
#: The longest probe of each kind (``noise probe --seconds``: a day).
MAX_PROBE_SECONDS = 86400.0

_OPTIONS = (
    "--np",
    "--out",
    "--force",
    "--oversubscribe",
    "--mpi",
    "--timeout",
    "--quiet",
    "--timer",
    "--sync",
    "--sync-patience",
    "--sync-fitpoints",
    "--sync-fit-gap-ns",
    "--sync-node-leaders",
    "--option",
)



def add_health_options(p: argparse.ArgumentParser) -> None:
    """The options of ``mpiscope health`` (all but its ``report FILE``)."""
    from mpiscope.measure.options import add_measure_options

    add_measure_options(p, runs=False, only=_OPTIONS)
    g = p.add_argument_group("what the check measures")
    g.add_argument(
        "--links",
        choices=("nodes", "ranks"),
        default="nodes",
        help="the link matrix between nodes (one rank each; default) or between "
        "every pair of ranks; on one node always ranks",
    )
    g.add_argument(
        "--ops",
        default="allreduce,barrier",
        metavar="OPS",
        help="the collectives whose stragglers are looked for (default allreduce,barrier; "
        "their options: --option)",
    )
    g.add_argument(
        "--samples",
        type=int_in(2, MAX_POINT_LAUNCHES),
        default=10,
        metavar="N",
        help="samples of every pair, in launches spread over the run (bandwidth: "
        "half each way; default 10; samples x rounds at most the engine's max_launches)",
    )
    g.add_argument(
        "--latency-size",
        default="8",
        metavar="SIZE",
        help="message of the latency matrix (default 8)",
    )
    g.add_argument(
        "--bandwidth-size",
        default="1M",
        metavar="SIZE",
        help="message of the bandwidth matrix (default 1M)",
    )
    g.add_argument(
        "--window",
        type=int_in(1, MAX_WINDOW),
        default=16,
        metavar="W",
        help=f"messages in flight per bandwidth sample, 1 to {MAX_WINDOW} (default 16)",
    )
    g.add_argument(
        "--seconds",
        type=float_in(0, MAX_POINT_LAUNCHES / 1000, low_open=True),
        default=3.0,
        metavar="S",
        help="real runs: length of each collective's straggler run, a launch a ms, "
        f"at most {MAX_POINT_LAUNCHES / 1000:g} (default 3)",
    )
    g.add_argument(
        "--probe-seconds",
        type=float_in(0, MAX_PROBE_SECONDS, low_open=True),
        default=1.0,
        metavar="S",
        help="real runs: length of each noise probe, at most a day (default 1)",
    )
    g.add_argument(
        "--no-check",
        action="store_true",
        help="real runs: leave out the machine check (timers, clock sync, states)",
    )
    g.add_argument(
        "--threshold",
        type=float_in(0, 100, low_open=True),
        default=0.25,
        metavar="F",
        help="a link is slow when worse than typical by this fraction at least, "
        "(0, 100] (default 0.25)",
    )


@dataclass(frozen=True)
class Health:
    """A health check: its document, as written to ``path``."""

    path: Path
    document: dict[str, Any]

    @property
    def suspects(self) -> list[dict[str, Any]]:
        """What the verdict names: each with its kind, name, evidence and
        how sure."""
        return list(self.document.get("suspects") or [])

    @property
    def exit_code(self) -> int:
        """The command's exit code: 0 healthy, 1 something is out."""
        from mpiscope.health.verdict import exit_code

        return exit_code(self.document)

    def text(self) -> str:
        """The verdict as ``mpiscope health`` prints it."""
        from mpiscope.health.text import format_health

        return format_health(self.document)


def health_check(*, show: bool = False, **options: Any) -> Health:
    """Run the health check, as ``mpiscope health`` does; ``options`` are its
    options by name (``np``, ``out``, ``links``, ``seconds``, ...). Prints
    nothing unless ``show`` (what the command prints; the progress with
    ``quiet=False``); returns the check, whose document is also in ``out``."""
    with api_call(options):
        values = parse_options("health", add_health_options, (), options, "health_check")
        return record_health(values, show=show)


def open_health(path: str | Path) -> Health:
    """A health document read back (``mpiscope health report FILE``)."""
    from mpiscope.result.health import load_health

    return Health(Path(path), dict(load_health(Path(path))))


def record_health(values: Mapping[str, Any], show: bool = False) -> Health:
    """Run the check of parsed options ``values`` (the command's, by name),
    writing its document after each phase; ``show``: print the verdict and
    where the files are."""
    from mpiscope.health.session import RunState, run_health
    from mpiscope.health.verdict import health_document
    from mpiscope.result.health import write_health

    plan, request, simulated = _plan(values)
    state = RunState(plan=plan, request=request, simulated=simulated)
    run_health(state, lambda s: write_health(health_document(s, final=False), plan.out))
    doc = health_document(state)
    write_health(doc, plan.out)
    health = Health(Path(plan.out), doc)
    if show:
        print(health.text())
        print(f"\nhealth document: {plan.out}   runs: {plan.raw_dir}")
    return health


def _plan(values: Mapping[str, Any]) -> tuple[Any, Any, bool]:
    """The checked plan and the request of the measurements; MpiscopeError
    (exit 2) on bad input."""
    from mpiscope.health.links import LinkRule
    from mpiscope.health.session import HealthPlan
    from mpiscope.health.verdict import raw_dir_of
    from mpiscope.measure.options import measure_defaults
    from mpiscope.measure.plan import RunPlan, check_cores, check_ops, check_out
    from mpiscope.measure.request import MeasureRequest
    from mpiscope.measure.runner import find_bench
    from mpiscope.measure.sizes import one_size

    if values["np"] < 2:
        raise MpiscopeError(f"--np {values['np']}: a health check needs 2 ranks at least")
    simulated = values["launcher"] == "smpi"
    placement: dict[str, Any] = {}
    if simulated:
        placement = _simulated_nodes(values)
    elif values["srun_nodes"] and values["np"] % values["srun_nodes"]:
        raise MpiscopeError(
            f"--np {values['np']} ranks do not fill --nodes {values['srun_nodes']} evenly "
            f"({values['np'] / values['srun_nodes']:.3g} a node)"
        )
    _check_link_launches(values)
    ops = tuple(o.strip() for o in values["ops"].split(",") if o.strip())
    if not ops:
        raise MpiscopeError(f"--ops {values['ops']!r}: no operation")
    latency_bytes = one_size(values["latency_size"], "--latency-size")
    bandwidth_bytes = one_size(values["bandwidth_size"], "--bandwidth-size")
    request = MeasureRequest.of({**measure_defaults(), **values}, force=bool(values["force"]),
                                **placement)  # fmt: skip
    out = check_out(request.out, request.force, prefix="health")
    if raw_dir_of(out).exists() and not request.force:
        raise MpiscopeError(f"{raw_dir_of(out)} exists (use --force to overwrite)")
    check_cores(request)
    bench = find_bench(request)  # the launcher flags together, and the build
    probe = RunPlan(list(ops), [8], None, out, False, 1, options=tuple(values["option"]))
    ops = tuple(check_ops(probe, bench.profile))
    plan = HealthPlan(
        out=out,
        raw_dir=raw_dir_of(out),
        links=values["links"],
        latency_bytes=latency_bytes,
        bandwidth_bytes=bandwidth_bytes,
        bandwidth_window=values["window"],
        samples=values["samples"],
        ops=ops,
        op_options=tuple(values["option"]),
        straggler_seconds=values["seconds"],
        probe_seconds=values["probe_seconds"],
        check=not values["no_check"],
        link_rule=LinkRule(threshold=values["threshold"]),
    )
    if not values["quiet"]:
        print(f"health: {values['np']} ranks; its runs go to {plan.raw_dir}", file=sys.stderr)
    return plan, request, simulated


def _check_link_launches(values: Mapping[str, Any]) -> None:
    """A link phase makes ``--samples`` launches of each round, and a round
    set has p - 1 rounds (p even; p odd: p) for p units, each way for the
    bandwidth: at most the engine's launches of one point. p is the nodes
    when known, else the ranks (the most units there can be)."""
    nodes = values["srun_nodes"] if values["links"] == "nodes" else None
    units = nodes or values["np"]
    rounds = units - 1 + units % 2
    launches = values["samples"] * rounds
    if launches > MAX_POINT_LAUNCHES:
        raise MpiscopeError(
            f"--samples {values['samples']}: {launches} launches for the {rounds} rounds of "
            f"{units} {'nodes' if nodes else 'ranks'}, more than the engine's "
            f"{MAX_POINT_LAUNCHES} of one point"
        )


def _simulated_nodes(values: Mapping[str, Any]) -> dict[str, Any]:
    """``--nodes N`` of a simulated run: the first N hosts, --np / N each
    (the request's placement: ranks a host, and no srun --nodes)."""
    from mpiscope.measure.simulation import load_platform

    if values["srun_nodes"] is None or values["platform"] is None:
        return {}
    nodes, platform = values["srun_nodes"], load_platform(values["platform"])
    if nodes > len(platform.hosts):
        raise MpiscopeError(
            f"--nodes {nodes}: platform {platform.name} has {len(platform.hosts)} hosts"
        )
    if values["np"] % nodes:
        raise MpiscopeError(
            f"--np {values['np']} ranks do not fill --nodes {nodes} evenly "
            f"({values['np'] / nodes:.3g} a node)"
        )
    per_host = values["np"] // nodes
    small = [name for name, cores in platform.hosts[:nodes] if cores < per_host]
    if small:
        raise MpiscopeError(
            f"--np {values['np']} on --nodes {nodes}: {per_host} ranks a node, "
            f"but host {small[0]} of {platform.name} has fewer cores"
        )
    return {"ranks_per_host": per_host, "srun_nodes": None}
