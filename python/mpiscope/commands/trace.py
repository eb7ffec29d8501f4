"""``mpiscope trace``: run an MPI program under the tracer, then look at it.

    mpiscope trace -o app.trace -- mpiexec -n 4 ./app args
    mpiscope trace --np 4 -o app.trace ./app args
    mpiscope trace summary app.trace
    mpiscope trace export app.trace --format perfetto|chrome|otf2 [-o FILE]
    mpiscope trace view app.trace
    mpiscope trace heatmap app.trace [-o app.heatmap.png|.svg|.pdf|.html|.txt]

The tracer is put under the program by :mod:`mpiscope.trace.record`; the
program's output is its own (mpiscope's messages go to stderr).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mpiscope.api.trace import EXPORT_SUFFIXES, add_trace_options
from mpiscope.errors import MpiscopeError
from mpiscope.parsing import Parser, float_in, int_in

__all__ = ["add_parser", "run"]

_T = TypeVar("_T")

VIEWS = ("summary", "export", "view", "heatmap")
HEATMAP_SUFFIXES = (".png", ".svg", ".pdf", ".html", ".txt")
HEATMAP_ROWS = 200  # rows of a picture: more ranks are grouped
SUMMARY_BINS, SUMMARY_ROWS = 60, 16
#: The longest window bound (--from, --to), seconds.
MAX_WINDOW_S = 1e9


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "trace",
        help="trace every MPI call of a program on a global clock; summarize, export, view",
        description="Run an MPI program under the mpiscope tracer (LD_PRELOAD), or look at a "
        "trace: 'mpiscope trace summary|export|view|heatmap TRACE'.",
        epilog="Examples: mpiscope trace -o app.trace -- mpiexec -n 4 ./app args | "
        "mpiscope trace --np 4 -o app.trace ./app | mpiscope trace summary app.trace | "
        "mpiscope trace export app.trace --format perfetto | mpiscope trace view app.trace | "
        "mpiscope trace heatmap app.trace [-o app.heatmap.png]",
    )
    add_trace_options(parser)
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the launcher command (after --), the PROGRAM with --np, or "
                        "summary|export|view|heatmap TRACE")
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

def _trace(args: argparse.Namespace, command: list[str]) -> int:
    from mpiscope.api.trace import TraceRequest, record_trace

    record_trace(TraceRequest.of(vars(args), command))
    return 0


def _say(text: str) -> None:
    print(text, file=sys.stderr)


# --- looking at a trace -------------------------------------------------------

def _view_parser(name: str) -> argparse.ArgumentParser:
    parser = Parser(prog=f"mpiscope trace {name}")
    parser.add_argument("trace", metavar="TRACE", help="trace directory")
    if name == "summary":
        parser.add_argument("--top", type=int_in(1, 100000), default=15, metavar="N",
                            help="rows of the function and call-site tables (15)")
    if name == "export":
        parser.add_argument("--format", required=True, choices=sorted(EXPORT_SUFFIXES),
                            help="perfetto (ui.perfetto.dev), chrome (JSON), otf2 (Vampir)")
    if name == "heatmap":
        _heatmap_options(parser)
    parser.add_argument("-o", "--out", metavar="FILE",
                        help="write the tables to FILE (default: standard output)"
                        if name == "summary" else
                        "the picture: .png, .svg, .pdf, .html (or .txt: the text) (default: "
                        "the text on standard output)" if name == "heatmap" else
                        "output (default: TRACE with the format's suffix)")
    return parser


def _heatmap_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bins", type=int_in(1, 100000), metavar="N",
                        help="time bins over the window (default: 200 in a picture, the "
                        "terminal's width in text)")
    parser.add_argument("--function", action="append", default=[], metavar="F",
                        help="color by the time in these functions (names or patterns, "
                        "MPI_ optional: Wait*, MPI_Allreduce; repeat or comma-separate); "
                        "default: every MPI function")
    parser.add_argument("--class", dest="classes", action="append", default=[], metavar="C",
                        help="color by the time in functions of this class (collective, "
                        "recv, completion, ...: see docs/trace-format.md)")
    parser.add_argument("--top", type=int_in(0, 10000), default=8, metavar="K",
                        help="functions in the breakdown (8; 0: none)")
    parser.add_argument("--rows", type=int_in(1, 100000), metavar="N",
                        help="at most N rows: more ranks are grouped (default: 200 in a "
                        "picture, 64 in text)")
    parser.add_argument("--whole", action="store_true",
                        help="the whole run (default: from the end of MPI_Init to the start "
                        "of MPI_Finalize)")
    parser.add_argument("--from", dest="start", type=float_in(0, MAX_WINDOW_S),
                        metavar="SECONDS",
                        help="start of the window, seconds from the trace's start")
    parser.add_argument("--to", dest="end", type=float_in(0, MAX_WINDOW_S), metavar="SECONDS",
                        help="end of the window, seconds from the trace's start")
    parser.add_argument("--text", action="store_true",
                        help="print the text too when writing a picture")
    parser.add_argument("--ascii", action="store_true",
                        help="text with ASCII shades (.:-=+*#@) instead of block characters")


def _writing(out: Path, write: Callable[[], _T]) -> _T:
    """Run a writer of `out`; a file system's refusal is one error line (the
    writers of :mod:`mpiscope.outputs` say it themselves; the OTF2 library
    raises its own)."""
    try:
        return write()
    except OSError as exc:
        raise MpiscopeError(f"cannot write {out}: {exc.strerror or exc}") from None


def _output(name: str | Path, trace: Path, what: str = "-o") -> Path:
    """An output of a view of ``trace``, checked before the trace is read:
    never one of its files."""
    from mpiscope.outputs import check_output

    return check_output(name, inputs=[trace], what=what)


def _view_command(command: list[str]) -> int:
    from mpiscope.outputs import write_text
    from mpiscope.trace.export import export_trace
    from mpiscope.trace.stream import open_stream

    name = command[0]
    args = _view_parser(name).parse_args(command[1:])
    base = Path(args.trace.rstrip("/"))
    if name == "heatmap":
        _check_heatmap_args(args)
    out: Path | None = None
    if name == "export":
        default = base.with_name(base.name + EXPORT_SUFFIXES[args.format])
        if args.format != "otf2":  # an archive: a directory, checked by its writer
            out = _output(args.out or default, base)
        else:
            out = Path(args.out or default)
    elif args.out is not None:
        out = _output(args.out, base)
    stream = open_stream(args.trace)  # headers and a first pass: memory bounded
    if name == "heatmap":
        return _heatmap(stream, args, out)
    if name == "export":
        assert out is not None
        written = out
        arrows = _writing(written, lambda: export_trace(stream, args.format, written))
        _say(f"mpiscope: wrote {written} ({arrows} arrows)")
        return 0
    if name == "summary":
        from mpiscope.trace.summary import render_summary

        text = render_summary(stream, top=args.top) + "\n" + _summary_heatmap(stream, base)
        if out is None:
            print(text)
            return 0
        write_text(out, text + "\n", what="-o")
        _say(f"mpiscope: wrote {out}")
        return 0
    return _view(stream, base, out)


def _view(stream: Any, base: Path, html_out: Path | None) -> int:
    from mpiscope.trace.export import export_trace
    from mpiscope.trace.html import MAX_HTML_CALLS, write_html
    from mpiscope.trace.merge import load

    html_path = html_out or _output(base.with_name(base.name + ".html"), base)
    pftrace = base.with_name(base.name + ".pftrace")
    try:
        _writing(pftrace, lambda: export_trace(stream, "perfetto", pftrace))
        perfetto_note = (f"for large traces, open {pftrace} at https://ui.perfetto.dev "
                         "(Open trace file): one track per rank, arrows per message")
    except MpiscopeError as exc:
        perfetto_note = f"no Perfetto file: {exc}"
    try:
        if stream.calls_total > MAX_HTML_CALLS:  # not read into memory at all
            raise MpiscopeError(f"the trace has {stream.calls_total} calls, too many for the "
                                f"HTML view (at most {MAX_HTML_CALLS}): use the Perfetto file")
        write_html(load(stream.trace.directory), html_path, _heatmap_panel(stream))
    except OSError as exc:
        raise MpiscopeError(f"cannot write {html_path}: {exc.strerror or exc}") from None
    except MpiscopeError as exc:
        _say(f"mpiscope: no HTML timeline: {exc}")
        _say(f"mpiscope: {perfetto_note}")
        return 0
    print(f"timeline: {html_path} (open it in any browser)")
    print(perfetto_note)
    return 0


# --- the heat map -------------------------------------------------------------

def _check_heatmap_args(args: argparse.Namespace) -> None:
    if args.out is not None and Path(args.out).suffix.lower() not in HEATMAP_SUFFIXES:
        raise MpiscopeError(f"-o {args.out}: the heat map is written as "
                            f"{', '.join(HEATMAP_SUFFIXES)} (chosen by the suffix)")
    if args.start is not None and args.end is not None and args.start >= args.end:
        raise MpiscopeError(f"--from {args.start:g} is not before --to {args.end:g}")
    if args.whole and (args.start is not None or args.end is not None):
        raise MpiscopeError("--whole and --from/--to choose the window twice: give one")


def _heatmap(stream: Any, args: argparse.Namespace, out: Path | None) -> int:
    import shutil

    from mpiscope.trace.heatmap import DEFAULT_BINS, compute_heatmap, select_functions
    from mpiscope.trace.heatmap_text import render_text

    functions = [f for text in args.function for f in text.split(",") if f.strip()]
    selection = select_functions(stream, [f.strip() for f in functions], args.classes)
    text_only = out is None or out.suffix.lower() == ".txt"
    bins = args.bins or (DEFAULT_BINS if not text_only else
                         min(DEFAULT_BINS, max(20, shutil.get_terminal_size().columns - 34)))
    hm = compute_heatmap(stream, bins, selection, args.whole, args.start, args.end)
    rows = args.rows or (64 if text_only else HEATMAP_ROWS)
    if text_only or args.text:
        text = render_text(hm, rows, args.top, args.ascii)
        if out is None or args.text:
            print(text)
        if out is not None and out.suffix.lower() == ".txt":
            from mpiscope.outputs import write_text

            write_text(out, text + "\n", what="-o")
    if out is not None and out.suffix.lower() != ".txt":
        _heatmap_picture(hm, out, rows, args.top)
    if out is not None:
        _say(f"mpiscope: wrote {out}")
    return 0


def _heatmap_picture(hm: Any, out: Path, rows: int, top: int) -> None:
    from mpiscope.trace.heatmap import heatmap_data

    data = heatmap_data(hm, rows, top)
    from mpiscope import outputs

    if out.suffix.lower() == ".html":
        from mpiscope.trace.heatmap_html import render_heatmap_page

        outputs.write_text(out, render_heatmap_page(data), what="-o")
        return
    import dataclasses

    from mpiscope.reports.plots.activity import ActivityMap, render_activity

    fields = {f.name: data[f.name] for f in dataclasses.fields(ActivityMap)}
    outputs.write_bytes(out, render_activity(ActivityMap(**fields), out.suffix.lower()[1:]),
                        what="-o")


def _heatmap_panel(stream: Any) -> str:
    """The heat map panel of the HTML view (a click on a cell zooms the timeline)."""
    from mpiscope.trace.heatmap import DEFAULT_BINS, compute_heatmap, heatmap_data
    from mpiscope.trace.heatmap_html import render_heatmap_panel

    try:
        data = heatmap_data(compute_heatmap(stream, DEFAULT_BINS), HEATMAP_ROWS, top=8)
    except MpiscopeError as exc:  # the timeline is still worth having
        _say(f"mpiscope: no heat map above the timeline: {exc}")
        return ""
    return render_heatmap_panel(data, clickable=True)


def _summary_heatmap(stream: Any, base: Path) -> str:
    """The summary's compact heat map: a line per rank (or group of ranks)."""
    from mpiscope.trace.heatmap import compute_heatmap
    from mpiscope.trace.heatmap_text import render_text

    try:
        hm = compute_heatmap(stream, SUMMARY_BINS)
    except MpiscopeError as exc:  # the tables are still worth having
        return f"\nTime in MPI over the run: no heat map ({exc})"
    return (f"\nTime in MPI over the run (more: mpiscope trace heatmap {base}, "
            "-o heatmap.png|.html)\n" + render_text(hm, SUMMARY_ROWS, top=0, title=False))
