"""``mpiscope alltoall ...``: the Alltoall lab (spec/alltoall.md, issue 10).

Subcommands: list (the algorithms, their options and models, and the
library's own that can be forced), check (every algorithm against
MPI_Alltoall with --validate), compare (every algorithm next to the
library's, one document), tune (the choice as an MPICH or Open MPI
tuning file, and --check: the proof that the library follows it),
contention (the seed's contention experiment), fft (the 3-D FFT transpose
mini-app per algorithm), plot (the figures of compare documents).

This module parses, launches through mpiscope.measure and prints; the
logic is in mpiscope.alltoall.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpiscope.alltoall.lab import (
    check_variants,
    pingpong_sizes,
    real_nodes,
    topology,
    validation_status,
)
from mpiscope.errors import MpiscopeError, RunFailedError, StoppedError
from mpiscope.measure.plan import available_cores
from mpiscope.measure.runner import private_dir
from mpiscope.measure.series import RunSeries, oversubscribed, simulated
from mpiscope.parsing import subcommands

if TYPE_CHECKING:
    from mpiscope.measure.request import MeasureRequest

__all__ = ["add_parser"]

DEFAULT_SIZES = "1:64K:x2"
CHECK_SIZES = "0,1,3,7,8,13,100,1000,1024,4097,8192,12345,65536"
#: Engine parameters a measuring subcommand takes as flags (add_measure_options only=).
_ENGINE = ("--stop", "--target-rse", "--min-valid", "--max-valid", "--max-launches",
           "--max-point-seconds", "--confidence")  # fmt: skip
_LAUNCH = ("--mpi", "--launcher", "--platform", "--oversubscribe", "--timeout", "--quiet",
           "--force")  # fmt: skip
#: The largest --grid of alltoall fft (its op takes up to 2**20: beyond this no machine
#: has the memory).
MAX_GRID = 4096
#: Bytes the fft3d op holds per grid point over all ranks: input and output planes and
#: the transpose's send and receive buffers, complex doubles each.
FFT_BYTES_PER_POINT = 64
#: mpiscope-contention's limits: latency sizes per run, and bytes per size.
CONTENTION_SIZES, CONTENTION_MAX_BYTES = 64, 2**31 - 1
#: The validation run's statistics: a few launches per point are enough to compare buffers.
_CHECK_STATS = {"stop": "count", "max_valid": 4, "max_launches": 40, "min_valid": 2,
                "max_point_seconds": 10.0}  # fmt: skip


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "alltoall",
        help="the Alltoall lab: algorithms for multicore clusters, compared and tuned",
        description="The Alltoall lab: Bruck, pairwise, linear, One-leader, M-leader, PLP "
        "and LSS as engine operations, proved correct against MPI_Alltoall, measured next "
        "to the library's own algorithms, predicted by Hockney models, and the choice "
        "written as the library's tuning file.",
    )
    subcommands(parser, "alltoall", (_add_list, _add_check, _add_compare, _add_tune,
                                     _add_contention, _add_fft, _add_plot))  # fmt: skip


def _measure(p: argparse.ArgumentParser, *flags: str) -> None:
    from mpiscope.measure.options import add_measure_options

    add_measure_options(p, runs=False, only=set(flags))


def _nodes_flag(p: argparse.ArgumentParser, what: str) -> None:
    from mpiscope.parsing import MAX_RANKS, int_in

    p.add_argument(
        "--nodes",
        type=int_in(0, MAX_RANKS),
        default=0,
        metavar="K",
        help=f"{what}: K virtual nodes of consecutive ranks (MPICH's own algorithms then see "
        "the same nodes through MPIR_CVAR_NUM_CLIQUES); 0: the real nodes (default)",
    )


# --- list ---------------------------------------------------------------------------------
def _add_list(sub: Any) -> None:
    p = sub.add_parser(
        "list",
        help="the algorithms, their options and Hockney models, and the library's own",
        description="The lab's algorithms (from the engine's description), their options and "
        "Hockney models, and the algorithms each MPI library can be forced to run.",
    )
    p.add_argument("--mpi", metavar="NAME",
                   help="show only this installation's native algorithms")  # fmt: skip
    p.set_defaults(handler=_list)


def _list(args: argparse.Namespace) -> int:
    from mpiscope.alltoall.catalogue import lab_algorithms, native_algorithms, native_setting
    from mpiscope.alltoall.text import lab_table, model_notes, native_table
    from mpiscope.reports.texttable import format_table

    lines = ["Lab algorithms (mpiscope run OP --option NAME=VALUE):"]
    try:
        try:  # the bench's own catalogue when there is a bench, else the description's
            ops: list[dict[str, Any]] | None = _catalogue_ops(_bench_for(_namespace(args, np=2)))
        except MpiscopeError:
            ops = None
        lines += format_table(*lab_table(lab_algorithms(ops)), indent="  ")
    except MpiscopeError as exc:
        lines.append(f"  none: {exc}")
    lines += ["", *("  " + n for n in model_notes())]
    impls: tuple[str, ...] = ("mpich", "openmpi", "smpi")
    if args.mpi is not None:
        from mpiscope.mpi_profile import select_profile

        impls = (select_profile(args.mpi).implementation,)
    for impl in impls:
        natives = native_algorithms(impl)
        if not natives:
            lines += ["", f"{impl}: no native algorithm known to mpiscope"]
            continue
        forced = {}
        for a in natives:
            env, launcher_args = native_setting(a)
            forced[a.name] = " ".join([*(f"{k}={v}" for k, v in env.items()), *launcher_args])
        lines += ["", f"Native algorithms of {impl} (forced per run by alltoall compare):"]
        lines += format_table(*native_table(natives, forced), indent="  ")
    print("\n".join(lines))
    return 0


# --- launching ------------------------------------------------------------------------------
def _namespace(args: argparse.Namespace, **overrides: Any) -> MeasureRequest:
    """The measurement request: every option of ``run`` at its default, then
    the user's, then ``overrides``."""
    from mpiscope.measure.options import measure_defaults
    from mpiscope.measure.request import MeasureRequest

    merged = {**measure_defaults(), **{k: v for k, v in vars(args).items() if v is not None}}
    return MeasureRequest.of(merged, **overrides)


