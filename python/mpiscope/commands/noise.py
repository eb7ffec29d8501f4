"""``mpiscope noise ...``: does a background agent slow MPI programs, and which core pays?

Subcommands: probe (per-core detours), run (a detector, with or without an
agent), inject (play the agent), compare (the criteria and a verdict, as an
exit code), calibrate (the smallest agent each detector finds here), plot.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import float_in, int_in, subcommands

__all__ = ["add_parser"]

EXIT_DETECTED = 1
#: The noise programs' limits (mpiscope-noise and mpiscope-inject refuse more).
MAX_SECONDS = 86400.0  # a probe's time, a packet
MAX_CALIBRATE = 3600.0  # a detector's calibration
MAX_PACKETS = 10**6
MAX_CPUS = 4096
MAX_BYTES = 1 << 30  # an Alltoall block, a ring message
MAX_MESSAGES = 10**7
MAX_ELEMENTS = 10**12
MAX_TRIADS = 10**9
MAX_ITERATIONS = 10**15
MAX_HZ = 1e6
MAX_TIMEOUT = 30 * 86400.0
#: Packets of a run without --packets, and the longest --until-decided run without --max.
DEFAULT_PACKETS = 30
DEFAULT_MAX_S = 300.0
#: The detectors' own options (--detector X takes only its own).
DETECTOR_OPTIONS = {
    "alltoall": ("alltoall_bytes",),
    "barrier": (),
    "stream-ring": ("preset", "messages", "message_bytes", "stream_elements", "triads"),
}


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


# --- shared options ------------------------------------------------------------
def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mpi", metavar="NAME", help="the MPI to run with (default: mpich)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --out file")


def _add_agent(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the agent")
    group.add_argument("--inject", metavar="SPEC",
                       help="the built-in injector as FREQ:BURST[~JITTER][@CORE], e.g. 10Hz:1ms@1")
    group.add_argument("--agent", metavar="CMD",
                       help="a real agent: a shell command started, pinned and stopped by mpiscope")
    group.add_argument("--agent-core", type=int_in(0, MAX_CPUS - 1), metavar="K",
                       help="logical CPU of the agent (default: chosen by --layout)")


def _asked_agent_core(args: argparse.Namespace) -> int | None:
    """The agent's core as the user gave it (--agent-core or @K), or None."""
    from mpiscope.noise.spec import parse_injector

    if args.inject and args.agent:
        raise MpiscopeError("give --inject or --agent, not both")
    if args.agent_core is not None and not (args.inject or args.agent):
        raise MpiscopeError("--agent-core needs --inject or --agent")
    at = parse_injector(args.inject).core if args.inject else None
    if at is not None and args.agent_core is not None and at != args.agent_core:
        raise MpiscopeError(f"--inject pins to core {at} but --agent-core is {args.agent_core}")
    if args.agent:
        _command_exists(args.agent, "--agent")
    core = args.agent_core if args.agent_core is not None else at
    _online(core, "--agent-core")
    return core


def _agent_spec(args: argparse.Namespace, core: int | None) -> Any:
    """The agent of --inject or --agent, on ``core`` (the layout's choice)."""
    from mpiscope.noise.agent import AgentSpec
    from mpiscope.noise.spec import parse_injector

    if args.inject:
        return AgentSpec(injector=replace(parse_injector(args.inject), core=core))
    return AgentSpec(command=args.agent, core=core) if args.agent else None


def _check_out(name: str, force: bool, inputs: list[str] | None = None) -> Path:
    from mpiscope.outputs import check_output

    return check_output(name, force=force, inputs=inputs or (), what="--out")


def _profile(args: argparse.Namespace, mpiexec: bool = True) -> Any:
    """The MPI installation, its noise programs and (``mpiexec``) its mpiexec
    checked: what a run needs, before it prints its plan."""
    from mpiscope.mpi_profile import select_profile
    from mpiscope.noise.session import noise_programs

    profile = select_profile(args.mpi)
    noise_programs(profile)
    if mpiexec:
        profile.check_mpiexec()
    return profile


def _online(core: int | None, flag: str) -> None:
    """A core the user named must be online here."""
    if core is None:
        return
    from mpiscope.noise.binding import read_topology

    online = read_topology().logical
    if core not in online:
        raise MpiscopeError(f"{flag} {core}: CPU {core} is not online here (online: "
                            f"{', '.join(map(str, online))})")  # fmt: skip


def _command_exists(command: str, flag: str) -> None:
    """The program a command line starts must exist (else the shell's own
    message would be a second line)."""
    import shlex
    import shutil

    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise MpiscopeError(f"{flag} {command!r}: {exc}") from None
    words = [w for w in words if "=" not in w.split("/")[0]] or [""]  # VAR=x cmd: the cmd
    if not words[0] or shutil.which(words[0]) is None:
        raise MpiscopeError(f"{flag} {command!r}: no program {words[0]!r} found")


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
    _add_common(p)
    p.set_defaults(handler=_probe)


