"""``mpiscope trace`` as Python: trace a program, open a trace.

::

    import mpiscope

    traced = mpiscope.trace_program("./app", "arg", np=4, out="app.trace")
    print(traced.summary())             # what `mpiscope trace summary` prints
    for f in traced.analysis().functions:          # time in MPI by function
        print(f.name, f.calls, f.total_ns)
    mpiscope.open_trace("app.trace").export("perfetto")

The command line (``mpiscope/commands/trace.py``) is a thin layer over
:func:`record_trace`; the options are :func:`add_trace_options`, read from
keywords by the same parser (:func:`mpiscope.api.options.parse_options`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.api.options import api_call, parse_options
from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.parsing import MAX_RANKS, float_in, int_in

__all__ = [
    "EXPORT_SUFFIXES",
    "LAUNCHERS",
    "TraceRequest",
    "Traced",
    "add_trace_options",
    "open_trace",
    "record_trace",
    "trace_program",
]

MAX_RECORDS = 1 << 24  # per half buffer: 1 GiB (src/tracer/config.c)
MAX_TIMEOUT = 30 * 86400.0
#: Programs that launch MPI jobs: a command that starts with one brings its own ranks.
LAUNCHERS = ("mpiexec", "mpirun", "mpiexec.hydra", "orterun", "srun", "aprun", "jsrun",
             "prterun", "smpirun")  # fmt: skip
#: The export formats and the suffix of the file each writes by default.
EXPORT_SUFFIXES = {"perfetto": ".pftrace", "chrome": ".json", "otf2": ".otf2"}


def add_trace_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``mpiscope trace`` (and of :func:`trace_program`)."""
    add = parser.add_argument
    add("-o", "--out", metavar="DIR", default="mpiscope.trace",
        help="trace directory to write (default: mpiscope.trace)")  # fmt: skip
    add("--force", action="store_true", help="replace an existing trace")
    add("--np", type=int_in(1, MAX_RANKS), metavar="N",
        help="launch PROGRAM with the selected MPI's mpiexec on N ranks "
        "(beyond the cores: oversubscribed, at most 16 ranks a core)")  # fmt: skip
    add("--mpi", metavar="NAME",
        help="MPI installation whose tracer library to use (default: MPISCOPE_MPI)")  # fmt: skip
    add("--timeout", type=float_in(0, MAX_TIMEOUT, low_open=True), metavar="SECONDS",
        help="stop the program after this long (its trace is kept)")  # fmt: skip
    add("--records", type=int_in(16, MAX_RECORDS), metavar="N",
        help="records per half buffer, 16 to 16777216 (default 4096): each thread has two "
        "halves of 64-byte records, allocated up front; a full half is written to the trace "
        "file, and a killed rank loses at most its current half")  # fmt: skip


@dataclass(frozen=True)
class TraceRequest:
    """What to trace and how: the command (a launcher command, or the
    program and its arguments with ``np``) and the options of
    :func:`add_trace_options`."""

    command: tuple[str, ...]
    out: str
    force: bool
    np: int | None
    mpi: str | None
    timeout: float | None
    records: int | None

    @classmethod
    def of(cls, values: Mapping[str, Any], command: Sequence[str]) -> TraceRequest:
        names = ("out", "force", "np", "mpi", "timeout", "records")
        return cls(tuple(command), **{name: values[name] for name in names})


@dataclass(frozen=True)
class Traced:
    """A trace on disk: its directory, its rank files, and the traces of the
    other MPI worlds the program spawned (each a trace of its own)."""

    directory: Path
    files: tuple[Path, ...]
    worlds: tuple[Path, ...] = ()

    def stream(self) -> Any:
        """The trace read as a stream of calls in time order
        (:class:`mpiscope.trace.stream.Stream`; memory bounded)."""
        from mpiscope.trace.stream import open_stream

        return open_stream(self.directory)

    def analysis(self) -> Any:
        """Time in MPI per rank and per function, waits, collectives, sizes
        (:class:`mpiscope.trace.analysis.Analysis`)."""
        from mpiscope.trace.analysis import analyze

        return analyze(self.stream())

    def summary(self, top: int = 15) -> str:
        """What ``mpiscope trace summary`` prints (without its heat map)."""
        from mpiscope.trace.summary import render_summary

        return render_summary(self.stream(), top=top)

    def export(self, fmt: str = "perfetto", out: str | Path | None = None) -> Path:
        """Write the trace as ``fmt`` (perfetto, chrome, otf2) to ``out``
        (default: beside the trace, as ``mpiscope trace export`` names it)."""
        from mpiscope.trace.export import export_trace

        if fmt not in EXPORT_SUFFIXES:
            raise MpiscopeError(f"no export format {fmt!r} (one of: {', '.join(EXPORT_SUFFIXES)})")
        base = self.directory
        path = Path(out) if out is not None else base.with_name(base.name + EXPORT_SUFFIXES[fmt])
        export_trace(self.stream(), fmt, path)
        return path


def open_trace(path: str | Path) -> Traced:
    """A trace written earlier (``mpiscope trace -o PATH``); one line when
    ``path`` holds none."""
    from mpiscope.trace.reader import other_worlds
    from mpiscope.trace.record import rank_files

    directory = Path(path)
    files = rank_files(directory)
    if not files:
        raise MpiscopeError(f"{path}: no trace there (no rank-*.mst file)")
    return Traced(directory, tuple(files), tuple(other_worlds(directory)))