def _bench_for(ns: MeasureRequest) -> Any:
    from mpiscope.measure.runner import find_bench

    return find_bench(ns)


def _catalogue_ops(bench: Any) -> list[dict[str, Any]]:
    from mpiscope.measure.catalogue import query_ops

    _, ops = query_ops(bench.profile)
    return [
        {"name": op.name, "description": op.description,
         "options": [{"name": o.name, "default": o.default} for o in op.options]}
        for op in ops
    ]  # fmt: skip


def _lab(bench: Any) -> tuple[list[Any], dict[str, set[str]]]:
    """The lab's algorithms this bench has, and its ops with their options; an
    algorithm whose op the bench lacks (an older build) is left out and
    said; none at all is an error."""
    from mpiscope.alltoall.catalogue import lab_algorithms

    ops = _catalogue_ops(bench)
    names = {op["name"]: {o["name"] for o in op["options"]} for op in ops}
    lab = lab_algorithms(ops)
    missing = [a.op for a in lab if a.op not in names]
    if len(missing) == len(lab):
        raise MpiscopeError(f"{bench.path} has no Alltoall lab operation: rebuild mpiscope-bench")
    if missing:
        print(f"note: {bench.path} has no {', '.join(missing)} (an older build): left out")
    return [a for a in lab if a.op in names], names


def _out(args: argparse.Namespace, prefix: str) -> Path:
    from mpiscope.measure.plan import check_out

    return check_out(args.out, args.force, prefix)


def _keep_partial(out: Path | None, doc: Mapping[str, Any]) -> str:
    """Write what an interrupted subcommand measured to ``out``; the note
    the interruption's line ends with."""
    if out is None:
        return "partial result shown above"
    from mpiscope.result.document import write_document

    write_document(doc, out)
    return f"partial result kept in {out}"


# --- check ----------------------------------------------------------------------------------
def _add_check(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="every algorithm against MPI_Alltoall (random data, many sizes)",
        description="Run every lab algorithm, and the leader-based ones with every inter-node "
        "exchange, aggregation and PLP leader count, with the engine's --validate (every "
        "received block compared with what MPI_Alltoall delivers), at each process count. "
        "Prints algorithm x process count; exit code 1 on any mismatch. Oversubscribed "
        "runs are fine for correctness: --oversubscribe is added when needed.",
    )
    p.add_argument("--np", default="2", metavar="SPEC",
                   help="process counts: 8, a range 2:8, or a list 2,3,5 (default 2)")  # fmt: skip
    p.add_argument("--sizes", default=CHECK_SIZES, metavar="SPEC",
                   help=f"bytes per destination (default {CHECK_SIZES})")  # fmt: skip
    _nodes_flag(p, "the leader schemes' nodes")
    _measure(p, *_LAUNCH)
    p.add_argument("--out", metavar="FILE", help="keep the validation results (JSON)")
    p.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from mpiscope.alltoall.text import check_table
    from mpiscope.measure.plan import check_ranks
    from mpiscope.measure.sizes import check_memory, parse_nprocs_spec, parse_size_spec
    from mpiscope.reports.texttable import format_table

    counts = parse_nprocs_spec(args.np)
    sizes = parse_size_spec(args.sizes)
    if args.nodes > min(counts):
        raise MpiscopeError(f"--nodes {args.nodes} is more than the {min(counts)} processes of "
                            "--np: a node would have no rank")  # fmt: skip
    cores = available_cores()
    simulation = simulated(_namespace(args, np=max(counts)))
    for n in counts if not simulation else ():  # correctness only: oversubscribed when needed
        check_ranks(n, oversubscribe=True, flag="--np")
        check_memory([s * n for s in sizes], n)
    out = _out(args, "") if args.out else None
    over = [n for n in counts if n > cores and not simulation]
    if over and not args.oversubscribe:
        print(f"note: np {','.join(map(str, over))} > {cores} cores: run oversubscribed "
              "(correctness only)")  # fmt: skip
    results: dict[str, dict[int, str]] = {}
    record: list[dict[str, Any]] = []
    try:
        failed = _check_counts(args, counts, sizes, over, results, record)
    except KeyboardInterrupt:
        partial = {"kind": "alltoall-check", "sizes": sizes, "results": record,
                   "status": "partial"}  # fmt: skip
        raise KeyboardInterrupt(_keep_partial(out, partial)) from None
    print()
    print("\n".join(format_table(*check_table(results, counts))))
    if out is not None:
        from mpiscope.result.document import write_document

        write_document({"kind": "alltoall-check", "sizes": sizes, "results": record}, out)
        print(f"\nresult: {out}")
    if failed:
        raise RunFailedError("an algorithm failed its check (see the table)")
    return 0


