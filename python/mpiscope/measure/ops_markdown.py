"""The operation reference (docs/operations.md) from the catalogue the
bench prints and the engine's description (its timing methods):
``mpiscope list-ops --markdown``. The checked-in file is tested to equal
this output, so it always matches the descriptors."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.measure.catalogue import OpInfo
from mpiscope.measure.op_options import ENGINE_OPTIONS
from mpiscope.result.describe import description

__all__ = ["render_markdown"]

_INTRO = """\
# Operations

Generated from the operation descriptors (src/ops) by
`mpiscope list-ops --markdown > docs/operations.md`; do not edit by hand
(a test compares the two).

Measure one with `mpiscope run NAME`; give its options with
`--option NAME=VALUE` (repeatable). Three options are parameters of the
engine with flags of their own:
{engine}.
Every operation has a validate hook: `mpiscope run --validate` checks
what every rank received in every launch, with data that changes from
launch to launch, and reports the first mismatch.

Time is per launch: the time of one call (collectives), one round trip
(`pingpong`, `roundtrip`, `multi_lat`), one window of messages (`bw`,
`bibw`, `mbw_mr`: bandwidth = window x size / time per pair), one epoch
(one-sided). The nonblocking forms (`i...`) time the call and its
`MPI_Wait`; with `compute_us` they compute in between, which
`mpiscope overlap` uses to measure overlap. The persistent forms
(`..._init`, MPI-4) time `MPI_Start` + `MPI_Wait`; they and the one-sided
operations keep one buffer pair for the whole point (the request or window
binds it), whatever `--cache` says. An MPI library without a call fails
the point with "not supported by this MPI library or machine".
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _summary(ops: Sequence[OpInfo]) -> list[str]:
    lines = ["| operation | description |", "| --- | --- |"]
    lines += [f"| [`{op.name}`](#{op.name}) | {_cell(op.description)} |" for op in ops]
    return lines


def _section(op: OpInfo) -> list[str]:
    lines = [f"### {op.name}", "", _cell(op.description), ""]
    lines.append(f"- size: {op.size_meaning}")
    if op.flags:
        lines.append(f"- uses: {', '.join(op.flags)}")
    if not op.options:
        return [*lines, "- options: none", ""]
    lines += ["", "| option | default | unit | meaning |", "| --- | --- | --- | --- |"]
    for o in op.options:
        default = f"`{o.default}`" if o.default else "(empty)"
        lines.append(f"| `{o.name}` | {default} | {o.unit or '-'} | {_cell(o.description)} |")
    return [*lines, ""]


def _methods() -> list[str]:
    """The timing methods, from the engine's own description."""
    lines = ["## Timing methods", "",
             "`mpiscope run --method NAME` (or several, for `mpiscope methods`); "
             "docs/method.md says how each works.", "",
             "| method | scheduled | applies to | parameters | description |",
             "| --- | --- | --- | --- | --- |"]
    for m in description()["methods"]:
        applies = m["applies_to"] if isinstance(m["applies_to"], str) else ", ".join(
            f"`{name}`" for name in m["applies_to"])
        if m.get("min_nprocs", 1) > 1:
            applies += f" (>= {m['min_nprocs']} ranks)"
        params = ", ".join(f"`{p['name']}` ({p['default']} {p['unit']})".replace(" 1)", ")")
                           for p in m["parameters"]) or "-"
        lines.append(f"| `{m['name']}` | {'yes' if m['scheduled'] else 'no'} | {applies} | "
                     f"{params} | {_cell(m['description'])} |")
    return [*lines, ""]


def render_markdown(ops: Sequence[OpInfo]) -> str:
    """The whole reference, ending with one newline."""
    engine = ", ".join(f"`{name}` ({flag})" for name, flag in ENGINE_OPTIONS.items())
    lines = [_INTRO.format(engine=engine), f"## All {len(ops)} operations", "", *_summary(ops), ""]
    lines += _methods()
    lines += ["## Reference", ""]
    for op in ops:
        lines += _section(op)
    return "\n".join(lines).rstrip("\n") + "\n"
