"""``mpiscope model``: communication performance models (docs/models.md).

``measure`` runs the experiments the models need with the engine,
``fit`` fits one model to them, ``predict`` gives collective times from a
fitted model, ``check`` sets predictions against measured collectives, and
``platform`` writes a SimGrid platform calibrated by the model.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import subcommands
from mpiscope.record import replace

if TYPE_CHECKING:
    from mpiscope.measure.request import MeasureRequest

__all__ = ["add_parser"]

DEFAULT_SIZES = "1:1M:x4"
#: Messages of the prtt trains (Netgauge's default).
PRTT_N = 10
#: Sizes up to this get the delayed prtt (o_s is read at the smallest size).
DELAYED_MAX_BYTES = 1024
#: The longest --recv-delay-us: 1 s.
MAX_DELAY_US = 1e6
#: The most --bootstrap resamples (each refits the model: the time grows with their number).
MAX_BOOTSTRAP = 10000
#: The most Hockney regimes (--segments, --max-segments).
MAX_SEGMENTS = 64
#: The Hockney fit's own options (None: not given) and their defaults.
HOCKNEY_DEFAULTS = {"max_segments": 4, "tolerance": 0.05}


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "model",
        help="communication performance models: measure, fit, predict, check, simulate",
        description="Fit Hockney (piecewise), LogGP, PLogP and LMO models to engine "
        "measurements, predict collectives with them, check the predictions against "
        "measured collectives and calibrate a SimGrid platform (docs/models.md).",
    )
    subcommands(parser, "model", (_add_measure, _add_fit, _add_predict, _add_check, _add_platform))


# --- measure ------------------------------------------------------------------------------
def _add_measure(sub: Any) -> None:
    from mpiscope.measure.options import add_measure_options
    from mpiscope.parsing import float_in

    p = sub.add_parser(
        "measure",
        help="run the experiments the models need",
        description="Run, with the engine, the experiments of every model: pingpong over the "
        "sizes (Hockney), prtt trains (LogGP's Netgauge procedure and PLogP's gap), "
        "overhead_send and overhead_recv (PLogP's o_s(m), o_r(m)), reduce_local (gamma) and, "
        f"with --lmo, one_to_two and a pingpong per pair (LMO, 3 ranks or more). Default sizes "
        f"{DEFAULT_SIZES}. Raw samples are kept for the bootstrap. One result document.",
    )
    add_measure_options(p, runs=False, only={
        "--np", "--sizes", "--out", "--force", "--mpi", "--timeout", "--quiet", "--dry-run",
        "--max-launches", "--stop", "--oversubscribe", "--launcher"})  # fmt: skip
    p.add_argument("--pairs", action="store_true",
                   help="a pingpong for every pair of ranks too (per-pair Hockney)")
    p.add_argument("--lmo", action="store_true",
                   help="the LMO experiments: one_to_two from every root and a pingpong per "
                   "pair (needs --np 3 or more)")  # fmt: skip
    p.add_argument("--recv-delay-us", type=float_in(0, MAX_DELAY_US, low_open=True), default=100.0,
                   metavar="US", help="overhead_recv's delay before the receive, at most "
                   f"{MAX_DELAY_US:g} (default 100)")
    p.set_defaults(handler=_measure)


def _experiments(args: argparse.Namespace, known: set[str]) -> tuple[list[tuple[str, dict[str, str], int | None]], list[str]]:  # noqa: E501
    """(ops, options, root) of each run of phase 1, and what is left out."""
    from mpiscope.models.data import option_text

    pairs = [(i, j) for i in range(args.np) for j in range(i + 1, args.np)]
    wanted: list[tuple[str, dict[str, str], int | None]] = [("pingpong", {"pairs": "0-1"}, None)]
    if args.pairs or args.lmo:
        wanted += [("pingpong", {"pairs": f"{i}-{j}"}, None) for i, j in pairs if (i, j) != (0, 1)]
    wanted += [
        ("prtt", {"n": "1", "delay_us": "0"}, None),
        ("prtt", {"n": str(PRTT_N), "delay_us": "0"}, None),
        ("overhead_send,overhead_recv", {"delay_us": option_text(args.recv_delay_us)}, None),
        ("reduce_local", {}, None),
    ]
    if args.lmo:
        wanted += [("one_to_two", {}, root) for root in range(args.np)]
    kept, left = [], []
    for ops, options, root in wanted:
        missing = [op for op in ops.split(",") if op not in known]
        if missing:
            left.append(f"{', '.join(missing)} (this mpiscope-bench lacks it)")
        else:
            kept.append((ops, options, root))
    return kept, sorted(set(left))


def _measure(args: argparse.Namespace) -> int:
    from mpiscope.measure.catalogue import query_ops
    from mpiscope.measure.options import measure_defaults
    from mpiscope.measure.plan import plan_run
    from mpiscope.measure.request import MeasureRequest
    from mpiscope.measure.runner import find_bench

    if args.lmo and args.np < 3:
        raise MpiscopeError(f"--lmo needs 3 ranks at least (one_to_two), not --np {args.np}")
    if args.np < 2:
        raise MpiscopeError(f"the models' experiments send messages between ranks: --np 2 at "
                            f"least, not {args.np}")  # fmt: skip
    request = MeasureRequest.of({**measure_defaults(), **vars(args)},
                                sizes=args.sizes or DEFAULT_SIZES, raw=True, ops="pingpong")
    plan = plan_run(request)
    bench = find_bench(request)
    _, catalogue = query_ops(bench.profile)
    experiments, left = _experiments(args, {op.name for op in catalogue})
    for text in left:
        print(f"left out: {text}")
    return _run_phases(request, plan, bench, experiments)


#: Under SimGrid SMPI (3.32) a rank asleep until its slot wakes up only when
#: a message already in flight to it has arrived, so every overhead_send
#: launch of the window method started late (none valid below the eager
#: limit): there the overhead experiments, which read one rank's own call,
#: start after a barrier instead.
SIMULATED_OVERHEAD_METHOD = "barrier-each"


def _bench_run(request: MeasureRequest, plan: Any, bench: Any, out: Path, ops: str,
            options: dict[str, str], root: int | None, sizes: list[int]) -> Any:  # fmt: skip
    from mpiscope.measure.plan import bench_plan
    from mpiscope.measure.runner import BenchRun

    own = request if root is None else request.with_options(root=root)
    methods = plan.methods
    if bench.profile.implementation == "smpi" and ops.startswith("overhead_"):
        methods = (SIMULATED_OVERHEAD_METHOD,)
    run = replace(plan, ops=ops.split(","), sizes=sizes, out=out, methods=methods,
                  options=tuple(options.items()))  # fmt: skip
    return BenchRun(bench_plan(own, run, bench.profile, bench.launcher))


def _run_phases(request: MeasureRequest, plan: Any, bench: Any, experiments: list[Any]) -> int:
    """Phase 1: every experiment; phase 2: the delayed prtt, its delay
    PRTT(1,0,s) measured in phase 1 (Netgauge's d). Phase 1 writes ``out``
    itself, so a run that fails keeps what the others measured there."""
    from mpiscope.measure.progress import ProgressDisplay
    from mpiscope.measure.runner import Echo, private_dir, run_bench_runs
    from mpiscope.result import load_result, write_document

    with private_dir(plan.out) as tmp_text:
        tmp = Path(tmp_text)
        runs = [_bench_run(request, plan, bench, tmp / f"run-{i}.json", ops, opts, root,
                            plan.sizes) for i, (ops, opts, root) in enumerate(experiments)]
        display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)
        run_bench_runs(runs, bench, tmp, request, display, plan.out,
                     Echo(_quiet, path=False))  # the path is printed once, after the summary
        if request.dry_run:
            print("(then the delayed prtt, its delay measured by the prtt n=1 above)")
            return 0
        doc = dict(load_result(plan.out).data)
        delayed = _delayed(request, plan, bench, doc, tmp)
        if delayed is not None:
            doc = _append(doc, dict(load_result(delayed).data))
        write_document(doc, plan.out)
    result = load_result(plan.out)
    print(_summary(result.data))
    print(f"\nresult: {plan.out}")
    return 0


def _quiet(_result: Any) -> str:
    return "experiments measured"


def _delayed(request: MeasureRequest, plan: Any, bench: Any, doc: dict[str, Any],
             tmp: Path) -> Path | None:  # fmt: skip
    from mpiscope.measure.progress import ProgressDisplay
    from mpiscope.measure.runner import Echo, run_bench_runs
    from mpiscope.models.data import find_series

    single = find_series(doc, "prtt", {"n": "1", "delay_us": "0"}, rank=0, statistic="q25")
    if single is None:
        return None
    sizes = [s for s in single.sizes if s <= DELAYED_MAX_BYTES] or [single.sizes[0]]
    # d >= PRTT(1,0,s) (Netgauge); the lower quartile, not the median: on a loaded
    # machine a descheduled half of the launches would make d milliseconds
    longest = max(t for s, t in zip(single.sizes, single.values(), strict=True) if s in sizes)
    delay_us = str(max(1, math.ceil(2 * longest / 1000)))
    out = tmp / "phase2.json"
    run = _bench_run(request, plan, bench, tmp / "run-delayed.json", "prtt",
                     {"n": str(PRTT_N), "delay_us": delay_us}, None, sizes)  # fmt: skip
    display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)
    run_bench_runs([run], bench, tmp, request, display, out, Echo(_quiet, path=False))
    return out


def _append(doc: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """``more``'s run appended to the merged ``doc`` (its points renumbered)."""
    base = len(doc.get("runs") or [])
    records = [dict(r, run=r["run"] + base) for r in more.get("runs") or []]
    if not records:
        records = [{"run": base, "status": more["status"], "error": more.get("error"),
                    "start_time_utc": more["environment"].get("start_time_utc", ""),
                    "end_time_utc": more["environment"].get("end_time_utc", ""),
                    "command": more["environment"].get("command_line", ""),
                    "points": len(more["points"])}]  # fmt: skip
    points = [dict(p, run=p.get("run", 0) + base) for p in more["points"]]
    merged = dict(doc, runs=[*doc.get("runs", []), *records],
                  points=[*doc["points"], *points])  # fmt: skip
    merged["warnings"] = list(dict.fromkeys([*doc["warnings"], *more["warnings"]]))
    return merged


def _summary(doc: Mapping[str, Any]) -> str:
    from mpiscope.reports.texttable import format_table
    from mpiscope.result.units import format_ns

    groups: dict[str, list[tuple[int, float]]] = {}
    for p in doc["points"]:
        label = p["op"] + "".join(f" {k}={v}" for k, v in (p.get("options") or {}).items())
        if p.get("root") and p["op"] == "one_to_two":
            label += f" root={p['root']}"
        groups.setdefault(label, []).append((p["size_bytes"], p["median_ns"]))
    rows = []
    for label, values in groups.items():
        times = [t for _, t in values if t is not None]
        rows.append([label, str(len(values)), str(len(times)),
                     format_ns(min(times)) if times else "-",
                     format_ns(max(times)) if times else "-"])  # fmt: skip
    return "\n".join(format_table(["experiment", "sizes", "with a median", "fastest", "slowest"],
                                   "<>>>>", rows))  # fmt: skip


# --- fit ----------------------------------------------------------------------------------
def _add_fit(sub: Any) -> None:
    from mpiscope.parsing import float_in, int_in

    p = sub.add_parser(
        "fit", help="fit a model to measured points",
        description="Fit one model to a result document (from model measure, or mpiscope run "
        "pingpong --raw for Hockney) and write the model document (docs/model-schema.md). "
        "Every parameter gets a confidence interval by bootstrap over the measured samples.")
    p.add_argument("source", metavar="MEASURED.json")
    p.add_argument("--model", required=True, metavar="NAME",
                   help="hockney, loggp, plogp, lmo, or direct (each measured collective's own "
                   "times: a result of mpiscope run OPS)")
    p.add_argument("--out", required=True, metavar="FILE", help="the model document")
    p.add_argument("--force", action="store_true", help="overwrite --out")
    p.add_argument("--segments", type=int_in(1, MAX_SEGMENTS), metavar="K",
                   help=f"Hockney: exactly K regimes, at most {MAX_SEGMENTS} (default: found from "
                   "the data)")
    p.add_argument("--max-segments", type=int_in(1, MAX_SEGMENTS), metavar="K",
                   help=f"Hockney: at most K regimes when found from the data (default "
                   f"{HOCKNEY_DEFAULTS['max_segments']})")
    p.add_argument("--tolerance", type=float_in(0, 10, high_open=True), metavar="F",
                   help="Hockney: the fewest regimes with every point within F, in [0, 10) "
                   f"(default {HOCKNEY_DEFAULTS['tolerance']})")
    p.add_argument("--per-pair", action="store_true",
                   help="Hockney: a fit per pair of ranks too (model measure --pairs)")
    p.add_argument("--bootstrap", type=int_in(0, MAX_BOOTSTRAP), default=200, metavar="B",
                   help=f"bootstrap resamples for the intervals, at most {MAX_BOOTSTRAP} "
                   "(default 200; 0: none)")
    p.add_argument("--confidence", type=float_in(0, 1, True, True), default=0.95, metavar="C",
                   help="confidence of the intervals, in (0, 1) (default 0.95)")
    p.add_argument("--seed", type=int_in(0, 2**31 - 1), default=1, metavar="S",
                   help="bootstrap seed (default 1)")
    p.add_argument("--statistic", default="median", metavar="NAME",
                   help="of each size's samples: median (default), min (MPIBlib's choice, "
                   "robust on a loaded machine), q10 or q25")
    p.set_defaults(handler=_fit)


def _checked_out(path_text: str, force: bool, inputs: list[str], what: str) -> Path:
    from mpiscope.outputs import check_output

    return check_output(path_text, force=force, inputs=inputs, what=what)


def _hockney_options(args: argparse.Namespace) -> None:
    """Refuse Hockney's options with another model, and a contradiction
    between them; fill in their defaults."""
    given = [f"--{name.replace('_', '-')}" for name in ("segments", *HOCKNEY_DEFAULTS)
             if getattr(args, name) is not None] + (["--per-pair"] if args.per_pair else [])
    if args.model != "hockney" and given:
        raise MpiscopeError(f"{given[0]} is an option of the Hockney fit, not of --model "
                            f"{args.model}")  # fmt: skip
    if args.segments is not None and args.max_segments is not None:
        raise MpiscopeError("--segments K fixes the regimes; --max-segments bounds them when they "
                            "are found from the data: give one")  # fmt: skip
    if args.segments is not None and args.tolerance is not None:
        raise MpiscopeError("--tolerance chooses how many regimes when they are found from the "
                            "data: not with --segments")  # fmt: skip
    for name, default in HOCKNEY_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)