def _check_counts(args: argparse.Namespace, counts: Sequence[int], sizes: Sequence[int],
                  over: Sequence[int], results: dict[str, dict[int, str]],
                  record: list[dict[str, Any]]) -> bool:  # fmt: skip
    """The validation launches of every process count (``results`` and
    ``record`` filled as they end); whether any failed."""
    from mpiscope.alltoall.catalogue import topology_env
    from mpiscope.measure.series import RunSeries

    failed = False
    for nprocs in counts:
        nodes = args.nodes
        per_node = topology(nprocs, nodes)
        ns = _namespace(args, np=nprocs, oversubscribe=args.oversubscribe or nprocs in over,
                        validate=True, **_CHECK_STATS)  # fmt: skip
        bench = _bench_for(ns)
        lab, declared = _lab(bench)
        with tempfile.TemporaryDirectory(prefix="mpiscope-a2a-check-") as tmp:
            checked = _Checked(RunSeries(ns, bench, Path(tmp), declared), nprocs, nodes, sizes,
                               topology_env(bench.profile.implementation, nodes), results,
                               record)  # fmt: skip
            print(f"np {nprocs}" + (f", {nodes} virtual nodes {per_node}" if nodes else "") + ":")
            first, *_ = check_variants(lab, per_node)
            doc = checked.run(*first)
            if not nodes:  # the launch's real nodes (a simulated cluster: 8 ranks a host),
                per_node = real_nodes(doc, nprocs) or per_node  # which PLP's leaders divide
            for variant in check_variants(lab, per_node)[1:]:
                checked.run(*variant)
            failed |= checked.failed
    return failed


class _Checked:
    """The validation launches of one process count, each one's status
    into ``results`` and ``record``; ``failed`` once any failed."""

    def __init__(self, launcher: Any, nprocs: int, nodes: int, sizes: Sequence[int],
                 env: Mapping[str, str], results: dict[str, dict[int, str]],
                 record: list[dict[str, Any]]) -> None:  # fmt: skip
        self.launcher, self.nprocs, self.nodes, self.sizes, self.env = (launcher, nprocs, nodes,
                                                                         sizes, env)
        self.results, self.record, self.failed = results, record, False

    def run(self, label: str, ops: list[str], options: dict[str, str]) -> Any:
        """One launch of ``ops``; its document (None when it wrote none)."""
        opts = {"nodes": str(self.nodes), **options}
        doc, error = self.launcher.run(label or "all", ops, self.sizes, opts, self.env)
        for op in ops:
            name = op.removeprefix("alltoall_") + (f" {label}" if label else "")
            if op == "alltoall":
                name = "native MPI_Alltoall"
            status, bad = validation_status(doc, op, error, len(self.sizes))
            self.failed |= bad
            self.results.setdefault(name, {})[self.nprocs] = status
            self.record.append({"nprocs": self.nprocs, "nodes": self.nodes, "variant": name,
                                "status": status, "error": error})  # fmt: skip
        return doc


# --- compare --------------------------------------------------------------------------------
def _add_compare(sub: Any) -> None:
    from mpiscope.parsing import int_in

    p = sub.add_parser(
        "compare",
        help="every algorithm next to the library's own MPI_Alltoall, per size",
        description="One launch measures every lab algorithm and the library's MPI_Alltoall "
        "(window method, max over ranks); one launch per algorithm the library can be forced "
        "to run (MPICH: MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM with COLLECTIVE_FALLBACK=error, "
        "and composition alpha; Open MPI: coll_tuned ids; SMPI: --cfg=smpi/alltoall); one per "
        "PLP leader count; a ping-pong for the Hockney fit. One alltoall-compare document.",
    )
    _measure(p, "--np", *_LAUNCH, *_ENGINE)
    p.add_argument("--sizes", default=DEFAULT_SIZES, metavar="SPEC",
                   help=f"bytes per destination (default {DEFAULT_SIZES})")  # fmt: skip
    p.add_argument("--nprocs", metavar="SPEC",
                   help="one comparison per process count (e.g. 4,8,16), each written to "
                   "OUT-npN.json: the rows of the winner map")  # fmt: skip
    _nodes_flag(p, "the lab's nodes")
    p.add_argument("--size-crit", type=int_in(0, 1 << 30), default=None, metavar="BYTES",
                   help="the leader schemes' Bruck/ring switch, 0 to 1 GiB (default: the "
                   "engine's, 8192)")
    p.add_argument("--out", metavar="FILE", help="the document (default mpiscope-a2a-DATE.json)")
    p.add_argument("--no-native-forced", action="store_true",
                   help="do not force the library's algorithms (only its default)")
    p.set_defaults(handler=_compare)


