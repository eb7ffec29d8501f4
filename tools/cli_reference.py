#!/usr/bin/env python3
"""Write docs/reference.md, the command reference, from the command line's
own argparse definitions (mpiscope.cli.build_parser): every command and
subcommand, its usage, its arguments and options with their defaults.

    python tools/cli_reference.py            # rewrite docs/reference.md
    python tools/cli_reference.py --check    # exit 1 when it is out of date

The text is built from the parser's actions, not from argparse's help
formatter, so it is the same on every Python version and terminal width.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "reference.md"
REGENERATE = "python tools/cli_reference.py"
WIDTH = 88  # of the usage blocks

HEAD = f"""# Command reference

Generated from the command line's argparse definitions by
`{REGENERATE}`; do not edit by hand (a test compares the two).
Each command's page says what it measures and how to read it:
[the mpiscope command](cli.md) and the pages under "Commands".

Exit codes: 0 success, 1 the run failed (or, for `compare`, `noise
compare`, `health`, a regression, noise or a suspect found), 2 bad input,
130 interrupted. Every error is one line, `mpiscope: error: ...`.
"""


Sub = tuple[str, str, argparse.ArgumentParser]

#: `mpiscope trace` reads its views (summary, export, view, heatmap) from its
#: command words itself, not through argparse subparsers
#: (mpiscope.commands.trace: VIEWS, _view_parser): their parsers are
#: documented as its subcommands all the same, with these one-liners.
TRACE_VIEWS = {
    "summary": "the tables: time in MPI per rank and function, call sites, late senders and "
               "receivers, collectives, matching across ranks (mpiP-style)",
    "export": "write the trace for Perfetto, Chrome or OTF2 (Vampir, Scalasca)",
    "view": "a self-contained HTML timeline, and a Perfetto file",
    "heatmap": "time in MPI per rank over time, in the terminal or as PNG, SVG, PDF, HTML",
}


def subcommands(parser: argparse.ArgumentParser) -> Iterator[Sub]:
    """(name, one-line help, parser) of each subcommand, in the order of --help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def hand_dispatched(prog: str) -> list[Sub]:
    """The subcommands a command dispatches by hand (TRACE_VIEWS)."""
    if prog != "mpiscope trace":
        return []
    from mpiscope.commands import trace

    assert set(trace.VIEWS) == set(TRACE_VIEWS), "mpiscope trace's views changed: TRACE_VIEWS"
    return [(name, TRACE_VIEWS[name], trace._view_parser(name)) for name in trace.VIEWS]


def metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    if action.choices is not None and not action.option_strings:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def spelled(action: argparse.Action) -> str:
    """``--np N``, ``-o FILE, --out FILE``, ``OPS``, ``[CMD ...]``."""
    if not action.option_strings:
        name = metavar(action)
        return {"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} [{name} ...]",
                argparse.REMAINDER: f"[{name} ...]"}.get(action.nargs, name)  # fmt: skip
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    value = metavar(action)
    if action.nargs in ("+", "*"):
        value = f"{value} [{value} ...]"
    elif action.nargs == "?":
        value = f"[{value}]"
    return ", ".join(f"{o} {value}" for o in action.option_strings)


def documented(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.help != argparse.SUPPRESS
            and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]  # fmt: skip


def usage(prog: str, parser: argparse.ArgumentParser) -> str:
    """The usage line, wrapped at WIDTH with a hanging indent."""
    parts = []
    for action in documented(parser):
        forms = spelled(action).split(", ")
        text = max(forms, key=len) if action.option_strings else forms[0]
        parts.append(text if action.required or not action.option_strings else f"[{text}]")
    if any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
        parts.append("SUBCOMMAND ...")
    lines, line = [], prog
    for part in parts:
        if len(line) + 1 + len(part) > WIDTH and line.strip():
            lines.append(line)
            line = " " * 4 + part
        else:
            line = f"{line} {part}"
    lines.append(line)
    return "\n".join(lines)


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def help_text(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:
        params = dict(vars(action), prog=prog)
        if action.choices is not None:
            params["choices"] = ", ".join(map(str, action.choices))
        text = text % params
    return text


def default(action: argparse.Action) -> str:
    value = action.default
    if value is None or value is argparse.SUPPRESS or action.nargs == 0 or value == []:
        return ""
    if isinstance(value, (list, tuple)):
        value = ",".join(map(str, value))
    return f"`{value}`"


def table(prog: str, actions: list[argparse.Action], positional: bool) -> list[str]:
    rows = [a for a in actions if bool(a.option_strings) != positional]
    if not rows:
        return []
    title = "argument" if positional else "option"
    out = [f"| {title} | default | meaning |", "| --- | --- | --- |"]
    for action in rows:
        meaning = help_text(action, prog)
        if action.choices is not None and not isinstance(action.choices, dict) \
                and ", ".join(map(str, action.choices)) not in meaning:
            meaning = f"{meaning} (one of: {', '.join(map(str, action.choices))})"
        out.append(f"| `{cell(spelled(action))}` | {cell(default(action))} | {cell(meaning)} |")
    return [*out, ""]


def section(prog: str, summary: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    out = [f"{'#' * level} {prog}", ""]
    for text in (summary, parser.description or ""):
        if text:
            out += [" ".join(text.split()), ""]
    out += ["```", usage(prog, parser), "```", ""]
    actions = documented(parser)
    out += table(prog, actions, positional=True) + table(prog, actions, positional=False)
    subs = list(subcommands(parser)) + hand_dispatched(prog)
    if subs:
        out += ["| subcommand | does |", "| --- | --- |"]
        out += [f"| [`{name}`](#{(prog + ' ' + name).replace(' ', '-')}) | {cell(text)} |"
                for name, text, _ in subs]  # fmt: skip
        out.append("")
    for name, text, sub in subs:
        out += section(f"{prog} {name}", text, sub, min(level + 1, 4))
    return out


def reference() -> str:
    """The whole page."""
    from mpiscope.cli import build_parser

    parser = build_parser()
    lines = [HEAD, "| command | does |", "| --- | --- |"]
    commands = list(subcommands(parser))
    lines += [f"| [`mpiscope {name}`](#mpiscope-{name}) | {cell(text)} |"
              for name, text, _ in commands]  # fmt: skip
    lines.append("")
    for name, text, sub in commands:
        lines += section(f"mpiscope {name}", text, sub, 2)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    p.add_argument("--out", type=Path, default=OUT, help="the file (default docs/reference.md)")
    args = p.parse_args(argv)
    text = reference()
    if args.check:
        if not args.out.exists() or args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out} is out of date: run {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