def _probe(args: argparse.Namespace) -> int:
    from mpiscope.noise.agent import AgentSpec
    from mpiscope.noise.binding import parse_cpu_list, read_topology
    from mpiscope.noise.probe_run import PROBE_KINDS, ProbePlan, run_probe
    from mpiscope.noise.probes import format_probe
    from mpiscope.noise.spec import parse_injector
    from mpiscope.outputs import check_output_dir
    from mpiscope.result.document import write_document

    out = _check_out(args.out, args.force)
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
        _online(agent.injector.core, "--inject @")
    plan = ProbePlan(
        cores=cores, seconds_per_kind=each, kinds=kinds, alone=args.alone, agent=agent,
        fwq_work_ns=ns(args.fwq_work), ftq_quantum_ns=ns(args.ftq_quantum),
        selfish_threshold_ns=ns(args.threshold),
    )
    profile = _profile(args, mpiexec=not args.alone)
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
STREAM_PRESETS = {"short": (20, 32), "long": (1, 5_000_000)}


def _add_run(sub: Any) -> None:
    from mpiscope.measure.sizes import ByteSize
    from mpiscope.noise.session import DEFAULT_BLOCK, DEFAULT_GROUPS, MAX_GROUPS
    from mpiscope.noise.spec import DETECTORS, LAYOUTS, Duration

    p = sub.add_parser(
        "run", help="a detector timed in packets, with or without an agent",
        description="Run a detector of the seed: packets of MPI_Alltoall or MPI_Barrier "
        "loops, or of STREAM triads + a ring exchange, each packet's wall time one sample. "
        "--design separate (the seed's) makes one sample per run: run once without and once "
        "with the agent, then 'noise compare'. --design alternate switches the agent on "
        "and off in blocks of packets within one run, so both samples share the host's "
        "state.")
    p.add_argument("--detector", choices=DETECTORS, required=True)
    p.add_argument("--packet", type=Duration(0, MAX_SECONDS), default=10.0, metavar="DUR",
                   help="packet length, at most a day (default 10s)")
    p.add_argument("--packets", type=int_in(2, MAX_PACKETS),
                   help=f"packets (samples) per run, 2 to {MAX_PACKETS} (default 30)")
    p.add_argument("--until-decided", action="store_true",
                   help="--design alternate: add ABBA blocks until the paired statistics decide "
                   "(a slowdown, or none above --margin), at most --max")
    p.add_argument("--max", type=Duration(0, MAX_SECONDS), metavar="DUR",
                   help="--until-decided: the longest run, e.g. 5min (default 5min)")
    p.add_argument("--margin", type=float_in(0, 100, low_open=True), metavar="PCT",
                   help="--until-decided: slowdowns below PCT percent count as none "
                   "(default 1)")
    p.add_argument("--np", type=int_in(1, MAX_CPUS), required=True, help="detector ranks")
    p.add_argument("--layout", choices=LAYOUTS,
                   help="A: no agent, a rank per physical core; B: agent on a free core; "
                   "C: agent on a detector rank's core; all: a rank per logical CPU "
                   "(default: A without an agent, C with one)")
    p.add_argument("--design", choices=("separate", "alternate"), default="separate")
    p.add_argument("--block", type=int_in(1, MAX_PACKETS),
                   help=f"--design alternate: packets per block (default {DEFAULT_BLOCK})")
    p.add_argument("--groups", type=int_in(0, MAX_GROUPS),
                   help="--design alternate: time each packet's iterations in G equal groups on "
                   f"every rank, for the periodic test (default {DEFAULT_GROUPS}; 0: off; at "
                   f"most {MAX_GROUPS})")
    p.add_argument("--out", required=True, metavar="FILE", help="the noise-run document")
    p.add_argument("--calibrate", type=Duration(0, MAX_CALIBRATE), metavar="DUR",
                   help="calibration time, at most an hour (min(1s, packet/4))")
    p.add_argument("--iterations", type=int_in(1, MAX_ITERATIONS),
                   help="iterations per packet (skips the calibration)")
    p.add_argument("--same-as", metavar="BASE.json",
                   help="do the work of that run in every packet (its iterations, message "
                   "and array sizes): the agent run of a separate-design comparison")
    p.add_argument("--alltoall-bytes", type=ByteSize(1, MAX_BYTES),
                   help="--detector alltoall: bytes per peer, at most 1 GiB (default 1024)")
    p.add_argument("--preset", choices=tuple(STREAM_PRESETS),
                   help="stream-ring messages: short = 20 x 32 B, long = 1 x 5 MB")
    p.add_argument("--messages", type=int_in(1, MAX_MESSAGES),
                   help="--detector stream-ring: ring messages per packet")
    p.add_argument("--message-bytes", type=ByteSize(1, MAX_BYTES),
                   help="--detector stream-ring: bytes of each ring message, at most 1 GiB")
    p.add_argument("--stream-elements", type=int_in(1, MAX_ELEMENTS),
                   help="--detector stream-ring: elements per rank (default: arrays >= 4x the "
                   "last-level cache)")
    p.add_argument("--triads", type=int_in(1, MAX_TRIADS),
                   help="--detector stream-ring: STREAM triads per iteration (default 100, the "
                   "seed's)")
    p.add_argument("--timeout", type=float_in(0, MAX_TIMEOUT, low_open=True), metavar="S",
                   help="stop the run after S seconds (default: none; a detector silent for "
                   "5 packets + 60 s is stopped)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    _add_agent(p)
    _add_common(p)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from mpiscope.noise.binding import read_topology
    from mpiscope.noise.criteria import compare_run, format_verdict
    from mpiscope.noise.sequential import until_decided
    from mpiscope.noise.session import (
        DEFAULT_BLOCK,
        DEFAULT_GROUPS,
        DetectorPlan,
        plan_layout,
        run_detector,
        same_work,
    )
    from mpiscope.noise.text import PacketLine, format_run, format_sequential
    from mpiscope.result.document import write_document
    from mpiscope.result.noise import load_noise

    _check_run_options(args)
    out = _check_out(args.out, args.force, [args.same_as] if args.same_as else None)
    packet_s = args.packet
    block = args.block or DEFAULT_BLOCK
    rule, stop_dir = None, None
    if args.until_decided:
        from mpiscope.noise.sequential import SequentialRule

        # 1e-9: 0.96 s of 0.08 s quartets is 12 of them, not 11.999...
        quartets = int((args.max or DEFAULT_MAX_S) / (4 * block * packet_s) + 1e-9)
        if quartets < 4:
            raise MpiscopeError(
                f"--max {args.max or DEFAULT_MAX_S:g} s holds {quartets} ABBA quartet(s) of "
                f"{4 * block} packets of {packet_s:g} s: at least 4 are needed (8 pairs)")
        args.packets = quartets * 4 * block
        rule = SequentialRule(max_pairs=2 * quartets,
                              margin=(1.0 if args.margin is None else args.margin) / 100)
        stop_dir = tempfile.TemporaryDirectory(prefix="mpiscope-stop-")
    elif args.packets is None:
        args.packets = DEFAULT_PACKETS
    topology = read_topology()
    asked_core = _asked_agent_core(args)
    has_agent = bool(args.inject or args.agent)
    layout = args.layout or ("C" if has_agent else "A")
    ranks, core = plan_layout(topology, args.np, layout, asked_core, has_agent)
    agent = _agent_spec(args, core)
    messages, message_bytes = args.messages, args.message_bytes
    if args.preset:
        if args.detector != "stream-ring":
            raise MpiscopeError("--preset is for --detector stream-ring")
        messages, message_bytes = STREAM_PRESETS[args.preset]
    work = {
        "iterations": args.iterations, "alltoall_bytes": args.alltoall_bytes,
        "messages": messages, "message_bytes": message_bytes,
        "stream_elements": args.stream_elements, "triads": args.triads,
    }
    if args.same_as:
        given = [f"--{k.replace('_', '-')}" for k, v in work.items() if v is not None]
        if given:
            raise MpiscopeError(f"--same-as takes the work from {args.same_as}: drop {given[0]}")
        work.update(same_work(load_noise(args.same_as), args.detector, args.same_as))
    plan = DetectorPlan(
        detector=args.detector, packet_s=packet_s, packets=args.packets, nprocs=args.np,
        layout=layout, design=args.design, block=block, agent=agent,
        stop_file=f"{stop_dir.name}/stop" if stop_dir else None,
        calibrate_s=args.calibrate, pin_cores=ranks, **work,
        groups=(DEFAULT_GROUPS if args.groups is None else args.groups)
        if args.design == "alternate" else 0,
    )
    _check_stream_memory(plan)
    profile = _profile(args)
    planned = args.packets * packet_s + 5
    agent_text = (f", agent {agent.describe()['command']} on CPU {agent.pinned_core}"
                  if agent else "")
    print(f"{args.detector}: {args.packets} packets of {packet_s:g} s on {args.np} rank(s), "
          f"layout {layout}, {args.design} design{agent_text}; about {planned:.0f} s",
          flush=True)
    show = PacketLine(args.packets, quiet=args.quiet)
    on_packet = show if rule is None or plan.stop_file is None else until_decided(
        rule, show, block, plan.stop_file)
    try:
        doc = run_detector(plan, profile, topology, out, timeout_s=args.timeout,
                           on_packet=on_packet,
                           on_warning=lambda t: print(f"warning: {t}", file=sys.stderr))
    finally:
        if stop_dir is not None:
            stop_dir.cleanup()
    show.close()
    if rule is not None:
        doc["sequential"] = rule.document()
        write_document(doc, out)
    print(format_run(doc))
    if args.design == "alternate":
        verdict = compare_run(doc, str(out))
        print()
        print(format_verdict(verdict))
        if rule is not None:
            print(format_sequential(doc["sequential"]))
    print(f"\nnoise-run document: {out}")
    return 0


def _check_run_options(args: argparse.Namespace) -> None:
    """Options of another detector or design, and contradictions: refused."""
    for detector, names in DETECTOR_OPTIONS.items():
        given = [n for n in names if getattr(args, n) is not None]
        if given and detector != args.detector:
            flag = "--" + given[0].replace("_", "-")
            raise MpiscopeError(f"{flag} is an option of --detector {detector}, not of "
                                f"--detector {args.detector}")  # fmt: skip
    if args.until_decided:
        if args.design != "alternate":
            raise MpiscopeError("--until-decided adds ABBA blocks: it needs --design alternate")
        if args.packets is not None:
            raise MpiscopeError("--until-decided sizes the run from --max: drop --packets")
    elif args.max is not None or args.margin is not None:
        flag = "--max" if args.max is not None else "--margin"
        raise MpiscopeError(f"{flag} is an option of --until-decided")
    if args.groups and args.design != "alternate":
        raise MpiscopeError("--groups feeds the periodic test of --design alternate: not with "
                            f"--design {args.design}")  # fmt: skip
    if args.block is not None and args.design != "alternate":
        raise MpiscopeError("--block sizes the blocks of --design alternate: not with --design "
                            f"{args.design}")  # fmt: skip
    if args.preset and (args.messages is not None or args.message_bytes is not None):
        raise MpiscopeError("--preset sets the ring messages: give it or --messages and "
                            "--message-bytes, not both")  # fmt: skip
    if args.calibrate is not None and args.iterations is not None:
        raise MpiscopeError("--iterations fixes the work of a packet: there is nothing to "
                            "--calibrate")  # fmt: skip


def _check_stream_memory(plan: Any) -> None:
    """The stream-ring's three arrays of doubles on every rank must fit."""
    if plan.stream_elements is None:
        return
    from mpiscope.measure.sizes import check_fits

    check_fits(STREAM_ARRAYS * 8 * plan.stream_elements * plan.nprocs,
               f"--stream-elements {plan.stream_elements}",
               f"{STREAM_ARRAYS} arrays of doubles on each of {plan.nprocs} rank(s)")  # fmt: skip


#: Arrays of the STREAM triad a stream-ring rank holds.
STREAM_ARRAYS = 3


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
    _online(args.core, "--core")
    seconds = args.seconds
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if cmd and shutil.which(cmd[0]) is None:
        raise MpiscopeError(f"no program {cmd[0]!r} found to run with the agent")
    profile = _profile(args, mpiexec=False)
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
    from mpiscope.noise.criteria import compare_run, compare_samples, format_verdict
    from mpiscope.noise.samples import two_samples
    from mpiscope.result.document import write_document
    from mpiscope.result.noise import load_noise

    if len(args.files) > 2:
        raise MpiscopeError("compare takes one alternating run or two runs (baseline, agent)")
    out = _check_out(args.out, args.force, args.files) if args.out else None
    docs = [load_noise(Path(f)) for f in args.files]
    (base, base_name), (test, test_name) = two_samples(docs, args.files)
    if len(docs) == 1:  # one alternating run: its ABBA pairs too
        verdict = compare_run(docs[0], args.files[0], confidence=args.confidence,
                              alpha=args.alpha)
    else:
        verdict = compare_samples(base, test, baseline_source=base_name, test_source=test_name,
                                  confidence=args.confidence, alpha=args.alpha)
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
    _add_common(p)
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
    out = _check_out(args.out, args.force)
    plan = CalibrationPlan(
        detectors=detectors,
        hz=tuple(parse_frequency_hz(t, "--hz") for t in args.hz.split(",")),
        bursts_ns=tuple(round(parse_duration_s(t, "--burst") * 1e9) for t in args.burst.split(",")),
        nprocs=args.np, packet_s=args.packet,
        packets=args.packets, block=args.block, stream_elements=args.stream_elements,
    )
    if not plan.agents():
        raise MpiscopeError("no burst fits in its period at these frequencies")
    profile = _profile(args)
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
