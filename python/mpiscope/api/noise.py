"""``mpiscope noise run`` and ``noise compare`` as Python: does an agent slow MPI?

::

    import mpiscope

    run = mpiscope.noise_run(detector="barrier", np=2, design="alternate",
                             inject="10Hz:1ms@1", packet="0.5s", packets=96,
                             out="noise.json")
    verdict = run.verdict()      # the criteria and the limit, as `noise compare` gives them
    print(verdict["detected"], verdict["fired"])
    print(run.text())            # what `mpiscope noise run` prints after its packets
    mpiscope.noise_compare("base.json", "agent.json")["detected"]

The command line (``mpiscope/commands/noise.py``) is a thin layer over
:func:`record_noise` and :func:`compare_documents`; the options are
:func:`add_noise_run_options`, read from keywords by the same parser
(:func:`mpiscope.api.options.parse_options`). The option checks shared with
the other noise commands (the agent, the MPI, the output) live here too.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from mpiscope.api.options import api_call, parse_options
from mpiscope.errors import MpiscopeError
from mpiscope.parsing import float_in, int_in

__all__ = [
    "NoiseRun",
    "NoiseRunRequest",
    "add_agent_options",
    "add_common_options",
    "add_noise_run_options",
    "agent_spec",
    "asked_agent_core",
    "check_online",
    "check_out",
    "compare_documents",
    "noise_compare",
    "noise_profile",
    "noise_run",
    "record_noise",
]

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
#: stream-ring's message presets: (messages, bytes each).
STREAM_PRESETS = {"short": (20, 32), "long": (1, 5_000_000)}
#: Arrays of the STREAM triad a stream-ring rank holds.
STREAM_ARRAYS = 3


# --- shared by the noise commands ----------------------------------------------
def add_common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mpi", metavar="NAME", help="the MPI to run with (default: mpich)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --out file")


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the agent")
    group.add_argument("--inject", metavar="SPEC",
                       help="the built-in injector as FREQ:BURST[~JITTER][@CORE], e.g. 10Hz:1ms@1")
    group.add_argument("--agent", metavar="CMD",
                       help="a real agent: a shell command started, pinned and stopped by mpiscope")
    group.add_argument("--agent-core", type=int_in(0, MAX_CPUS - 1), metavar="K",
                       help="logical CPU of the agent (default: chosen by --layout)")


def asked_agent_core(inject: str | None, agent: str | None, agent_core: int | None) -> int | None:
    """The agent's core as the user gave it (--agent-core or @K), or None."""
    from mpiscope.noise.spec import parse_injector

    if inject and agent:
        raise MpiscopeError("give --inject or --agent, not both")
    if agent_core is not None and not (inject or agent):
        raise MpiscopeError("--agent-core needs --inject or --agent")
    at = parse_injector(inject).core if inject else None
    if at is not None and agent_core is not None and at != agent_core:
        raise MpiscopeError(f"--inject pins to core {at} but --agent-core is {agent_core}")
    if agent:
        _command_exists(agent, "--agent")
    core = agent_core if agent_core is not None else at
    check_online(core, "--agent-core")
    return core


def agent_spec(inject: str | None, agent: str | None, core: int | None) -> Any:
    """The agent of --inject or --agent, on ``core`` (the layout's choice)."""
    from mpiscope.noise.agent import AgentSpec
    from mpiscope.noise.spec import parse_injector

    if inject:
        return AgentSpec(injector=replace(parse_injector(inject), core=core))
    return AgentSpec(command=agent, core=core) if agent else None


def check_out(name: str, force: bool, inputs: Sequence[str] | None = None) -> Path:
    from mpiscope.outputs import check_output

    return check_output(name, force=force, inputs=inputs or (), what="--out")


def noise_profile(mpi: str | None, mpiexec: bool = True) -> Any:
    """The MPI installation, its noise programs and (``mpiexec``) its mpiexec
    checked: what a run needs, before it prints its plan."""
    from mpiscope.mpi_profile import select_profile
    from mpiscope.noise.session import noise_programs

    profile = select_profile(mpi)
    noise_programs(profile)
    if mpiexec:
        profile.check_mpiexec()
    return profile


def check_online(core: int | None, flag: str) -> None:
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