def _compare(args: argparse.Namespace) -> int:
    """One comparison, or with --nprocs one per process count (OUT-npN.json
    each; together the winner map of alltoall plot)."""
    if args.nprocs is None:
        return _compare_one(args)
    from mpiscope.measure.plan import fresh_name
    from mpiscope.measure.sizes import parse_nprocs_spec

    counts = parse_nprocs_spec(args.nprocs)
    base = Path(args.out or fresh_name("mpiscope-a2a", [f"-np{n}" for n in counts]))
    outs = [base.with_name(f"{base.stem}-np{n}{base.suffix or '.json'}") for n in counts]
    for out in outs:
        _out(argparse.Namespace(out=str(out), force=args.force), "mpiscope-a2a")
    failed = []
    for n, out in zip(counts, outs, strict=True):
        print(f"=== {n} processes ===")
        try:
            _compare_one(argparse.Namespace(**{**vars(args), "np": n, "out": str(out)}))
        except StoppedError:
            raise
        except RunFailedError as exc:
            failed.append(f"np {n}: {exc}")
    print("\nthe winner map: mpiscope alltoall plot " + " ".join(map(str, outs)))
    if failed:
        raise RunFailedError("; ".join(failed))
    return 0


def _compare_one(args: argparse.Namespace) -> int:
    from mpiscope.alltoall.catalogue import native_algorithms, native_setting, topology_env
    from mpiscope.alltoall.compare import MPICH_AUTO, RunRecord, Variant, build_document
    from mpiscope.alltoall.models import MODELS, Topology
    from mpiscope.alltoall.plp import DEFAULT_SIZE_CRIT, leader_choices
    from mpiscope.launcher import format_command
    from mpiscope.measure.plan import check_cores
    from mpiscope.measure.series import RunSeries
    from mpiscope.measure.sizes import check_memory, parse_size_spec
    from mpiscope.result.document import write_document

    sizes = parse_size_spec(args.sizes)
    ns = _namespace(args)
    topology(ns.np, args.nodes)
    if check_cores(ns) or not simulated(ns):
        check_memory([s * ns.np for s in sizes], ns.np)
    out = _out(args, "mpiscope-a2a")
    bench = _bench_for(ns)
    lab, known_ops = _lab(bench)
    impl = bench.profile.implementation
    per_node = topology(ns.np, args.nodes)
    crit = args.size_crit if args.size_crit is not None else DEFAULT_SIZE_CRIT
    base_opts = {"nodes": str(args.nodes)}
    if args.size_crit is not None:
        base_opts["size_crit"] = str(args.size_crit)
    topo_env = topology_env(impl, args.nodes)
    runs: list[RunRecord] = []
    variants: list[Variant] = []
    interrupted: BaseException | None = None
    with private_dir(out) as tmp:
        runner = RunSeries(ns, bench, Path(tmp), known_ops)

        def bench_run(purpose: str, ops: Sequence[str], sz: Sequence[int],
                   options: Mapping[str, str], env: Mapping[str, str] | None = None,
                   largs: Sequence[str] = ()) -> int:  # fmt: skip
            record = RunRecord(purpose, dict(options), dict(env or {}), list(largs))
            runs.append(record)
            record.doc, record.error = runner.run(purpose, ops, sz, options, env, largs)
            return len(runs) - 1

        try:
            index = bench_run("lab", ["alltoall", *(a.op for a in lab)], sizes, base_opts, topo_env)
            variants.append(Variant("native", "native", "alltoall", "default",
                                    MPICH_AUTO if impl == "mpich" else None, index))
            for a in lab:
                variants.append(Variant(a.name, "lab", a.op, a.name,
                                        a.name if a.name in MODELS else None, index))
            if not args.nodes:
                per_node = real_nodes(runs[index].doc, ns.np) or per_node
            if any(a.name == "plp" for a in lab):
                for d in leader_choices(per_node):
                    index = bench_run(f"plp:d={d}", ["alltoall_plp"], sizes,
                                   {**base_opts, "leaders": str(d)}, topo_env)
                    variants.append(Variant(f"plp:d={d}", "lab", "alltoall_plp", "plp", "plp",
                                            index, leaders=d))
            for alg in () if args.no_native_forced else native_algorithms(impl):
                if alg.needs_nodes and len(per_node) < 2:
                    print(f"  native:{alg.name}: skipped (needs several nodes: --nodes K)")
                    continue
                sz = [s for s in sizes if alg.max_bytes is None or s <= alg.max_bytes]
                env, largs = native_setting(alg)
                index = bench_run(f"native:{alg.name}", ["alltoall"], sz, {}, {**topo_env, **env},
                               largs)
                variants.append(Variant(f"native:{alg.name}", "native-forced", "alltoall",
                                        alg.name, alg.model, index))
            largest = max(sizes) if sizes else 1
            pp_sizes = pingpong_sizes(ns.np, max(per_node), largest)
            inter_run = intra_run = None
            if "pingpong" in known_ops and ns.np >= 2:
                if len(per_node) > 1:
                    pairs = f"0-{per_node[0]}"
                    inter_run = bench_run("pingpong-inter", ["pingpong"], pp_sizes,
                                          {"pairs": pairs}, topo_env)
                if per_node[0] > 1:
                    intra_run = bench_run("pingpong-intra", ["pingpong"], pp_sizes,
                                          {"pairs": "0-1"}, topo_env)
                if inter_run is None:  # one node: one ping-pong for both
                    inter_run, intra_run = intra_run, None
        except KeyboardInterrupt as exc:
            interrupted = exc
            inter_run = intra_run = None
    shape = Topology(ns.np, len(per_node), max(per_node), crit)
    doc = build_document(
        variants=variants, runs=runs, sizes=sizes, topology=shape,
        node_sizes=per_node, nodes_option=args.nodes, implementation=impl,
        command_line=format_command(["mpiscope", *getattr(args, "argv", [])]),
        inter_run=inter_run, intra_run=intra_run,
    )  # fmt: skip
    if interrupted is not None:
        doc["status"] = "partial"
        doc["errors"].append("interrupted")
    write_document(doc, out)
    print()
    print(_compare_text(doc))
    print(f"\nresult: {out}")
    if interrupted is not None:
        raise KeyboardInterrupt(f"partial document kept in {out}")
    if doc["errors"]:
        raise RunFailedError(
            f"{len(doc['errors'])} launch(es) failed ({doc['errors'][0]}); what was measured "
            f"is in {out}"
        )
    return 0


