"""``mpiscope trace``: run an MPI program under the tracer, then look at it.

    mpiscope trace -o app.trace -- mpiexec -n 4 ./app args
    mpiscope trace --np 4 -o app.trace ./app args
    mpiscope trace summary app.trace
    mpiscope trace export app.trace --format perfetto|chrome|otf2 [-o FILE]
    mpiscope trace view app.trace

The tracer library (libmpiscope-trace.so, built for each MPI by ``make``)
is put in LD_PRELOAD: the program is not rebuilt, and its output is its
own (mpiscope's messages go to stderr). docs/tracer.md tells more.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError, RunFailedError

__all__ = ["add_parser", "run"]

VIEWS = ("summary", "export", "view")
FORMATS = {"perfetto": ".pftrace", "chrome": ".json", "otf2": ".otf2"}
KILL_GRACE_SECONDS = 5.0


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "trace",
        help="trace every MPI call of a program on a global clock; summarise, export, view",
        description="Run an MPI program under the mpiscope tracer (LD_PRELOAD), or look at a "
        "trace: 'mpiscope trace summary|export|view TRACE'.",
        epilog="Examples: mpiscope trace -o app.trace -- mpiexec -n 4 ./app args | "
        "mpiscope trace --np 4 -o app.trace ./app | mpiscope trace summary app.trace | "
        "mpiscope trace export app.trace --format perfetto | mpiscope trace view app.trace",
    )
    parser.add_argument("-o", "--out", metavar="DIR", default="mpiscope.trace",
                        help="trace directory to write (default: mpiscope.trace)")
    parser.add_argument("--force", action="store_true", help="replace an existing trace")
    parser.add_argument("--np", type=int, metavar="N",
                        help="launch PROGRAM with the selected MPI's mpiexec on N ranks")
    parser.add_argument("--mpi", metavar="NAME",
                        help="MPI installation whose tracer library to use (default: MPISCOPE_MPI)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="stop the program after this long (its trace is kept)")
    parser.add_argument("--records", type=int, metavar="N",
                        help="records per thread before further calls are dropped "
                        "(default 1048576, 64 bytes each, allocated up front)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the launcher command (after --), the PROGRAM with --np, or "
                        "summary|export|view TRACE")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if command and command[0] in VIEWS:
        return _view_command(command)
    if not command:
        raise MpiscopeError("nothing to trace: give a command after -- (mpiscope trace -o DIR "
                            "-- mpiexec -n 4 ./app) or a program with --np")
    return _trace(args, command)


# --- tracing ------------------------------------------------------------------

def tracer_library(mpi: str | None) -> tuple[Any, str]:
    """The selected MPI profile and its tracer library (MPISCOPE_TRACE_LIB overrides)."""
    from mpiscope.mpi_profile import select_profile

    profile = select_profile(mpi)
    lib = os.environ.get("MPISCOPE_TRACE_LIB") or os.path.join(
        profile.prefix, "lib", "libmpiscope-trace.so")
    if not os.path.isfile(lib):
        raise MpiscopeError(f"no tracer library at {lib} (MPI {profile.name!r}): run `make` "
                            "(or make MPI=openmpi), or set MPISCOPE_TRACE_LIB")
    return profile, lib


def _prepare_dir(out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise MpiscopeError(f"{out} exists and is not a directory")
    old = sorted(out.glob("rank-*.mst")) if out.is_dir() else []
    if old and not force:
        raise MpiscopeError(f"{out} already holds a trace (use --force to replace it)")
    for f in old:
        f.unlink()
    out.mkdir(parents=True, exist_ok=True)


def _trace(args: argparse.Namespace, command: list[str]) -> int:
    from mpiscope.launcher import build_env, format_command, mpiexec_command

    if args.np is not None and args.np < 1:
        raise MpiscopeError(f"--np must be at least 1, not {args.np}")
    if args.records is not None and args.records < 16:
        raise MpiscopeError(f"--records must be at least 16, not {args.records}")
    if args.timeout is not None and args.timeout <= 0:
        raise MpiscopeError(f"--timeout must be positive, not {args.timeout:g}")
    profile, lib = tracer_library(args.mpi)
    argv = command
    if args.np is not None:
        argv = mpiexec_command(profile, args.np, oversubscribe=args.np > 2) + command
        profile.check_mpiexec()
    out = Path(args.out).resolve()
    _prepare_dir(out, args.force)
    env = build_env(profile)
    env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["MPISCOPE_TRACE_DIR"] = str(out)
    if args.records is not None:
        env["MPISCOPE_TRACE_RECORDS"] = str(args.records)
    code = _run_passthrough(argv, env, args.timeout)
    files = sorted(out.glob("rank-*.mst"))
    where = f"{len(files)} rank file(s) in {args.out}"
    if code != 0:
        raise RunFailedError(f"{format_command(argv)} exited with code {code}; "
                             f"{'partial trace: ' + where if files else 'no trace written'}")
    if not files:
        raise RunFailedError(f"{format_command(argv)} wrote no trace: did it call MPI_Init "
                             "(or MPI_Session_init), and is it linked with the MPI of "
                             f"profile {profile.name!r}?")
    _say(f"mpiscope: traced: {where}; next: mpiscope trace summary {args.out}")
    return 0


def _say(text: str) -> None:
    import sys

    print(text, file=sys.stderr)


def _run_passthrough(argv: Sequence[str], env: dict[str, str], timeout: float | None) -> int:
    """Run with the terminal's stdout and stderr; stop the whole group on
    timeout or Ctrl-C (SIGTERM first: the ranks then write their traces)."""
    try:
        proc = subprocess.Popen(list(argv), env=env, start_new_session=True)
    except OSError as exc:
        raise MpiscopeError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise RunFailedError(f"the program did not finish within --timeout {timeout:g} s and "
                             "was stopped; its partial trace is kept") from None
    except BaseException:
        _stop(proc)
        raise


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + KILL_GRACE_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return
            time.sleep(0.05)


# --- looking at a trace -------------------------------------------------------

def _view_parser(name: str) -> argparse.ArgumentParser:
    from mpiscope.cli import _Parser

    parser = _Parser(prog=f"mpiscope trace {name}")
    parser.add_argument("trace", metavar="TRACE", help="trace directory")
    if name == "summary":
        parser.add_argument("--top", type=int, default=15, metavar="N",
                            help="rows of the function and call-site tables (15)")
    if name == "export":
        parser.add_argument("--format", required=True, choices=sorted(FORMATS),
                            help="perfetto (ui.perfetto.dev), chrome (JSON), otf2 (Vampir)")
    parser.add_argument("-o", "--out", metavar="FILE",
                        help="output (default: TRACE with the format's suffix)")
    return parser


def _view_command(command: list[str]) -> int:
    from mpiscope.trace.merge import load

    name = command[0]
    args = _view_parser(name).parse_args(command[1:])
    merged = load(args.trace)
    base = Path(args.trace.rstrip("/"))
    if name == "summary":
        from mpiscope.trace.summary import render_summary

        if args.top < 1:
            raise MpiscopeError(f"--top must be at least 1, not {args.top}")
        print(render_summary(merged, top=args.top))
        return 0
    if name == "export":
        out = Path(args.out) if args.out else base.with_name(base.name + FORMATS[args.format])
        arrows = _export(merged, args.format, out)
        _say(f"mpiscope: wrote {out} ({arrows} message arrows)")
        return 0
    return _view(merged, base, Path(args.out) if args.out else None)


def _export(merged: Any, fmt: str, out: Path) -> int:
    if fmt == "perfetto":
        from mpiscope.trace.perfetto import write_perfetto

        return write_perfetto(merged, out)
    if fmt == "chrome":
        from mpiscope.trace.chrome import write_chrome

        return write_chrome(merged, out)
    from mpiscope.trace.otf2 import write_otf2

    write_otf2(merged, out)
    return len(merged.messages)


def _view(merged: Any, base: Path, html_out: Path | None) -> int:
    from mpiscope.trace.html import write_html

    html_path = html_out or base.with_name(base.name + ".html")
    pftrace = base.with_name(base.name + ".pftrace")
    try:
        _export(merged, "perfetto", pftrace)
        perfetto_note = (f"for large traces, open {pftrace} at https://ui.perfetto.dev "
                         "(Open trace file): one track per rank, arrows per message")
    except MpiscopeError as exc:
        perfetto_note = f"no Perfetto file: {exc}"
    try:
        write_html(merged, html_path)
    except MpiscopeError as exc:
        _say(f"mpiscope: no HTML timeline: {exc}")
        _say(f"mpiscope: {perfetto_note}")
        return 0
    print(f"timeline: {html_path} (open it in any browser)")
    print(perfetto_note)
    return 0