# --- noise run -----------------------------------------------------------------
def add_noise_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``mpiscope noise run`` (and of :func:`noise_run`)."""
    from mpiscope.measure.sizes import ByteSize
    from mpiscope.noise.session import DEFAULT_BLOCK, DEFAULT_GROUPS, MAX_GROUPS
    from mpiscope.noise.spec import DETECTORS, LAYOUTS, Duration

    add = parser.add_argument
    add("--detector", choices=DETECTORS, required=True)
    add("--packet", type=Duration(0, MAX_SECONDS), default=10.0, metavar="DUR",
        help="packet length, at most a day (default 10s)")
    add("--packets", type=int_in(2, MAX_PACKETS),
        help=f"packets (samples) per run, 2 to {MAX_PACKETS} (default {DEFAULT_PACKETS})")
    add("--until-decided", action="store_true",
        help="--design alternate: add ABBA blocks until the paired statistics decide "
        "(a slowdown, or none above --margin), at most --max")
    add("--max", type=Duration(0, MAX_SECONDS), metavar="DUR",
        help="--until-decided: the longest run in wall time, e.g. 5min (default 5min); "
        "packets are planned from it at their asked length, and a run whose packets "
        "take longer stops when the next ABBA quartet would end past it")
    add("--margin", type=float_in(0, 100, low_open=True), metavar="PCT",
        help="--until-decided: slowdowns below PCT percent count as none (default 1)")
    add("--np", type=int_in(1, MAX_CPUS), required=True, help="detector ranks")
    add("--layout", choices=LAYOUTS,
        help="A: no agent, a rank per physical core; B: agent on a free core; "
        "C: agent on a detector rank's core; all: a rank per logical CPU "
        "(default: A without an agent, C with one)")
    add("--design", choices=("separate", "alternate"), default="separate")
    add("--block", type=int_in(1, MAX_PACKETS),
        help=f"--design alternate: packets per block (default {DEFAULT_BLOCK})")
    add("--groups", type=int_in(0, MAX_GROUPS),
        help="--design alternate: time each packet's iterations in G equal groups on "
        f"every rank, for the periodic test (default {DEFAULT_GROUPS}; 0: off; at "
        f"most {MAX_GROUPS})")
    add("--out", required=True, metavar="FILE", help="the noise-run document")
    add("--calibrate", type=Duration(0, MAX_CALIBRATE), metavar="DUR",
        help="calibration time, at most an hour (min(1s, packet/4))")
    add("--iterations", type=int_in(1, MAX_ITERATIONS),
        help="iterations per packet (skips the calibration)")
    add("--same-as", metavar="BASE.json",
        help="do the work of that run in every packet (its iterations, message "
        "and array sizes): the agent run of a separate-design comparison")
    add("--alltoall-bytes", type=ByteSize(1, MAX_BYTES),
        help="--detector alltoall: bytes per peer, at most 1 GiB (default 1024)")
    add("--preset", choices=tuple(STREAM_PRESETS),
        help="stream-ring messages: short = 20 x 32 B, long = 1 x 5 MB")
    add("--messages", type=int_in(1, MAX_MESSAGES),
        help="--detector stream-ring: ring messages per packet")
    add("--message-bytes", type=ByteSize(1, MAX_BYTES),
        help="--detector stream-ring: bytes of each ring message, at most 1 GiB")
    add("--stream-elements", type=int_in(1, MAX_ELEMENTS),
        help="--detector stream-ring: elements per rank (default: arrays >= 4x the "
        "last-level cache)")
    add("--triads", type=int_in(1, MAX_TRIADS),
        help="--detector stream-ring: STREAM triads per iteration (default 100, the seed's)")
    add("--timeout", type=float_in(0, MAX_TIMEOUT, low_open=True), metavar="S",
        help="stop the run after S seconds (default: none; a detector silent for "
        "5 packets + 60 s is stopped)")
    add("--quiet", action="store_true", help="no progress line")
    add_agent_options(parser)
    add_common_options(parser)


@dataclass(frozen=True)
class NoiseRunRequest:
    """The options of :func:`add_noise_run_options`, typed."""

    detector: str
    packet: float
    packets: int | None
    until_decided: bool
    max: float | None
    margin: float | None
    np: int
    layout: str | None
    design: str
    block: int | None
    groups: int | None
    out: str
    calibrate: float | None
    iterations: int | None
    same_as: str | None
    alltoall_bytes: int | None
    preset: str | None
    messages: int | None
    message_bytes: int | None
    stream_elements: int | None
    triads: int | None
    timeout: float | None
    quiet: bool
    inject: str | None
    agent: str | None
    agent_core: int | None
    mpi: str | None
    force: bool

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> NoiseRunRequest:
        return cls(**{f.name: values[f.name] for f in fields(cls)})


@dataclass(frozen=True)
class NoiseRun:
    """A noise run: its document (as written to ``path``) and what the
    detector said meanwhile."""

    path: Path
    document: dict[str, Any]
    warnings: tuple[str, ...] = ()

    def verdict(self, confidence: float = 0.99, alpha: float = 0.01) -> dict[str, Any]:
        """The criteria of an alternating run's two samples and its ABBA
        pairs, and the verdict (:func:`compare_documents` of this run)."""
        from mpiscope.noise.criteria import compare_run

        if self.document.get("design") != "alternate":
            raise MpiscopeError(f"{self.path} is one sample (--design separate): compare it with "
                                "a run under the agent, noise_compare(baseline, agent)")
        return compare_run(self.document, str(self.path), confidence=confidence, alpha=alpha)

    def text(self) -> str:
        """What ``mpiscope noise run`` prints after its packets."""
        from mpiscope.noise.criteria import format_verdict
        from mpiscope.noise.text import format_run, format_sequential

        parts = [format_run(self.document)]
        if self.document.get("design") == "alternate":
            parts += ["", format_verdict(self.verdict())]
            if self.document.get("sequential"):
                parts.append(format_sequential(self.document["sequential"]))
        return "\n".join(parts)


def noise_run(*, show: bool = False, **options: Any) -> NoiseRun:
    """Run a detector, as ``mpiscope noise run`` does; ``options`` are its
    options by name (``detector``, ``np`` and ``out`` are required). Prints
    nothing unless ``show``; returns the run, or raises RunFailedError (the
    packets measured are kept in ``out``)."""
    with api_call(options):
        values = parse_options("noise run", add_noise_run_options, (), options, "noise_run")
        return record_noise(NoiseRunRequest.of(values), show=show)


def _check_run_options(request: NoiseRunRequest) -> None:
    """Options of another detector or design, and contradictions: refused."""
    for detector, names in DETECTOR_OPTIONS.items():
        given = [n for n in names if getattr(request, n) is not None]
        if given and detector != request.detector:
            flag = "--" + given[0].replace("_", "-")
            raise MpiscopeError(f"{flag} is an option of --detector {detector}, not of "
                                f"--detector {request.detector}")  # fmt: skip
    if request.until_decided:
        if request.design != "alternate":
            raise MpiscopeError("--until-decided adds ABBA blocks: it needs --design alternate")
        if request.packets is not None:
            raise MpiscopeError("--until-decided sizes the run from --max: drop --packets")
    elif request.max is not None or request.margin is not None:
        flag = "--max" if request.max is not None else "--margin"
        raise MpiscopeError(f"{flag} is an option of --until-decided")
    if request.groups and request.design != "alternate":
        raise MpiscopeError("--groups feeds the periodic test of --design alternate: not with "
                            f"--design {request.design}")  # fmt: skip
    if request.block is not None and request.design != "alternate":
        raise MpiscopeError("--block sizes the blocks of --design alternate: not with --design "
                            f"{request.design}")  # fmt: skip
    if request.preset and (request.messages is not None or request.message_bytes is not None):
        raise MpiscopeError("--preset sets the ring messages: give it or --messages and "
                            "--message-bytes, not both")  # fmt: skip
    if request.calibrate is not None and request.iterations is not None:
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


def _sequential(request: NoiseRunRequest, block: int) -> tuple[int, Any]:
    """(packets, the sequential rule or None) of the request."""
    if not request.until_decided:
        return request.packets or DEFAULT_PACKETS, None
    from mpiscope.noise.sequential import SequentialRule

    longest = request.max or DEFAULT_MAX_S
    # 1e-9: 0.96 s of 0.08 s quartets is 12 of them, not 11.999...
    quartets = int(longest / (4 * block * request.packet) + 1e-9)
    if quartets < 4:
        raise MpiscopeError(
            f"--max {longest:g} s holds {quartets} ABBA quartet(s) of "
            f"{4 * block} packets of {request.packet:g} s: at least 4 are needed (8 pairs)")
    margin = (1.0 if request.margin is None else request.margin) / 100
    return quartets * 4 * block, SequentialRule(max_pairs=2 * quartets, margin=margin)


def _work(request: NoiseRunRequest) -> dict[str, Any]:
    """The detector's work per packet: given, the preset's, or --same-as's."""
    from mpiscope.noise.session import same_work
    from mpiscope.result.noise import load_noise

    messages, message_bytes = request.messages, request.message_bytes
    if request.preset:
        if request.detector != "stream-ring":
            raise MpiscopeError("--preset is for --detector stream-ring")
        messages, message_bytes = STREAM_PRESETS[request.preset]
    work = {
        "iterations": request.iterations, "alltoall_bytes": request.alltoall_bytes,
        "messages": messages, "message_bytes": message_bytes,
        "stream_elements": request.stream_elements, "triads": request.triads,
    }
    if request.same_as:
        given = [f"--{k.replace('_', '-')}" for k, v in work.items() if v is not None]
        if given:
            raise MpiscopeError(f"--same-as takes the work from {request.same_as}: drop "
                                f"{given[0]}")  # fmt: skip
        work.update(same_work(load_noise(request.same_as), request.detector, request.same_as))
    return work


