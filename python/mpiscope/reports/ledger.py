"""The bias ledger as text: ``mpiscope explain`` (every point, every part
with its interval), the short closing lines of ``mpiscope run``, and the
rows of the HTML report's section (:mod:`mpiscope.result.ledger` computes
it)."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.reports.texttable import format_table
from mpiscope.result import Point, Result
from mpiscope.result.ledger import Ledger, has_ledger, ledger_of, missing
from mpiscope.result.units import format_bytes, format_ns, format_percent

__all__ = ["closing_lines", "explain_lines", "ledger_rows", "point_title", "result_ledgers"]

#: The columns of one ledger table (text and HTML).
TITLES = ("", "ns", "share", "interval (ns)")


def point_title(point: Point) -> str:
    size = "" if point.size_bytes is None else f" {format_bytes(point.size_bytes)}"
    return f"{point.op}{size}, {point.nprocs} ranks"


def _ns(value: float) -> str:
    return f"{value:.1f}" if abs(value) < 100 else f"{value:.0f}"


def _signed(value: float) -> str:
    return ("+" if value >= 0 else "") + _ns(value)


def ledger_rows(ledger: Ledger) -> list[list[str]]:
    """One row per link of the ledger: mpiscope's number, each part (what
    it adds to mpiscope's number), the suite-equivalent (the first call is
    the note under the table: Ledger.first_call_note)."""
    rows = [["mpiscope (window, cold, max over ranks, median)", _ns(ledger.mpiscope_ns), "", ""]]
    for part in ledger.parts:
        rows.append([part.name, _signed(part.ns), f"{part.share * 100:+.1f}%",
                     f"[{_ns(part.low_ns)}, {_ns(part.high_ns)}]"])  # fmt: skip
    rows.append([f"= {ledger.suite}-equivalent ({ledger.reads})", _ns(ledger.equivalent_ns), "",
                 f"[{_ns(ledger.equivalent_low_ns)}, {_ns(ledger.equivalent_high_ns)}]"])
    return rows


def result_ledgers(result: Result, point: Point, resamples: int | None = None) -> list[Ledger]:
    """A point's ledgers with the result's floor (when subtracted) and its
    timer's step (the least half-width of an interval)."""
    floor = result.data.get("floor") or {}
    floor_ns = float(floor.get("median_ns") or 0.0) if floor.get("subtracted") else 0.0
    step = float(result.environment["timer"].get("resolution_ns") or 0.0)
    extra = {} if resamples is None else {"resamples": resamples}
    return ledger_of(point.data, result.confidence, floor_ns=floor_ns, resolution_ns=step,
                     **extra)  # fmt: skip


def explain_lines(result: Result, suites: Sequence[str] | None = None) -> list[str]:
    """Every point's ledger against every suite (or those named)."""
    points = [p for p in result.points if has_ledger(p.data)]
    if not points:
        return [_no_ledger(result)]
    lines = [
        "Why mpiscope's numbers differ from the classic suites' on this machine: each part is "
        "measured in this run",
        "(the point's companions on the same op, size and ranks; docs/method.md section 12); "
        f"intervals: {format_percent(result.confidence)} bootstrap over the launches.",
    ]
    for point in points:
        lines += ["", f"{point_title(point)} (median of {point.launches_valid} launches)"]
        if missing(point.data):
            lines.append(f"  {_missing_text(point)}")
        for ledger in result_ledgers(result, point):
            if suites and ledger.suite not in suites:
                continue
            lines.append(f"  vs {ledger.suite} ({ledger.reads}):")
            lines += format_table([f"{ledger.suite} path", *TITLES[1:]], "<>>>",
                                  ledger_rows(ledger), indent="    ")  # fmt: skip
            lines.append(f"    {ledger.first_call_note}")
    return lines


def _no_ledger(result: Result) -> str:
    return ("no point of this result has the ledger's companions: measure with "
            "`mpiscope run ... --ledger on` (the default of run)")  # fmt: skip


def closing_lines(result: Result) -> list[str]:
    """The run's short form: per op, its smallest and largest size against
    OSU, in one line each; nothing when no point has companions."""
    by_op: dict[str, list[Point]] = {}
    for point in result.points:
        if has_ledger(point.data):
            by_op.setdefault(point.op, []).append(point)
    if not by_op:
        return []
    lines = ["", "vs OSU (measured parts; `mpiscope explain RESULT` for every point, IMB and "
                 "the intervals):"]  # fmt: skip
    for points in by_op.values():
        ends = sorted(points, key=lambda p: p.size_bytes or 0)
        for point in ends[:1] + ends[1:][-1:]:
            osu = next((x for x in result_ledgers(result, point, resamples=0)
                        if x.suite == "OSU"), None)
            text = _short(osu) if osu is not None else _missing_text(point)
            lines.append(f"  {point_title(point)}: {text}")
    return lines


def _missing_text(point: Point) -> str:
    names = ", ".join(missing(point.data))
    return (f"no ledger for the paths through {names}: that companion has no valid launch "
            "(a loaded machine; measure again)")


def _short(ledger: Ledger) -> str:
    parts = " ".join(f"{'+' if p.ns >= 0 else '-'} {p.short} {format_ns(abs(p.ns))}"
                     for p in ledger.parts)  # fmt: skip
    return (f"mpiscope {format_ns(ledger.mpiscope_ns)} = OSU-equivalent "
            f"{format_ns(ledger.equivalent_ns)} {parts}")  # fmt: skip