def _compare_text(doc: Mapping[str, Any]) -> str:
    from mpiscope.alltoall.text import compare_table, hockney_lines, model_table, plp_table
    from mpiscope.reports.texttable import format_table

    sim = " (SIMULATED)" if doc["simulated"] else ""
    head = (f"Alltoall, {doc['nprocs']} processes, {doc['nodes']} node(s) of "
            f"{'/'.join(map(str, sorted(set(doc['ranks_per_node']))))} ranks, "
            f"{doc['mpi_implementation']}{sim}: median time per call "
            "(* fastest; speed-up: native default / best lab)")  # fmt: skip
    lines = [head, *format_table(*compare_table(doc))]
    if doc["plp"]:
        lines += ["", f"PLP: the rule's d (size_crit {doc['size_crit_bytes']} B) vs the "
                  "measured best d:", *format_table(*plp_table(doc))]  # fmt: skip
    fits = hockney_lines(doc)
    if fits:
        lines += ["", *fits, "Hockney prediction per call:", *format_table(*model_table(doc))]
    if doc["errors"]:
        lines += ["", *(f"failed: {e}" for e in doc["errors"])]
    return "\n".join(lines)


# --- tune -----------------------------------------------------------------------------------
def _add_tune(sub: Any) -> None:
    p = sub.add_parser(
        "tune",
        help="the measured choice as the library's tuning file (and the proof it is followed)",
        description="From alltoall-compare documents (one per process count), the fastest of "
        "the library's OWN algorithms per size, written as an MPICH JSON selection file (a "
        "full copy of the library's MPIR tree with only alltoall changed; use it with "
        "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) or an Open MPI coll/tuned rules file "
        "(coll_tuned_use_dynamic_rules=1, coll_tuned_dynamic_rules_filename). --check FILE "
        "proves, without timing, that the library follows a file.",
    )
    p.add_argument("docs", nargs="*", metavar="A2A.json", help="alltoall-compare documents")
    p.add_argument("--format", choices=("mpich", "openmpi"), help="the file's library")
    p.add_argument("-o", "--output", metavar="FILE", help="the tuning file to write")
    p.add_argument("--base", metavar="FILE",
                   help="MPICH: the tree to start from (a JSON file or a libmpi); default: the "
                   "profile's libmpi")  # fmt: skip
    p.add_argument("--check", metavar="FILE",
                   help="prove that the library follows this tuning file (runs MPI)")
    _measure(p, "--mpi", "--oversubscribe", "--timeout", "--force")
    p.set_defaults(handler=_tune)


