"""``mpiscope noise ...``: does a background agent slow MPI programs, and which core pays?

Subcommands: probe (per-core detours), run (a detector, with or without an
agent), inject (play the agent), compare (the criteria and a verdict, as an
exit code), calibrate (the smallest agent each detector finds here), plot.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mpiscope.api.noise import (
    MAX_CPUS,
    MAX_ELEMENTS,
    MAX_HZ,
    MAX_PACKETS,
    MAX_SECONDS,
    NoiseRunRequest,
    add_common_options,
    add_noise_run_options,
    check_online,
    check_out,
    compare_documents,
    noise_profile,
    record_noise,
)
from mpiscope.errors import MpiscopeError
from mpiscope.parsing import float_in, int_in, subcommands

__all__ = ["add_parser"]

EXIT_DETECTED = 1

def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "noise",
        help="does a background agent slow MPI programs, and which core pays?",
        description="The noise detector: per-core detour probes, the seed's detectors "
        "(loops of Alltoall or Barrier, STREAM triad + ring exchange) timed in packets, an "
        "agent injector, and the criteria (99% CI gap, IQR outliers, Mann-Whitney, "
        "quantile shifts; for alternating runs a signed-rank test and an interval on ABBA "
        "block pairs) that say whether an agent slows the program, and how large a "
        "slowdown a run rules out.",
    )
    subcommands(parser, "noise", (_add_probe, _add_run, _add_inject, _add_compare, _add_calibrate,
                                  _add_plot))  # fmt: skip


# --- probe -------------------------------------------------------------------
def _add_probe(sub: Any) -> None:
    p = sub.add_parser(
        "probe", help="per-core detours: FWQ, FTQ (with its spectrum) and selfish",
        description="Run the three noise probes on every core, one pinned rank (or thread, "
        "with --alone) per core, one kind after the other; print per core the CPU share "
        "lost, the detours and the dominant frequencies.")
    from mpiscope.noise.spec import Duration

    p.add_argument("--np", type=int_in(1, MAX_CPUS), help="cores to probe (default: all)")
    p.add_argument("--cores", metavar="LIST", help="which logical CPUs (default: the first --np)")
    p.add_argument("--seconds", type=Duration(0, MAX_SECONDS), default=9.0, metavar="S",
                   help="total probing time, shared by the kinds, at most a day (default 9)")
    p.add_argument("--kinds", default="fwq,ftq,selfish",
                   help="probes to run: fwq, ftq, selfish, triad (STREAM memory bandwidth) "
                   "(default fwq,ftq,selfish)")
    p.add_argument("--alone", action="store_true", help="threads in one process, no MPI")
    p.add_argument("--ftq-quantum", type=Duration(1e-6, 10), metavar="DUR",
                   help="FTQ quantum, 1us to 10s (default 1ms)")
    p.add_argument("--fwq-work", type=Duration(1e-7, 10), metavar="DUR",
                   help="FWQ work unit, 100ns to 10s (default 100us)")
    p.add_argument("--threshold", type=Duration(1e-9, 10), metavar="DUR",
                   help="selfish detour threshold, up to 10s (default auto)")
    p.add_argument("--inject", metavar="SPEC",
                   help="run the injector meanwhile, FREQ:BURST[~JITTER][@CORE], e.g. 10Hz:1ms@1")
    p.add_argument("--out", default="noise-probe.json", metavar="FILE",
                   help="the probe document (default noise-probe.json)")
    p.add_argument("--raw-dir", metavar="DIR", help="raw records (default: FILE with .raw)")
    add_common_options(p)
    p.set_defaults(handler=_probe)


def _probe(args: argparse.Namespace) -> int:
    from mpiscope.noise.agent import AgentSpec
    from mpiscope.noise.binding import parse_cpu_list, read_topology
    from mpiscope.noise.probe_run import PROBE_KINDS, ProbePlan, run_probe
    from mpiscope.noise.probes import format_probe
    from mpiscope.noise.spec import parse_injector
    from mpiscope.outputs import check_output_dir
    from mpiscope.result.document import write_document

    out = check_out(args.out, args.force)
    raw_dir = Path(args.raw_dir) if args.raw_dir else out.with_suffix(".raw")
    check_output_dir(raw_dir, "--raw-dir", create=False)
    topology = read_topology()
    cores = parse_cpu_list(args.cores) if args.cores else topology.logical[: args.np or None]
    if args.np and len(cores) != args.np:
        raise MpiscopeError(f"--np {args.np} but {len(cores)} cores given or online")
    unknown = [c for c in cores if c not in topology.logical]
    if unknown:
        raise MpiscopeError(f"CPU {unknown[0]} is not online here ({topology.logical})")
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    bad = [k for k in kinds if k not in PROBE_KINDS]
    if bad or not kinds:
        raise MpiscopeError(f"unknown probe '{bad[0] if bad else ''}' (choose from "
                            f"{', '.join(PROBE_KINDS)})")
    each = args.seconds / len(kinds)
    for flag, unit in (("--fwq-work", args.fwq_work), ("--ftq-quantum", args.ftq_quantum)):
        if unit is not None and unit > each:
            raise MpiscopeError(f"{flag} {unit:g} s is longer than the {each:g} s each probe "
                                "runs: raise --seconds")  # fmt: skip

    def ns(seconds: float | None) -> int | None:
        return None if seconds is None else max(1, int(seconds * 1e9))

    agent = AgentSpec(injector=parse_injector(args.inject)) if args.inject else None
    if agent is not None and agent.injector is not None:
        check_online(agent.injector.core, "--inject @")
    plan = ProbePlan(
        cores=cores, seconds_per_kind=each, kinds=kinds, alone=args.alone, agent=agent,
        fwq_work_ns=ns(args.fwq_work), ftq_quantum_ns=ns(args.ftq_quantum),
        selfish_threshold_ns=ns(args.threshold),
    )
    profile = noise_profile(args.mpi, mpiexec=not args.alone)
    print(f"probing {len(cores)} core(s) ({', '.join(map(str, cores))}): "
          f"{', '.join(kinds)}, {plan.seconds_per_kind:g} s each", flush=True)
    try:
        doc = run_probe(plan, profile, raw_dir)
    except KeyboardInterrupt:
        from mpiscope.noise.probe_run import read_partial

        partial = read_partial(raw_dir)
        if partial is None:
            raise KeyboardInterrupt(f"no probe had finished: nothing kept; raw records in "
                                    f"{raw_dir}") from None  # fmt: skip
        write_document(partial, out)
        raise KeyboardInterrupt(f"the probes that finished are kept in {out}") from None
    write_document(doc, out)
    print(format_probe(doc))
    print(f"\nprobe document: {out}   raw records: {raw_dir}")
    return 0


# --- run ---------------------------------------------------------------------
def _add_run(sub: Any) -> None:
    p = sub.add_parser(
        "run", help="a detector timed in packets, with or without an agent",
        description="Run a detector of the seed: packets of MPI_Alltoall or MPI_Barrier "
        "loops, or of STREAM triads + a ring exchange, each packet's wall time one sample. "
        "--design separate (the seed's) makes one sample per run: run once without and once "
        "with the agent, then 'noise compare'. --design alternate switches the agent on "
        "and off in blocks of packets within one run, so both samples share the host's "
        "state.")
    add_noise_run_options(p)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    record_noise(NoiseRunRequest.of(vars(args)), show=True)
    return 0


# --- inject ------------------------------------------------------------------
def _add_inject(sub: Any) -> None:
    p = sub.add_parser(
        "inject", help="play the agent: alone, or around a command",
        description="Wake HZ times a second and burn BURST of CPU time on CORE, until "
        "Ctrl-C, --seconds, or the end of the command after '--'; then print what was "
        "really burnt.")
    from mpiscope.noise.spec import Duration, Frequency

    p.add_argument("--hz", type=Frequency(0, MAX_HZ), required=True, metavar="FREQ",
                   help="wake-ups per second, e.g. 10 (at most 1e6)")
    p.add_argument("--burst", type=Duration(0, 1000), required=True, metavar="DUR",
                   help="CPU time per wake-up, e.g. 1ms")
    p.add_argument("--core", type=int_in(0, MAX_CPUS - 1), metavar="K",
                   help="logical CPU to pin to (an online one)")
    p.add_argument("--jitter", type=float_in(0, 1, high_open=True), default=0.0, metavar="J",
                   help="move each wake-up by up to J x the period (0 <= J < 1)")
    p.add_argument("--seconds", type=Duration(0, 1e7), metavar="DUR",
                   help="stop after this long")
    p.add_argument("--mpi", metavar="NAME", help="the build whose injector to use")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD...",
                   help="a command to run while the agent plays")
    p.set_defaults(handler=_inject)


def _inject(args: argparse.Namespace) -> int:
    import shutil

    from mpiscope.launcher import build_env
    from mpiscope.noise.agent import Agent, AgentSpec
    from mpiscope.noise.session import noise_programs
    from mpiscope.noise.spec import InjectorSpec
    from mpiscope.noise.text import format_injector

    spec = InjectorSpec(hz=args.hz, burst_ns=round(args.burst * 1e9), core=args.core,
                        jitter=args.jitter)  # fmt: skip
    check_online(args.core, "--core")
    seconds = args.seconds
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if cmd and shutil.which(cmd[0]) is None:
        raise MpiscopeError(f"no program {cmd[0]!r} found to run with the agent")
    profile = noise_profile(args.mpi, mpiexec=False)
    env = build_env(profile)
    agent = Agent(AgentSpec(injector=spec), noise_programs(profile).inject, env)
    print(f"injecting {spec.label}", file=sys.stderr)
    code = agent.play(cmd, seconds, on_start=lambda: print(
        f"agent pid {agent.pgid}, CPUs {agent.cpus_allowed()}", file=sys.stderr))
    print(format_injector(agent.record("inject-summary")), file=sys.stderr)
    return code


# --- compare -----------------------------------------------------------------
def _add_compare(sub: Any) -> None:
    p = sub.add_parser(
        "compare", help="every criterion and a verdict; exit 1 when noise is detected",
        description="Compare a baseline run with a run under the agent (two documents), or "
        "the two samples of one alternating run (one document). Prints criterion 1 (99% CI "
        "gap), criterion 2 (IQR outliers), Mann-Whitney and the quantile shifts, all "
        "normalised to the baseline median; for one alternating run also the Wilcoxon "
        "signed-rank test and the Hodges-Lehmann interval of the slowdown on its ABBA pairs "
        "of block medians. Every verdict states its limit: the slowdown it rules out at "
        "95% and the one it would detect. Exit code: 0 no noise detected, 1 detected, "
        "2 bad input.")
    p.add_argument("files", nargs="+", metavar="RUN", help="noise-run document(s): 1 or 2")
    p.add_argument("--out", metavar="FILE", help="write the noise-verdict document")
    p.add_argument("--confidence", type=float_in(0, 1, True, True), default=0.99,
                   help="of criterion 1, in (0, 1) (0.99)")
    p.add_argument("--alpha", type=float_in(0, 1, True, True), default=0.01,
                   help="significance of the tests, in (0, 1) (0.01)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    p.set_defaults(handler=_compare)


def _compare(args: argparse.Namespace) -> int:
    from mpiscope.noise.criteria import format_verdict
    from mpiscope.result.document import write_document

    out = check_out(args.out, args.force, args.files) if args.out else None
    verdict = compare_documents(args.files, args.confidence, args.alpha)
    print(format_verdict(verdict))
    if out is not None:
        write_document(verdict, out)
        print(f"\nnoise-verdict document: {out}")
    return EXIT_DETECTED if verdict["detected"] else 0


# --- calibrate ---------------------------------------------------------------
def _add_calibrate(sub: Any) -> None:
    from mpiscope.noise.spec import DETECTORS, Duration

    p = sub.add_parser(
        "calibrate", help="the smallest agent each detector finds here, and its false alarms",
        description="Sweep the injector's frequency and burst on layout C with the "
        "alternating design, plus one A/A run (a sham agent paused and resumed the same "
        "way), and report per detector the smallest agent each criterion detects.")
    p.add_argument("--detector", default="barrier",
                   help=f"comma list of {', '.join(DETECTORS)} (default barrier)")
    p.add_argument("--np", type=int_in(1, MAX_CPUS), default=2, help="detector ranks (2)")
    p.add_argument("--hz", default="1,10,20,100", help="frequencies (default 1,10,20,100)")
    p.add_argument("--burst", default="0.1ms,1ms,10ms", help="bursts (default 0.1ms,1ms,10ms)")
    p.add_argument("--packet", type=Duration(0, MAX_SECONDS), default=0.5, metavar="DUR",
                   help="packet length (0.5s)")
    p.add_argument("--packets", type=int_in(2, MAX_PACKETS), default=24,
                   help="packets per run (default 24)")
    p.add_argument("--block", type=int_in(1, MAX_PACKETS), default=3,
                   help="packets per block (default 3; --packets at least 4 blocks)")
    p.add_argument("--stream-elements", type=int_in(1, MAX_ELEMENTS),
                   help="stream-ring elements per rank (default: arrays >= 4x the LLC)")
    p.add_argument("--out", default="noise-calibration.json", metavar="FILE")
    add_common_options(p)
    p.set_defaults(handler=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    import time

    from mpiscope.noise.binding import read_topology
    from mpiscope.noise.calibrate import CalibrationPlan, estimate_seconds, run_calibration
    from mpiscope.noise.session import check_blocks
    from mpiscope.noise.spec import DETECTORS, parse_duration_s, parse_frequency_hz
    from mpiscope.noise.text import PacketLine, format_calibration
    from mpiscope.parsing import name_list
    from mpiscope.result.document import write_document

    try:
        detectors = tuple(name_list(args.detector, DETECTORS, "detector"))
    except argparse.ArgumentTypeError as exc:
        raise MpiscopeError(f"--detector: {exc}") from None
    check_blocks(args.packets, args.block)
    out = check_out(args.out, args.force)
    plan = CalibrationPlan(
        detectors=detectors,
        hz=tuple(parse_frequency_hz(t, "--hz") for t in args.hz.split(",")),
        bursts_ns=tuple(round(parse_duration_s(t, "--burst") * 1e9) for t in args.burst.split(",")),
        nprocs=args.np, packet_s=args.packet,
        packets=args.packets, block=args.block, stream_elements=args.stream_elements,
    )
    if not plan.agents():
        raise MpiscopeError("no burst fits in its period at these frequencies")
    profile = noise_profile(args.mpi)
    estimate = estimate_seconds(plan)
    print(f"calibrating {', '.join(detectors)}: {plan.runs()} runs of {plan.packets} packets "
          f"of {plan.packet_s:g} s; at most about {estimate / 60:.1f} min", flush=True)
    started = time.monotonic()
    line = PacketLine(plan.packets, quiet=False)

    def on_run(index: int, total: int, label: str, verdict: dict[str, Any]) -> None:
        line.close()
        fired = ", ".join(verdict["fired"]) or "nothing"
        elapsed = time.monotonic() - started
        print(f"[{index}/{total}] {label}: mean {verdict['mean_difference']:+.2%}, "
              f"fired {fired}  ({elapsed:.0f} s elapsed)", file=sys.stderr)

    doc = run_calibration(plan, profile, read_topology(), on_run,
                          on_packet=line if line.tty else None)
    write_document(doc, out)
    print(format_calibration(doc))
    print(f"\ncalibration document: {out}")
    return 0


# --- plot --------------------------------------------------------------------
def _add_plot(sub: Any) -> None:
    p = sub.add_parser(
        "plot", help="the seed's figures from noise documents",
        description="Runs: normalised box plots with the baseline's IQR band (the first run "
        "is the baseline; an alternating run gives its two samples) and the difference of "
        "means next to the boundary gap. Probe documents: the FTQ spectrum per core and the "
        "selfish-detour timeline.")
    p.add_argument("files", nargs="+", metavar="DOC", help="noise-run or noise-probe documents")
    p.add_argument("-o", "--out", required=True, metavar="FIG.png",
                   help="first figure (a .png); the others are written beside it (FIG-gap.png, "
                   "...)")
    p.set_defaults(handler=_plot)


def _plot(args: argparse.Namespace) -> int:
    from mpiscope.noise.plotting import write_figures
    from mpiscope.outputs import check_output
    from mpiscope.result.noise import load_noise

    if Path(args.out).suffix.lower() != ".png":
        raise MpiscopeError(f"-o {args.out}: the figures are PNG files: name the first FIG.png")
    out = check_output(args.out, inputs=args.files, what="-o")
    docs = [load_noise(Path(f)) for f in args.files]
    for path in write_figures(docs, args.files, out):
        print(path)
    return 0