def record_noise(request: NoiseRunRequest, show: bool = True) -> NoiseRun:
    """Run the detector of ``request``; with ``show``, what the command line
    prints (the plan, a progress line unless ``quiet``, the run and its
    verdict, warnings on stderr)."""
    from mpiscope.noise.binding import read_topology
    from mpiscope.noise.sequential import until_decided
    from mpiscope.noise.session import (
        DEFAULT_BLOCK,
        DEFAULT_GROUPS,
        DetectorPlan,
        plan_layout,
        run_detector,
    )
    from mpiscope.noise.text import PacketLine
    from mpiscope.result.document import write_document

    _check_run_options(request)
    out = check_out(request.out, request.force, [request.same_as] if request.same_as else None)
    block = request.block or DEFAULT_BLOCK
    packets, rule = _sequential(request, block)
    topology = read_topology()
    asked_core = asked_agent_core(request.inject, request.agent, request.agent_core)
    has_agent = bool(request.inject or request.agent)
    layout = request.layout or ("C" if has_agent else "A")
    ranks, core = plan_layout(topology, request.np, layout, asked_core, has_agent)
    agent = agent_spec(request.inject, request.agent, core)
    plan = DetectorPlan(
        detector=request.detector, packet_s=request.packet, packets=packets, nprocs=request.np,
        layout=layout, design=request.design, block=block, agent=agent,
        calibrate_s=request.calibrate, pin_cores=ranks, **_work(request),
        groups=(DEFAULT_GROUPS if request.groups is None else request.groups)
        if request.design == "alternate" else 0,
    )
    _check_stream_memory(plan)
    profile = noise_profile(request.mpi)
    if show:
        agent_text = (f", agent {agent.describe()['command']} on CPU {agent.pinned_core}"
                      if agent else "")
        print(f"{request.detector}: {packets} packets of {request.packet:g} s on {request.np} "
              f"rank(s), layout {layout}, {request.design} design{agent_text}; about "
              f"{packets * request.packet + 5:.0f} s", flush=True)
    line = PacketLine(packets, quiet=request.quiet or not show)
    on_packet: Callable[[dict[str, Any]], None] = line
    stop_dir = None  # made once every check has passed: nothing left behind by a refusal
    if rule is not None:
        stop_dir = tempfile.TemporaryDirectory(prefix="mpiscope-stop-")
        plan = replace(plan, stop_file=f"{stop_dir.name}/stop")
        on_packet = until_decided(rule, line, block, f"{stop_dir.name}/stop",
                                  request.max or DEFAULT_MAX_S)
    warnings: list[str] = []

    def warn(text: str) -> None:
        warnings.append(text)
        if show:
            print(f"warning: {text}", file=sys.stderr)

    try:
        doc = run_detector(plan, profile, topology, out, timeout_s=request.timeout,
                           on_packet=on_packet, on_warning=warn)
    finally:
        if stop_dir is not None:
            stop_dir.cleanup()
    line.close()
    if rule is not None:
        doc["sequential"] = rule.document()
        write_document(doc, out)
    run = NoiseRun(out, doc, tuple(warnings))
    if show:
        print(run.text())
        print(f"\nnoise-run document: {out}")
    return run