def _tune(args: argparse.Namespace) -> int:
    from mpiscope.alltoall import tune

    if args.check:
        given = [flag for flag, value in (("A2A.json", args.docs), ("--format", args.format),
                                          ("-o", args.output), ("--base", args.base)) if value]
        if given:
            raise MpiscopeError(f"--check proves a tuning file that exists: {given[0]} belongs "
                                "to writing one")  # fmt: skip
        return _tune_check(args)
    if not args.docs or not args.format or not args.output:
        raise MpiscopeError("tune needs A2A.json..., --format mpich|openmpi and -o FILE "
                            "(or --check FILE)")  # fmt: skip
    if args.base and args.format != "mpich":
        raise MpiscopeError("--base is the MPICH tree to start from: --format mpich only")
    from mpiscope.outputs import check_output, write_text
    from mpiscope.result.alltoall import load_alltoall

    out = check_output(args.output, force=args.force, what="-o",
                       inputs=[*args.docs, *([args.base] if args.base else [])])  # fmt: skip
    docs = [load_alltoall(path) for path in args.docs]
    ranges = tune.choices(docs, args.format)
    if args.format == "mpich":
        if args.base:
            base_path = Path(args.base)
        else:
            from mpiscope.mpi_profile import select_profile

            base_path = tune.find_libmpi(select_profile(args.mpi).prefix)
        tree = tune.mpich_tuned_tree(tune.mpich_tree(base_path), ranges)
        text = json.dumps(tree, indent=1) + "\n"
        use = f"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={out}"
        print(f"base tree: {base_path}")
    else:
        text = tune.openmpi_rules(ranges)
        use = (f"OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
               f"OMPI_MCA_coll_tuned_dynamic_rules_filename={out}")  # fmt: skip
    write_text(out, text, what="-o")
    from mpiscope.alltoall.catalogue import native_algorithms

    names = {a.tune_name: a.name for a in native_algorithms(args.format)}
    for nprocs, chosen in ranges.items():
        start = 0
        parts = []
        for upto, tuned in chosen:
            alg = tuned if names.get(tuned, tuned) == tuned else f"{names[tuned]} ({tuned})"
            span = f"{start}..{upto} B" if upto is not None else f">= {start} B"
            parts.append(f"{span}: {alg}")
            start = (upto or 0) + 1
        print(f"{nprocs} processes: " + "; ".join(parts))
    print(f"wrote {out}; use it with {use}")
    print(f"prove the library follows it: mpiscope alltoall tune --check {out} --mpi "
          f"{args.mpi or args.format}")  # fmt: skip
    return 0


def _tune_check(args: argparse.Namespace) -> int:
    from mpiscope.alltoall import tune
    from mpiscope.inputs import check_input
    from mpiscope.launcher import run_captured
    from mpiscope.measure.plan import RunPlan, bench_plan
    from mpiscope.measure.runner import find_bench

    file = check_input(args.check, "--check").absolute()
    probe = _namespace(args, np=2, **_CHECK_STATS)
    impl = find_bench(probe).profile.implementation
    if impl not in ("mpich", "openmpi"):
        raise MpiscopeError(f"no tuning proof for {impl!r}: use --mpi mpich or openmpi")

    def run(path: Path, nprocs: int, size: int) -> tuple[int, str]:
        ns = _namespace(args, np=nprocs, oversubscribe=True, force=True, **_CHECK_STATS)
        bench = find_bench(ns)
        out = Path(work) / "result.json"
        over = nprocs > available_cores()
        plan = bench_plan(ns, RunPlan(["alltoall"], [size], None, out, over, 4), bench.profile,
                          bench.launcher)  # fmt: skip
        plan_file = Path(work) / "plan.json"
        try:
            plan_file.write_text(json.dumps(plan), encoding="utf-8")
        except OSError as exc:
            raise MpiscopeError(f"cannot write {plan_file}: {exc.strerror or exc}") from None
        if impl == "mpich":
            extra = {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(path),
                     "MPIR_CVAR_COLLECTIVE_FALLBACK": "error"}  # fmt: skip
        else:
            extra = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                     "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(path)}  # fmt: skip
        env = bench.with_settings(env=extra).environment()
        code, stdout, stderr = run_captured(bench.command(["--plan", str(plan_file)]), env,
                                            args.timeout or 120)  # fmt: skip
        return code, stdout + stderr

    with tempfile.TemporaryDirectory(prefix="mpiscope-a2a-tune-") as work:
        steps = tune.prove(impl, file, Path(work), run)
    from mpiscope.reports.texttable import format_table

    rows = [[str(s.nprocs), str(s.size_bytes), s.file,
             "fails" if s.expect_failure else "runs",
             ("fails" if s.failed else "runs"), "ok" if s.ok else "WRONG", s.evidence[-60:]]
            for s in steps]  # fmt: skip
    print(f"Does {impl} follow {file.name}? One range at a time is replaced by an algorithm "
          "that cannot run a plain Alltoall; it must fail inside that range only.")
    print("\n".join(format_table(["np", "bytes", "file", "expected", "seen", "", "evidence"],
                                 "<><<<<<", rows)))  # fmt: skip
    wrong = [s for s in steps if not s.ok]
    if wrong:
        raise RunFailedError(f"{len(wrong)} of {len(steps)} steps disagree: the library does "
                             f"not follow {file.name} as written")  # fmt: skip
    print(f"proved: {impl} reads {file.name} and runs, for each size, the algorithm of the "
          "range that holds it")
    return 0