def trace_program(program: str | Sequence[str], *args: str, **options: Any) -> Traced:
    """Run an MPI program under the tracer, as ``mpiscope trace`` does.

    ``program``: the program (with ``np=N``: mpiscope starts it on N ranks
    with the selected MPI's mpiexec), or a whole launcher command
    (``["mpiexec", "-n", "4", "./app"]``); ``args``: its arguments.
    ``options``: those of ``mpiscope trace`` by name (``np``, ``out``,
    ``force``, ``mpi``, ``timeout``, ``records``). The program's output is
    its own; returns the trace, or raises RunFailedError (the partial trace
    is kept) when the program fails."""
    command = [program] if isinstance(program, str) else list(program)
    command += list(args)
    with api_call(options, quiet=False):  # mpiscope trace has no progress line
        values = parse_options("trace", add_trace_options, (), options, "trace_program")
        return record_trace(TraceRequest.of(values, command), say=False)


def record_trace(request: TraceRequest, say: bool = True) -> Traced:
    """Trace ``request.command``; with ``say``, the lines the command line
    prints on stderr (a note when oversubscribed, where the trace is)."""
    from mpiscope.launcher import format_command, mpiexec_command, run_passthrough
    from mpiscope.measure.plan import available_cores, check_ranks
    from mpiscope.outputs import check_output_dir
    from mpiscope.trace.reader import other_worlds
    from mpiscope.trace.record import (
        check_program,
        prepare_dir,
        rank_files,
        traced_env,
        tracer_library,
    )

    command = list(request.command)
    if not command:
        raise MpiscopeError("nothing to trace: give a command after -- (mpiscope trace -o DIR "
                            "-- mpiexec -n 4 ./app) or a program with --np")  # fmt: skip
    launcher = Path(command[0]).name in LAUNCHERS
    if request.np is not None and launcher:
        raise MpiscopeError(f"--np {request.np} and the launcher {command[0]} both start the "
                            "ranks: give --np and the program, or the launcher command alone")
    found = check_program(command[0], "the program" if request.np is not None else "the command")
    out = check_output_dir(request.out, "-o", create=False)  # the user's input before the MPI's
    profile, lib = tracer_library(request.mpi)
    if launcher:  # the tracer preloaded under another MPI's ranks would not load
        profile.check_launcher(found, f"the launcher {command[0]} ({found})")
    argv = command
    if request.np is not None:
        oversubscribed = check_ranks(request.np, oversubscribe=True, flag="--np")
        argv = mpiexec_command(profile, request.np, oversubscribe=oversubscribed) + command
        profile.check_mpiexec()
        if oversubscribed and say:
            _say(f"mpiscope: note: --np {request.np} on {available_cores()} cores: "
                 "oversubscribed")  # fmt: skip
    prepare_dir(out, request.force)
    try:
        code = run_passthrough(argv, traced_env(profile, lib, out, request.records),
                               request.timeout)  # fmt: skip
    except RunFailedError as exc:
        raise RunFailedError(f"{exc}; its partial trace is kept") from None
    files = rank_files(out)
    where = f"{len(files)} rank file(s) in {request.out}"
    worlds = other_worlds(out)  # spawned jobs (MPI_Comm_spawn): a trace each
    world_files = [f for w in worlds for f in rank_files(w)]
    if worlds:
        where += (f", {len(world_files)} more in {len(worlds)} other MPI world(s) "
                  f"({_names(worlds)}: each a trace of its own)")
    short = _short_files(files + world_files, out)
    if code != 0:  # a program that failed after MPI_Finalize left a whole trace
        kept = ("no trace written" if not files else f"partial trace: {where}; {short}" if short
                else f"its trace is whole: {where}")
        raise RunFailedError(f"{format_command(argv)} exited with code {code}; {kept}")
    if not files:
        raise RunFailedError(f"{format_command(argv)} wrote no trace: did it call MPI_Init "
                             "(or MPI_Session_init), and is it linked with the MPI of "
                             f"profile {profile.name!r}?")
    if short:
        raise RunFailedError(f"the trace in {request.out} is incomplete though the program "
                             f"exited 0: {short}")
    if say:
        _say(f"mpiscope: traced: {where}; next: mpiscope trace summary {request.out}")
    return Traced(out, tuple(files), tuple(worlds))


def _names(worlds: list[Path]) -> str:
    if len(worlds) > 3:
        return f"{worlds[0].name} to {worlds[-1].name}"
    return ", ".join(w.name for w in worlds)


def _short_files(files: list[Path], out: Path) -> str:
    """The rank files that lack data, with why ("" when none does)."""
    from mpiscope.trace.reader import check_rank_file

    short = []
    for f in files:
        try:
            reason = check_rank_file(f)
        except OSError as exc:
            reason = f"unreadable ({exc.strerror or exc})"
        if reason:
            short.append(f"{f.relative_to(out)} is short: {reason}")
    if len(short) > 3:
        short = short[:3] + [f"and {len(short) - 3} more"]
    return "; ".join(short)


def _say(text: str) -> None:
    print(text, file=sys.stderr)