def _fit(args: argparse.Namespace) -> int:
    from mpiscope import __version__
    from mpiscope.models.data import STATISTICS
    from mpiscope.models.document import FITTERS, fit_document, model_document
    from mpiscope.models.fit import FitOptions
    from mpiscope.reports.model import render_model
    from mpiscope.result import load_result, write_document

    if args.model not in FITTERS:
        raise MpiscopeError(f"unknown model {args.model!r} (known: {', '.join(FITTERS)})")
    _hockney_options(args)
    if args.statistic not in STATISTICS:
        raise MpiscopeError(f"unknown statistic {args.statistic!r} (known: "
                            f"{', '.join(STATISTICS)})")  # fmt: skip
    out = _checked_out(args.out, args.force, [args.source], "--out")
    source = load_result(args.source).data
    options = FitOptions(args.bootstrap, args.confidence, args.seed, args.segments,
                         args.max_segments, args.tolerance, args.per_pair,
                         args.statistic)  # fmt: skip
    fit = fit_document(source, args.model, options)
    doc = model_document(fit, source, str(args.source), options, __version__)
    write_document(doc, out)
    print(render_model(doc))
    print(f"\nmodel: {out}")
    return 0


# --- predict ------------------------------------------------------------------------------
def _add_predict(sub: Any) -> None:
    from mpiscope.alltoall.models import LEADER_SCHEMES
    from mpiscope.models.collectives import COLLECTIVES
    from mpiscope.parsing import MAX_RANKS, int_in

    p = sub.add_parser(
        "predict", help="predict collective times from a model",
        description="Predicted time of collective algorithms (op:algorithm, comma-separated, "
        f"or 'all') from a model document. Known: {', '.join(COLLECTIVES)}, and the Alltoall "
        f"lab's {', '.join(f'alltoall:{n}' for n in LEADER_SCHEMES)} (with --ranks-per-node). "
        "A direct model (model fit --model direct) predicts the ops it fitted, by name "
        "(bcast, or bcast:direct), on the number of ranks it measured.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("algorithms", metavar="ALGORITHMS")
    p.add_argument("--np", type=int_in(1, MAX_RANKS), required=True, metavar="N")
    p.add_argument("--sizes", default=DEFAULT_SIZES, metavar="SPEC",
                   help=f"sizes as for run (default {DEFAULT_SIZES})")
    p.add_argument("--ranks-per-node", type=int_in(1, MAX_RANKS), metavar="M",
                   help="leader schemes: M ranks per node (default: all on one node)")
    p.set_defaults(handler=_predict)


def _check_nodes(nprocs: int, per_node: int, names: list[str]) -> None:
    """--ranks-per-node: for the leader schemes, and whole nodes of --np ranks."""
    from mpiscope.alltoall.models import LEADER_SCHEMES

    if not any(name in {f"alltoall:{n}" for n in LEADER_SCHEMES} for name in names):
        raise MpiscopeError("--ranks-per-node places the ranks of the Alltoall lab's leader "
                            f"schemes ({', '.join(f'alltoall:{n}' for n in LEADER_SCHEMES)}): "
                            "none is asked for")  # fmt: skip
    if per_node > nprocs or nprocs % per_node:
        raise MpiscopeError(f"--np {nprocs} is not a whole number of nodes of --ranks-per-node "
                            f"{per_node}")  # fmt: skip


def _predictors(names: list[str], nprocs: int, per_node: int | None) -> dict[str, Any]:
    """name -> (formula, cost(size, model))."""
    from mpiscope.alltoall.models import EXCHANGE_TEXT, LEADER_SCHEMES, MODELS, Topology, predict
    from mpiscope.alltoall.plp import DEFAULT_SIZE_CRIT
    from mpiscope.models.collectives import collective

    lab = {f"alltoall:{n}" for n in LEADER_SCHEMES}
    out: dict[str, Any] = {}
    for name in names:
        if name in lab:
            m = per_node or nprocs
            topo = Topology(nprocs, math.ceil(nprocs / m), m, DEFAULT_SIZE_CRIT)
            key = name.split(":")[1]
            out[name] = (f"{MODELS[key][0]}; {EXCHANGE_TEXT}",
                         lambda s, model, key=key, topo=topo: predict(key, topo, s, model))
        else:
            algo = collective(name)
            out[name] = (algo.formula, lambda s, model, algo=algo: algo.time_ns(
                nprocs, s, model.time_ns, model.gamma_ns_per_byte))
    return out


def _direct_predictors(model: Any, names: list[str] | None, nprocs: int) -> dict[str, Any]:
    """name -> (formula, cost) of a direct model's fits: the ops named
    (``bcast`` or ``bcast:direct``), or every op it fitted on ``nprocs``."""
    if names is None:
        names = [c.op for c in model.collectives if c.nprocs == nprocs] or \
            [model.collectives[0].op]
    out: dict[str, Any] = {}
    for name in names:
        fitted = model.collective(name.removesuffix(":direct"), nprocs)
        out[f"{fitted.op}:direct"] = (
            f"its own measured times on {nprocs} ranks, T(m) = a + b m per regime",
            lambda s, _model, fitted=fitted: fitted.time_ns(s))
    return out


def _predict(args: argparse.Namespace) -> int:
    from mpiscope.measure.sizes import parse_size_spec
    from mpiscope.models.collectives import COLLECTIVES
    from mpiscope.models.direct import DirectModel
    from mpiscope.models.document import model_of
    from mpiscope.reports.model import render_predictions
    from mpiscope.result.model import load_model

    given = None if args.algorithms == "all" else [n.strip() for n in args.algorithms.split(",")]
    if given is not None and not all(given):
        raise MpiscopeError(f"bad algorithm list {args.algorithms!r}: empty name")
    if args.ranks_per_node is not None:
        _check_nodes(args.np, args.ranks_per_node, given or list(COLLECTIVES))
    sizes = parse_size_spec(args.sizes)
    model = model_of(load_model(args.model))
    if isinstance(model, DirectModel):
        predictors = _direct_predictors(model, given, args.np)
    else:
        predictors = _predictors(given or list(COLLECTIVES), args.np, args.ranks_per_node)
    table = {n: [float(cost(s, model)) for s in sizes] for n, (_, cost) in predictors.items()}
    print(render_predictions(args.np, sizes, table, {n: f for n, (f, _) in predictors.items()}))
    return 0


# --- check --------------------------------------------------------------------------------
def _add_check(sub: Any) -> None:
    p = sub.add_parser(
        "check", help="predicted vs measured collectives",
        description="Set every algorithm's prediction of each measured collective point "
        "(a result of mpiscope run bcast,allreduce,alltoall,...) against the measured median, "
        "with the relative error; say which algorithm the library seems to use where one "
        "prediction fits far better than the others, and which collectives no "
        "point-to-point algorithm can predict (faster than every prediction by more than the "
        "model's fit error) with the model to use there (--model direct). With a direct "
        "model, each point against the fit of its own op.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("measured", metavar="MEASURED.json")
    p.add_argument("--plot", metavar="FILE.png", help="also draw measured and predicted")
    p.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from mpiscope.models.check import check_points, mechanism, unpredictable
    from mpiscope.models.data import STATE_CHANGE, state_change
    from mpiscope.models.direct import DirectModel
    from mpiscope.models.document import model_of
    from mpiscope.reports.model import render_check, render_unpredictable
    from mpiscope.result import load_result
    from mpiscope.result.model import load_model

    plot = None
    if args.plot:
        from mpiscope.outputs import check_output
        from mpiscope.reports.plots.render import FORMATS

        if Path(args.plot).suffix.lower().lstrip(".") not in FORMATS:
            raise MpiscopeError(f"--plot {args.plot}: the figure is written as "
                                f"{', '.join('.' + f for f in FORMATS)} (chosen by the suffix)")
        plot = check_output(args.plot, inputs=[args.model, args.measured], what="--plot")
    doc = load_model(args.model)
    model = model_of(doc)
    measured = load_result(args.measured).data
    rows = check_points(model, measured)
    print(f"model {doc['model']} ({args.model}) against {args.measured}\n")
    print(render_check(rows))
    changed = [w for w in doc.get("warnings") or () if STATE_CHANGE in w]  # the model's source
    changed.append(state_change(measured, f"the runs of {args.measured}") or "")
    for line in filter(None, changed):
        print(f"\nwarning: {line}")
    if not isinstance(model, DirectModel):
        found = unpredictable(rows, float(doc["fit_error"].get("max_rel_error") or 0.0))
        lines = render_unpredictable(found, mechanism(measured.get("environment") or {}),
                                     args.measured)  # fmt: skip
        if lines:
            print("\n" + "\n".join(lines))
    if plot is not None:
        from mpiscope.reports.plots.model import save_check_plot

        save_check_plot(rows, plot, f"{doc['model']} model vs {args.measured}")
        print(f"\nplot: {args.plot}")
    return 0


# --- platform -----------------------------------------------------------------------------
def _add_platform(sub: Any) -> None:
    from mpiscope.parsing import int_in

    p = sub.add_parser(
        "platform", help="a SimGrid platform calibrated by a model",
        description="Write a SimGrid 3.32 platform whose simulated messages take the model's "
        "time: a cluster of single-core hosts, latency and bandwidth from the model, SMPI's "
        "piecewise smpi/lat-factor and smpi/bw-factor in its <config> (docs/models.md). Use it "
        "with --launcher smpi --platform FILE.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("-o", "--out", required=True, metavar="FILE.xml")
    p.add_argument("--force", action="store_true", help="overwrite --out")
    p.add_argument("--hosts", type=int_in(1, 1 << 20), default=64, metavar="N",
                   help="hosts of the platform, at most 1048576 (default 64)")
    p.set_defaults(handler=_platform)


def _platform(args: argparse.Namespace) -> int:
    from mpiscope.models.document import model_of
    from mpiscope.models.platform import platform_xml
    from mpiscope.outputs import write_text
    from mpiscope.result.model import load_model

    out = _checked_out(args.out, args.force, [args.model], "-o")
    doc = load_model(args.model)
    model = model_of(doc)
    text = platform_xml(model, args.hosts, f"{args.model} ({doc['model']})")
    write_text(out, text, what="-o")
    print(text, end="")
    print(_platform_check(model, doc))
    print(f"\nplatform: {out} (use: --launcher smpi --platform {out})")
    return 0


def _platform_check(model: Any, doc: dict[str, Any]) -> str:
    """The one-way time SMPI will take on the platform against the model's."""
    from mpiscope.models.platform import DEFAULT_SIZES, calibrate
    from mpiscope.reports.texttable import format_table
    from mpiscope.result.units import format_bytes, format_ns

    cal = calibrate(model)
    sizes = [p["size_bytes"] for p in doc["fit_error"]["points"]] or list(DEFAULT_SIZES)
    rows, worst = [], 0.0
    for size in sizes:
        want, got = model.time_ns(size), cal.simulated_ns(size)
        worst = max(worst, abs(got - want) / want)
        rows.append([format_bytes(size), format_ns(want), format_ns(got),
                     f"{(got - want) / want * 100:+.1f}%"])  # fmt: skip
    lines = ["", "one-way time: the model and SMPI on this platform (computed)"]
    lines += format_table(["size", "model", "simulated", "error"], ">>>>", rows, indent="  ")
    if worst > 0.05:
        lines.append(f"warning: up to {worst * 100:.0f}% off the model: SMPI sends 16 bytes more "
                     "than each message, which a regime of large beta and small alpha cannot "
                     "absorb (fit with fewer --segments)")  # fmt: skip
    return "\n".join(lines)
