"""``mpiscope health``: which node, which link, which core (docs/health.md).

``mpiscope health --np N [launcher options] --out h.json`` runs the check
(:mod:`mpiscope.health.session`) and prints the verdict;
``mpiscope health report h.json`` prints it again from the document;
``mpiscope html h.json`` draws it. Exit code: 0 healthy, 1 something is
out (named), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.health import MAX_POINT_LAUNCHES
from mpiscope.parsing import float_in, int_in

__all__ = ["add_parser"]

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


def add_parser(commands: Any) -> None:
    from mpiscope.measure.options import add_measure_options

    p = commands.add_parser(
        "health",
        help="which node, which link, which core: cluster health and stragglers",
        description="Check an allocation before benchmarking it: the link matrix (latency and "
        "bandwidth of every pair of nodes, a round-robin of disjoint pairs timed on the global "
        "clock), stragglers in collectives (who arrives last, how often, by how much), and "
        "each node's fingerprint (per-core detours and their frequency, STREAM triad, clocks, "
        "the machine check). Prints the suspects, each with its measurement and how sure. "
        "'mpiscope health report FILE' prints a document again. Exit code 0: healthy, "
        "1: something is out (named), 2: bad input.",
    )
    p.add_argument(
        "what",
        nargs="*",
        metavar="report FILE",
        help="'report FILE': print the verdict of a health document",
    )
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
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.what:
        return _report(args.what)
    from mpiscope.health.session import RunState, run_health
    from mpiscope.health.text import format_health
    from mpiscope.health.verdict import exit_code, health_document
    from mpiscope.result.health import write_health

    plan, request, simulated = _plan(args)
    state = RunState(plan=plan, request=request, simulated=simulated)
    run_health(state, lambda s: write_health(health_document(s, final=False), plan.out))
    doc = health_document(state)
    write_health(doc, plan.out)
    print(format_health(doc))
    print(f"\nhealth document: {plan.out}   runs: {plan.raw_dir}")
    return exit_code(doc)


def _report(what: list[str]) -> int:
    from mpiscope.health.text import format_health
    from mpiscope.health.verdict import exit_code
    from mpiscope.result.health import load_health

    if what[0] != "report" or len(what) != 2:
        raise MpiscopeError(
            f"health takes options to run a check, or 'report FILE' (not {' '.join(what)!r})"
        )
    doc = load_health(Path(what[1]))
    print(format_health(doc))
    return exit_code(doc)


def _size(text: str, flag: str) -> int:
    from mpiscope.measure.sizes import parse_size_spec

    sizes = parse_size_spec(text)
    if len(sizes) != 1:
        raise MpiscopeError(f"{flag} {text!r}: one size, not {len(sizes)}")
    return sizes[0]


def _plan(args: argparse.Namespace) -> tuple[Any, Any, bool]:
    """The checked plan and the request of the measurements; MpiscopeError
    (exit 2) on bad input."""
    from mpiscope.health.links import LinkRule
    from mpiscope.health.session import HealthPlan
    from mpiscope.health.verdict import raw_dir_of
    from mpiscope.measure.options import measure_defaults
    from mpiscope.measure.plan import RunPlan, check_cores, check_ops, check_out
    from mpiscope.measure.request import MeasureRequest
    from mpiscope.measure.runner import find_bench

    if args.np < 2:
        raise MpiscopeError(f"--np {args.np}: a health check needs 2 ranks at least")
    simulated = args.launcher == "smpi"
    placement: dict[str, Any] = {}
    if simulated:
        placement = _simulated_nodes(args)
    elif args.srun_nodes and args.np % args.srun_nodes:
        raise MpiscopeError(
            f"--np {args.np} ranks do not fill --nodes {args.srun_nodes} evenly "
            f"({args.np / args.srun_nodes:.3g} a node)"
        )
    _check_link_launches(args)
    ops = tuple(o.strip() for o in args.ops.split(",") if o.strip())
    if not ops:
        raise MpiscopeError(f"--ops {args.ops!r}: no operation")
    latency_bytes = _size(args.latency_size, "--latency-size")
    bandwidth_bytes = _size(args.bandwidth_size, "--bandwidth-size")
    request = MeasureRequest.of({**measure_defaults(), **vars(args)}, force=bool(args.force),
                                **placement)  # fmt: skip
    out = check_out(request.out, request.force, prefix="health")
    if raw_dir_of(out).exists() and not request.force:
        raise MpiscopeError(f"{raw_dir_of(out)} exists (use --force to overwrite)")
    check_cores(request)
    bench = find_bench(request)  # the launcher flags together, and the build
    probe = RunPlan(list(ops), [8], None, out, False, 1, options=tuple(args.option))
    ops = tuple(check_ops(probe, bench.profile))
    plan = HealthPlan(
        out=out,
        raw_dir=raw_dir_of(out),
        links=args.links,
        latency_bytes=latency_bytes,
        bandwidth_bytes=bandwidth_bytes,
        bandwidth_window=args.window,
        samples=args.samples,
        ops=ops,
        op_options=tuple(args.option),
        straggler_seconds=args.seconds,
        probe_seconds=args.probe_seconds,
        check=not args.no_check,
        link_rule=LinkRule(threshold=args.threshold),
    )
    if not args.quiet:
        print(f"health: {args.np} ranks; its runs go to {plan.raw_dir}", file=sys.stderr)
    return plan, request, simulated


def _check_link_launches(args: argparse.Namespace) -> None:
    """A link phase makes ``--samples`` launches of each round, and a round
    set has p - 1 rounds (p even; p odd: p) for p units, each way for the
    bandwidth: at most the engine's launches of one point. p is the nodes
    when known, else the ranks (the most units there can be)."""
    nodes = args.srun_nodes if args.links == "nodes" else None
    units = nodes or args.np
    rounds = units - 1 + units % 2
    launches = args.samples * rounds
    if launches > MAX_POINT_LAUNCHES:
        raise MpiscopeError(
            f"--samples {args.samples}: {launches} launches for the {rounds} rounds of "
            f"{units} {'nodes' if nodes else 'ranks'}, more than the engine's "
            f"{MAX_POINT_LAUNCHES} of one point"
        )


def _simulated_nodes(args: argparse.Namespace) -> dict[str, Any]:
    """``--nodes N`` of a simulated run: the first N hosts, --np / N each
    (the request's placement: ranks a host, and no srun --nodes)."""
    from mpiscope.measure.simulation import load_platform

    if args.srun_nodes is None or args.platform is None:
        return {}
    nodes, platform = args.srun_nodes, load_platform(args.platform)
    if nodes > len(platform.hosts):
        raise MpiscopeError(
            f"--nodes {nodes}: platform {platform.name} has {len(platform.hosts)} hosts"
        )
    if args.np % nodes:
        raise MpiscopeError(
            f"--np {args.np} ranks do not fill --nodes {nodes} evenly "
            f"({args.np / nodes:.3g} a node)"
        )
    per_host = args.np // nodes
    small = [name for name, cores in platform.hosts[:nodes] if cores < per_host]
    if small:
        raise MpiscopeError(
            f"--np {args.np} on --nodes {nodes}: {per_host} ranks a node, "
            f"but host {small[0]} of {platform.name} has fewer cores"
        )
    return {"ranks_per_host": per_host, "srun_nodes": None}