# --- contention -----------------------------------------------------------------------------
def _add_contention(sub: Any) -> None:
    p = sub.add_parser(
        "contention",
        help="the seed's contention experiment: latency with M ranks per node streaming",
        description="Runs mpiscope-contention on nodes x ppn processes: M ranks per node "
        "stream to the neighbor node while nodes 0-1 run a small-message latency test; "
        "latency with and without contention.",
    )
    from mpiscope.measure.sizes import ByteSize
    from mpiscope.parsing import int_in

    p.add_argument("--nodes", type=int_in(2, 1 << 16), default=3, metavar="K",
                   help="nodes (virtual nodes of consecutive ranks on one machine; default 3)")
    p.add_argument("--ppn", type=int_in(1, 1 << 16), default=2, metavar="M",
                   help="ranks per node (default 2)")  # fmt: skip
    p.add_argument("--sizes", metavar="SPEC", help="latency message sizes (program default)")
    p.add_argument("--iterations", type=int_in(1, 10**8), metavar="N",
                   help="latency iterations per size, at most 1e8 (program default)")
    p.add_argument("--stream-bytes", type=ByteSize(1, 1 << 30), metavar="BYTES",
                   help="streaming message size, 1 B to 1 GiB")
    p.add_argument("--window", type=int_in(1, 4096), metavar="W",
                   help="streaming messages in flight, at most 4096")  # fmt: skip
    p.add_argument("--out", metavar="FILE",
                   help="the document (default mpiscope-contention-DATE.json)")
    _measure(p, "--mpi", "--launcher", "--platform", "--oversubscribe", "--timeout", "--force")
    p.set_defaults(handler=_contention)


def _contention(args: argparse.Namespace) -> int:
    from mpiscope.measure.plan import check_ranks
    from mpiscope.measure.runner import private_dir
    from mpiscope.measure.sizes import check_memory, parse_size_spec

    nprocs = args.nodes * args.ppn
    ns = _namespace(args, np=nprocs)
    sizes = parse_size_spec(args.sizes) if args.sizes is not None else []
    if len(sizes) > CONTENTION_SIZES or any(s > CONTENTION_MAX_BYTES for s in sizes):
        raise MpiscopeError(f"--sizes {args.sizes}: at most {CONTENTION_SIZES} sizes of at most "
                            f"{CONTENTION_MAX_BYTES} bytes (mpiscope-contention's limits)")
    if not simulated(ns):  # the lab's nodes are virtual: every rank is here
        check_ranks(nprocs, oversubscribe=True, flag="--nodes x --ppn")
        check_memory([*sizes, args.stream_bytes or 0], nprocs)
    out = _out(args, "mpiscope-contention")
    ns = ns.with_options(oversubscribe=args.oversubscribe or oversubscribed(ns))
    if oversubscribed(ns):
        print(f"note: {nprocs} processes on {available_cores()} cores: oversubscribed, "
              "latencies include the scheduler")  # fmt: skip
    bench = _bench_for(ns)
    here = Path(bench.path).parent
    # installed next to the bench; in a build tree, under src/alltoall/programs
    found = [p for p in (here / "mpiscope-contention",
                         here / "src" / "alltoall" / "programs" / "mpiscope-contention")
             if p.is_file()]  # fmt: skip
    if not found:
        raise MpiscopeError(f"no mpiscope-contention next to {bench.path}: rebuild mpiscope")
    program = found[0]
    with private_dir(out) as tmp:  # the program writes here; the document is moved to --out whole
        written = Path(tmp) / "contention.json"
        _contend(args, bench, program, sizes, written)
        if not written.is_file():
            raise RunFailedError("mpiscope-contention wrote no document")
        from mpiscope.outputs import write_bytes

        write_bytes(out, written.read_bytes())
    print(f"\nresult: {out}")
    return 0


def _contend(args: argparse.Namespace, bench: Any, program: Path, sizes: Sequence[int],
             written: Path) -> None:  # fmt: skip
    from mpiscope.alltoall.catalogue import topology_env
    from mpiscope.launcher import run_passthrough

    argv = ["--nodes", str(args.nodes), "--out", str(written)]
    for flag, value in (("--sizes", ",".join(map(str, sizes)) or None),
                        ("--iterations", args.iterations),
                        ("--stream-bytes", args.stream_bytes), ("--window", args.window)):
        if value is not None:
            argv += [flag, str(value)]  # fmt: skip
    env = {**bench.environment(), **topology_env(bench.profile.implementation, args.nodes)}
    code = run_passthrough([*bench.launcher, str(program), *argv], env, args.timeout)
    if code != 0:
        raise RunFailedError(f"mpiscope-contention failed (exit code {code})")


# --- fft ------------------------------------------------------------------------------------
def _add_fft(sub: Any) -> None:
    p = sub.add_parser(
        "fft",
        help="the 3-D FFT transpose mini-app, timed with each algorithm",
        description="Runs the engine op fft3d once per Alltoall algorithm (option "
        "algorithm=NAME) for the whole step and for its transposes alone (phase=transpose): "
        "a table of times per algorithm and the transposes' share.",
    )
    from mpiscope.parsing import int_in

    p.add_argument("--grid", type=int_in(2, MAX_GRID), default=120, metavar="G",
                   help=f"G^3 points, at most {MAX_GRID} (default 120; the seed also used 480)")
    _nodes_flag(p, "the leader schemes' nodes")
    _measure(p, "--np", *_LAUNCH, *_ENGINE)
    p.add_argument("--out", metavar="FILE", help="keep the launches' results (JSON)")
    p.set_defaults(handler=_fft)