# --- noise compare ---------------------------------------------------------------
def compare_documents(files: Sequence[str], confidence: float = 0.99,
                      alpha: float = 0.01) -> dict[str, Any]:
    """The noise verdict of one alternating run (its two samples and its
    ABBA pairs) or of two runs (baseline, agent), as ``noise compare`` gives it."""
    from mpiscope.noise.criteria import compare_run, compare_samples
    from mpiscope.noise.samples import two_samples
    from mpiscope.result.noise import load_noise

    if not 1 <= len(files) <= 2:
        raise MpiscopeError("compare takes one alternating run or two runs (baseline, agent)")
    docs = [load_noise(Path(f)) for f in files]
    (base, base_name), (test, test_name) = two_samples(docs, list(files))
    if len(docs) == 1:
        return compare_run(docs[0], files[0], confidence=confidence, alpha=alpha)
    return compare_samples(base, test, baseline_source=base_name, test_source=test_name,
                           confidence=confidence, alpha=alpha)


def noise_compare(*files: str | Path, confidence: float = 0.99,
                  alpha: float = 0.01) -> dict[str, Any]:
    """``mpiscope noise compare RUN [RUN]`` as Python: the verdict document
    (``verdict["detected"]``, ``["fired"]``, ``["criteria"]``, ``["limit"]``)."""
    for name, value in (("confidence", confidence), ("alpha", alpha)):
        if not 0 < value < 1:
            raise MpiscopeError(f"mpiscope.noise_compare(): {name}={value!r} is not in (0, 1)")
    return compare_documents([str(f) for f in files], confidence, alpha)
