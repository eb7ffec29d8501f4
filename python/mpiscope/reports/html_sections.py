"""Sections of the HTML report beyond the point table: the tails of every
point with their distribution-free intervals, the bias ledger against
OSU and IMB (the same rows as ``report --tails`` and ``mpiscope explain``),
each thread's time and what the numbers depend on (reports/parts.py)."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.html_page import escape as _e
from mpiscope.reports.ledger import TITLES, ledger_rows, point_title, result_ledgers
from mpiscope.reports.parts import PART_TITLES, op_notes, parts_rows
from mpiscope.reports.tails import TAIL_TITLES, tail_note, tail_rows
from mpiscope.result import Result
from mpiscope.result.ledger import has_ledger
from mpiscope.result.units import format_percent

__all__ = ["ledger_html", "notes_html", "parts_html", "table_html", "tails_html"]


def table_html(titles: Sequence[str], aligns: str, rows: Sequence[Sequence[str]],
               css: str = "points") -> str:  # fmt: skip
    """A table: ``aligns`` has ``>`` for the number columns."""
    head = "".join(f"<th>{_e(t)}</th>" for t in titles)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{_e(c)}</td>' if a == ">" else f"<td>{_e(c)}</td>"
                         for c, a in zip(row, aligns, strict=True)) + "</tr>"
        for row in rows
    )  # fmt: skip
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def tails_html(result: Result) -> str:
    """The tail table (empty for a document from before schema 1.6)."""
    rows = tail_rows(result)
    if not rows:
        return ""
    note = tail_note(result)
    return ("<h3>Tails</h3>" + f'<p class="note">p90, p99 and max of the valid launches; '
            f"{format_percent(result.confidence)} distribution-free intervals (order statistics "
            "of the binomial).</p>" + table_html(TAIL_TITLES, "<>>>>>>>>", rows, css="tails")
            + (f'<p class="note">{_e(note)}</p>' if note else ""))  # fmt: skip


def ledger_html(result: Result) -> str:
    """Per point with companions, its ledger against each suite."""
    points = [p for p in result.points if has_ledger(p.data)]
    if not points:
        return ""
    parts = ["<h3>Against OSU and IMB (the bias ledger)</h3>",
             '<p class="note">Why mpiscope\'s number differs from what OSU and IMB print here, '
             "part by part; each part measured in this run by the point's companions (the same "
             "op, size and ranks with warm buffers, a barrier between calls, calls back to "
             f"back); intervals: {format_percent(result.confidence)} bootstrap over the launches "
             "(docs/method.md section 12).</p>"]  # fmt: skip
    for point in points:
        for ledger in result_ledgers(result, point):
            parts.append(f"<h4>{_e(point_title(point))} vs {_e(ledger.suite)} "
                         f"({_e(ledger.reads)})</h4>")  # fmt: skip
            parts.append(table_html([f"{ledger.suite} path", *TITLES[1:]], "<>>>",
                                    ledger_rows(ledger), css="ledger"))  # fmt: skip
            parts.append(f'<p class="note">{_e(ledger.first_call_note)}</p>')
    return "\n".join(parts)


def parts_html(result: Result) -> str:
    """Each thread's time of the points that have parts (as in the report)."""
    rows = parts_rows(result)
    if not rows:
        return ""
    return ("<h3>Threads</h3>" + '<p class="note">Each thread\'s own time in a launch (the '
            "point's time is the slowest thread's); medians over the valid launches; launch "
            "spread: per launch the slowest thread minus the fastest (median).</p>"
            + table_html(PART_TITLES, "<>>>>>><", rows, css="parts"))  # fmt: skip


def notes_html(result: Result) -> str:
    """Per op, what its numbers depend on (file system, hints, threads...)."""
    notes = op_notes(result.points)
    if not notes:
        return ""
    rows = [[op, key, text] for op, items in notes.items() for key, text in items]
    return ("<h3>What the numbers depend on</h3>"
            + table_html(["op", "note", "as the op found it"], "<<<", rows, css="notes"))