def _fft(args: argparse.Namespace) -> int:
    from mpiscope.alltoall.catalogue import topology_env
    from mpiscope.measure.plan import check_cores
    from mpiscope.measure.sizes import check_fits
    from mpiscope.reports.texttable import format_table
    from mpiscope.result.describe import description

    ns = _namespace(args)
    topology(ns.np, args.nodes)
    if check_cores(ns) or not simulated(ns):
        check_fits(FFT_BYTES_PER_POINT * args.grid**3, f"--grid {args.grid}",
                   f"{FFT_BYTES_PER_POINT} bytes per point of the grid, over all ranks")
    out = _out(args, "") if args.out else None
    bench = _bench_for(ns)
    lab, known = _lab(bench)
    if "fft3d" not in known:
        raise MpiscopeError(f"{bench.path} has no operation fft3d: rebuild mpiscope-bench")
    algorithms = _fft_algorithms(description(), [a.name for a in lab])
    env = topology_env(bench.profile.implementation, args.nodes)
    rows: list[list[str]] = []
    kept: list[dict[str, Any]] = []
    try:
        _fft_runs(args, ns, bench, known, algorithms, env, rows, kept)
    except KeyboardInterrupt:
        partial = {"kind": "alltoall-fft", "grid": args.grid, "launches": kept,
                   "status": "partial"}  # fmt: skip
        raise KeyboardInterrupt(_keep_partial(out, partial)) from None
    print(f"\n3-D FFT of {args.grid}^3 points on {ns.np} processes: median time per step")
    print("\n".join(format_table(["algorithm", "step", "transposes", "share"], "<>>>", rows)))
    if out is not None:
        from mpiscope.result.document import write_document

        write_document({"kind": "alltoall-fft", "grid": args.grid, "launches": kept}, out)
        print(f"\nresult: {out}")
    if any(r[1] == "failed" or r[2] == "failed" for r in rows):
        raise RunFailedError("some algorithms failed (see the table)")
    return 0


def _fft_runs(args: argparse.Namespace, ns: MeasureRequest, bench: Any,
              known: Mapping[str, set[str]], algorithms: Sequence[str], env: Mapping[str, str],
              rows: list[list[str]], kept: list[dict[str, Any]]) -> None:  # fmt: skip
    """The fft launches, two per algorithm (``rows`` and ``kept`` filled as they end)."""
    from mpiscope.result.units import format_ns

    with tempfile.TemporaryDirectory(prefix="mpiscope-a2a-fft-") as tmp:
        runner = RunSeries(ns, bench, Path(tmp), known)
        for alg in algorithms:
            times = {}
            for phase in ("all", "transpose"):
                opts = {"grid": str(args.grid), "algorithm": alg, "phase": phase,
                        "nodes": str(args.nodes)}  # fmt: skip
                doc, error = runner.run(f"{alg} {phase}", ["fft3d"], [0], opts, env)
                kept.append({"algorithm": alg, "phase": phase, "error": error, "result": doc})
                pts = [p for p in (doc or {}).get("points", []) if p.get("op") == "fft3d"]
                times[phase] = pts[0].get("median_ns") if pts else None
            share = (times["transpose"] / times["all"]
                     if times["all"] and times["transpose"] else None)  # fmt: skip
            rows.append([alg, format_ns(times["all"]) if times["all"] else "failed",
                         format_ns(times["transpose"]) if times["transpose"] else "failed",
                         f"{100 * share:.0f}%" if share else "-"])  # fmt: skip


def _fft_algorithms(desc: Mapping[str, Any], lab: Sequence[str]) -> list[str]:
    """The values of fft3d's option ``algorithm`` (from the description when
    it lists them), else the library's MPI_Alltoall then the lab's."""
    for op in desc.get("ops", []):
        if op.get("name") == "fft3d":
            for opt in op.get("options", []):
                if opt.get("name") == "algorithm" and opt.get("choices"):
                    return list(opt["choices"])
    return ["native", *lab]


# --- plot -----------------------------------------------------------------------------------
def _add_plot(sub: Any) -> None:
    p = sub.add_parser(
        "plot",
        help="figures of alltoall-compare documents",
        description="Time vs size per algorithm (the library's default highlighted), "
        "speed-up over the library's default, and the winner map (size x process count, "
        "one row per document).",
    )
    p.add_argument("docs", nargs="+", metavar="A2A.json", help="alltoall-compare documents")
    p.add_argument("--out-dir", default=".", metavar="DIR", help="where the PNGs go (default .)")
    p.set_defaults(handler=_plot)


def _plot(args: argparse.Namespace) -> int:
    from mpiscope.alltoall.plots import write_figures
    from mpiscope.outputs import check_output_dir
    from mpiscope.result.alltoall import load_alltoall

    directory = check_output_dir(args.out_dir, "--out-dir", create=False)
    docs = [load_alltoall(path) for path in args.docs]
    for path in write_figures(docs, directory):
        print(path)
    return 0
