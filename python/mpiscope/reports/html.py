"""One self-contained HTML file for one or more result documents.

``mpiscope html RESULT... -o report.html`` writes a page a user can mail:
no script, no network access, the CSS inline and every figure embedded as
an SVG image (``data:`` URL). From the top: the warnings (partial results,
unstable points, an untrusted timer or clock sync, runs that disagree,
validation failures, oversubscription, the bench's own warnings), then per
result its environment (the header of ``mpiscope report`` plus the full
MPI library version and the per-rank clock residuals) and its tables (the
point table of ``mpiscope report``, the run summary when runs were
merged), then every figure of ``mpiscope plot`` with its caption.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope.html_page import escape as _e
from mpiscope.html_page import page
from mpiscope.reports.deterministic import deterministic_lines, is_exact
from mpiscope.reports.header import header_rows
from mpiscope.reports.html_sections import ledger_html, notes_html, parts_html, tails_html
from mpiscope.reports.plots.common import source_labels
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.plots.figure import Plot
from mpiscope.reports.report import table_cells
from mpiscope.reports.run_interval import interval_lines
from mpiscope.reports.run_report import has_between, summary_values
from mpiscope.result import Point, Result
from mpiscope.result.estimate import is_measurement, point_cache, point_method
from mpiscope.result.modes import format_modes, modes_from_records, point_modes
from mpiscope.result.units import format_bytes, format_ns, format_number
from mpiscope.version import package_version

__all__ = ["ReportWarning", "render_html", "result_warnings", "write_html"]

#: A timer step or clock-sync residual above this share of the smallest
#: median makes the short times of a result untrustworthy.
UNTRUSTED_SHARE = 0.1
_MAX_LISTED = 8
GROUND_TRUTH_PREFIX = "waitpattern_"


@dataclass(frozen=True)
class ReportWarning:
    """One line at the top of the report; ``severe`` ones are shown in red."""

    text: str
    severe: bool = False


def result_warnings(result: Result) -> list[ReportWarning]:
    """What makes ``result`` less trustworthy, most serious first."""
    warnings: list[ReportWarning] = []
    if not result.complete:
        text = f"PARTIAL RESULT: the run did not finish (status: {result.status})"
        warnings.append(ReportWarning(text + (f": {result.error}" if result.error else ""), True))
    warnings += _validation_warnings(result)
    points = [p for p in result.points if is_measurement(p)]
    unstable = [p for p in points if p.unstable]
    if unstable:
        names = [f"{_point_name(result, p)} ({', '.join(p.unstable_reasons)})" for p in unstable]
        warnings.append(
            ReportWarning(f"{len(unstable)} of {len(points)} points are unstable: {_listed(names)}")
        )
    disagree = [s for s in result.data.get("run_summary") or [] if s.get("disagree")]
    if disagree:
        total = len(result.data["run_summary"])
        names = [_summary_name(s) for s in disagree]
        warnings.append(
            ReportWarning(
                f"the runs disagree for {len(disagree)} of {total} points "
                f"(between-run spread beyond the within-run noise, or several modes): "
                f"{_listed(names)}"
            )
        )
    warnings += _modes_warnings(result, points)
    warnings += _clock_warnings(result)
    warnings += _resolution_warnings(result, points)
    env = result.environment
    if env.get("oversubscribed") or any(p.oversubscribed for p in points):
        warnings.append(
            ReportWarning("oversubscribed: more ranks than cores, the times suffer", True)
        )
    warnings += [ReportWarning(text) for text in result.warnings]
    return warnings


def _modes_warnings(result: Result, points: Sequence[Point]) -> list[ReportWarning]:
    """Points or run sets in separate modes: the machine changed state."""
    named = [
        f"{_point_name(result, p)}: {format_modes(modes, 'samples', format_ns)}"
        for p in points
        if (modes := point_modes(p.data))
    ]
    named += [
        f"{_summary_name(s)}: {format_modes(modes_from_records(s['modes']), 'runs', format_ns)}"
        for s in result.data.get("run_summary") or []
        if s.get("modes")
    ]
    if not named:
        return []
    return [ReportWarning(f"the machine was in separate states (one number would describe "
                          f"neither): {_listed(named)}")]  # fmt: skip


def _validation_warnings(result: Result) -> list[ReportWarning]:
    out = []
    for point in result.points:
        validation = point.get("validation") or {}
        if validation.get("failures"):
            out.append(
                ReportWarning(
                    f"VALIDATION FAILED for {_point_name(result, point)}: "
                    f"{validation['failures']} failed rank-launches; first on rank "
                    f"{validation.get('first_mismatch_rank')}, launch "
                    f"{validation.get('first_mismatch_launch')}: "
                    f"{validation.get('first_mismatch')}",
                    True,
                )
            )
    return out


def _clock_warnings(result: Result) -> list[ReportWarning]:
    env = result.environment
    timer, sync = env["timer"], env["clock_sync"]
    out = []
    if timer.get("invariant") is False:
        out.append(
            ReportWarning(
                f"the timer ({timer['name']}) is not invariant: its rate may change", True
            )
        )
    # The ground-truth wait patterns are left out: waitpattern_null times
    # nothing but two clock reads, so it would always warn.
    medians = [
        p.median_ns
        for p in result.points
        if is_measurement(p) and p.median_ns and not p.op.startswith(GROUND_TRUTH_PREFIX)
    ]
    smallest = min(medians) if medians else None
    if smallest is not None:
        resolution = timer.get("resolution_ns")
        if resolution is not None and resolution > UNTRUSTED_SHARE * smallest:
            out.append(
                ReportWarning(
                    f"the timer's resolution ({format_ns(resolution)}, {timer['name']}) is more "
                    f"than {UNTRUSTED_SHARE:.0%} of the smallest median ({format_ns(smallest)}): "
                    "short times are coarse"
                )
            )
        residual = sync.get("max_abs_residual_ns")
        if residual is not None and residual > UNTRUSTED_SHARE * smallest:
            out.append(
                ReportWarning(
                    f"the clock synchronization's residual ({format_ns(residual)}) is more than "
                    f"{UNTRUSTED_SHARE:.0%} of the smallest median ({format_ns(smallest)})"
                )
            )
    return out


def _resolution_warnings(result: Result, points: Sequence[Point]) -> list[ReportWarning]:
    """Points whose interval is the clock's half step: the clock, not the
    samples, limits them (their kept samples sit on one or two steps)."""
    at = [p for p in points if p.get("at_resolution")]
    if not at:
        return []
    step = format_ns(result.environment["timer"].get("resolution_ns"))
    names = [_point_name(result, p) for p in at]
    return [ReportWarning(
        f"{len(at)} of {len(points)} points are at the clock's resolution (their kept launches "
        f"sit on one or two {step} timer steps: the interval is the half step, and no number of "
        f"launches makes it narrower): {_listed(names)}")]


def _point_name(result: Result, point: Point) -> str:
    text = point.op if point.size_bytes is None else f"{point.op} {format_bytes(point.size_bytes)}"
    if result.varied == "nprocs":
        text += f" np={point.nprocs}"
    method = point_method(result, point)
    if method != "window":
        text += f" ({method})"
    if point.get("run") is not None:
        text += f" run {point['run']}"
    return text


def _summary_name(entry: Mapping[str, Any]) -> str:
    size = entry.get("size_bytes")
    text = entry["op"] if size is None else f"{entry['op']} {format_bytes(size)}"
    method = entry.get("method") or "window"
    return text if method == "window" else f"{text} ({method})"


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f" and {len(names) - _MAX_LISTED} more" if len(names) > _MAX_LISTED else "")


# --- the page ---------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #1d2330; background: #ffffff; line-height: 1.4; }
main { max-width: 1280px; margin: 0 auto; padding: 1.2em 1.5em 3em; }
h1 { font-size: 1.6em; margin: 0.2em 0; }
h2 { font-size: 1.25em; border-bottom: 2px solid #d8dde6; padding-bottom: 0.2em;
     margin-top: 1.8em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
.sub { color: #5a6475; margin: 0; }
.warnings { border: 2px solid #e0a800; background: #fff8e1; padding: 0.6em 1em;
            border-radius: 6px; margin: 1em 0; }
.warnings.none { border-color: #4caf50; background: #eef8ee; }
.warnings h2 { border: 0; margin: 0.2em 0; font-size: 1.1em; }
.warnings li.severe { color: #b00020; font-weight: 600; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.86em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e7ee; vertical-align: top; }
thead th { background: #eef1f6; text-align: left; position: sticky; top: 0; }
tbody tr:nth-child(even) { background: #f8f9fb; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.flagged td { background: #fdecea; }
table.environment th { text-align: left; white-space: nowrap; color: #3b4456; }
pre { background: #f4f6f9; padding: 0.5em; font-size: 0.85em; white-space: pre-wrap; margin: 0; }
.note { color: #5a6475; font-size: 0.85em; }
figure.plot { margin: 1.2em 0 2em; }
figure.plot img { max-width: 100%; height: auto; display: block; border: 1px solid #e3e7ee; }
figcaption { color: #5a6475; font-size: 0.88em; margin-top: 0.4em; max-width: 70em; }
""".strip()


def render_html(results: Sequence[Result], labels: Sequence[str] | None = None) -> str:
    """The whole report page as one HTML string (UTF-8, self-contained)."""
    if not results:
        raise MpiscopeError("no result document to report")
    labels = list(labels) if labels is not None else source_labels(results)
    parts = [
        "<main>",
        "<h1>mpiscope report</h1>",
        f'<p class="sub">{_e(", ".join(_source(r) for r in results))} &middot; '
        f"written by mpiscope {_e(package_version())}</p>",
        _warnings_html(results, labels),
    ]
    for index, (label, result) in enumerate(zip(labels, results, strict=True)):
        parts.append(_result_html(index, label, result, several=len(results) > 1))
    parts.append(_figures_html(plot_data(results, labels)))
    parts.append("</main>")
    return page(f"mpiscope report: {', '.join(labels)}", "\n".join(parts), _CSS)


def write_html(results: Sequence[Result], path: Path) -> None:
    """Write the report of ``results`` to ``path`` (replaced if it exists)."""
    outputs.write_text(path, render_html(results))


def _source(result: Result) -> str:
    return str(result.path) if result.path is not None else "<document>"


def _warnings_html(results: Sequence[Result], labels: Sequence[str]) -> str:
    items = []
    for label, result in zip(labels, results, strict=True):
        prefix = f"{label}: " if len(results) > 1 else ""
        for warning in result_warnings(result):
            css = ' class="severe"' if warning.severe else ""
            items.append(f"<li{css}>{_e(prefix + warning.text)}</li>")
    if not items:
        return (
            '<section class="warnings none" id="warnings"><h2>No warnings</h2>'
            "<p>Every point is stable and nothing in the set-up is suspect.</p></section>"
        )
    return (
        f'<section class="warnings" id="warnings"><h2>Warnings ({len(items)})</h2>'
        f"<ul>{''.join(items)}</ul></section>"
    )


def _result_html(index: int, label: str, result: Result, several: bool) -> str:
    title = f"Result: {label}" if several else "Result"
    parts = [f'<section class="result" id="result-{index + 1}">', f"<h2>{_e(title)}</h2>"]
    parts.append("<h3>Environment</h3>")
    parts.append(_environment_table(result))
    special = _special_body(result)
    if special is not None:  # a machine check, first-call or start-up document: no point table
        parts.append(special)
        parts.append("</section>")
        return "\n".join(parts)
    parts.append("<h3>Points</h3>")
    parts.append(_points_table(result))
    interval = (f"E: half-width of the {format_number(result.confidence * 100, 3)}% confidence "
                "interval of the trimmed mean from this run's samples (within-run); "
                if not all(is_exact(p) for p in result.points) else "")  # fmt: skip
    parts.append(
        '<p class="note">Times: max over ranks of each rank\'s own duration of a launch (window '
        f"method). {interval}n_t/n_c/n_s: launches / valid / kept after trimming. Rows in red "
        "are unstable.</p>"
    )
    parts += [  # which interval is which (reports/run_interval.py), exact points
        f'<p class="note">{_e(line)}</p>'
        for line in [*interval_lines(result, f"{format_number(result.confidence * 100, 3)}%"),
                     *deterministic_lines(result)]
    ]  # fmt: skip
    parts += [tails_html(result), parts_html(result), notes_html(result), ledger_html(result)]
    summary = result.data.get("run_summary")
    records = result.data.get("runs")
    if summary or records:
        parts.append("<h3>Runs</h3>")
    if records:
        parts.append(_run_records_table(records))
    if summary:
        parts.append(_run_summary_table(summary))
    parts.append("</section>")
    return "\n".join(parts)


def _special_body(result: Result) -> str | None:
    """The text report's body of a check, first-call or start-up document, else None."""
    from mpiscope.reports.check import check_lines
    from mpiscope.reports.firstcall import firstcall_lines, is_firstcall
    from mpiscope.reports.startup import is_startup, startup_lines

    if result.data.get("check") is not None:
        title, lines = "Machine check", check_lines(result)
    elif is_firstcall(result):
        title, lines = "First call vs second call", firstcall_lines(result)
    elif is_startup(result):
        title, lines = "The start of MPI", startup_lines(result)
    else:
        return None
    return f"<h3>{_e(title)}</h3><pre>{_e(chr(10).join(lines))}</pre>"


def _environment_table(result: Result) -> str:
    env = result.environment
    rows = list(header_rows(result))
    sync = env["clock_sync"]
    if sync.get("residual_ns"):
        rows.append(
            ("clock residual per rank", ", ".join(format_ns(v) for v in sync["residual_ns"]))
        )
    if env.get("hosts"):
        rows.append(("all hosts", ", ".join(env["hosts"])))
    cells = [f"<tr><th>{_e(name)}</th><td>{_e(value)}</td></tr>" for name, value in rows]
    library = str(env.get("mpi_library_version") or "").strip()
    if library:
        cells.append(
            "<tr><th>MPI library version</th>"
            f"<td><details><summary>full text</summary><pre>{_e(library)}</pre></details></td></tr>"
        )
    return f'<table class="environment"><tbody>{"".join(cells)}</tbody></table>'


def _points_table(result: Result) -> str:
    titles, aligns, rows = table_cells(result)
    points = result.points
    # What tells apart points of the same op and size, unless the text report
    # already shows it: the method, the cache mode, the run.
    candidates = [
        ("method", [point_method(result, p) for p in points]),
        ("cache", [str(point_cache(result, p)) for p in points]),
        ("run", [str(p.get("run", "-")) for p in points]),
    ]
    extra = [(t, v) for t, v in candidates if t not in titles and len(set(v)) > 1]
    titles = [titles[0], *(t for t, _v in extra), *titles[1:]]
    aligns = [aligns[0], *("<" for _column in extra), *aligns[1:]]
    rows = [[row[0], *(values[i] for _t, values in extra), *row[1:]] for i, row in enumerate(rows)]
    head = "".join(f"<th>{_e(t)}</th>" for t in titles)
    body = []
    for point, row in zip(points, rows, strict=True):
        css = ' class="flagged"' if point.get("unstable") or point_modes(point.data) else ""
        cells = "".join(
            f'<td class="num">{_e(c)}</td>' if a == ">" else f"<td>{_e(c)}</td>"
            for c, a in zip(row, aligns, strict=True)
        )
        body.append(f"<tr{css}>{cells}</tr>")
    if not body:
        body.append(
            f'<tr><td colspan="{len(titles)}">no measurement point in this result</td></tr>'
        )
    return (
        f'<table class="points"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _run_summary_table(summary: Sequence[Mapping[str, Any]]) -> str:
    titles = [
        "op",
        "size",
        "np",
        "method",
        "cache",
        "runs",
        "median",
        "interval",
        "run medians",
        "within CV",
        "between CV",
    ]
    beyond = has_between(summary)
    titles += ["run-to-run"] * beyond + ["agree"]
    body = []
    for s in summary:
        size = s.get("size_bytes")
        reasons = ", ".join(s.get("disagree_reasons") or [])
        cells = [
            (str(s["op"]), False),
            (format_bytes(size) if size is not None else "-", True),
            (str(s["nprocs"]), True),
            (str(s.get("method") or "window"), False),
            (str(s.get("cache") or "-"), False),
            *((value, True) for value in summary_values(s, beyond)),
            (_agree(s, reasons), False),
        ]
        css = ' class="flagged"' if s.get("disagree") else ""
        body.append(
            f"<tr{css}>"
            + "".join(
                f'<td class="num">{_e(c)}</td>' if num else f"<td>{_e(c)}</td>" for c, num in cells
            )
            + "</tr>"
        )
    head = "".join(f"<th>{_e(t)}</th>" for t in titles)
    return (
        f'<table class="run-summary"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        '<p class="note">median: of the runs\' medians; interval: its confidence interval '
        "over runs; within CV: a run's own spread, typical over the runs; between "
        "CV: the spread of the runs' medians; run-to-run: the relative SD of the "
        "runs' means beyond their own errors. Runs disagree (spread) when they vary "
        "more than their own noise explains, or (modes) when they form separate groups.</p>"
    )


def _agree(s: Mapping[str, Any], reasons: str) -> str:
    if not s.get("disagree"):
        return "yes"
    modes = modes_from_records(s.get("modes"))
    shown = f"; {format_modes(modes, 'runs', format_ns)}" if modes else ""
    return f"NO: {reasons or 'runs disagree'}{shown}"


def _run_records_table(records: Sequence[Mapping[str, Any]]) -> str:
    titles = [
        "run",
        "status",
        "start (UTC)",
        "end (UTC)",
        "points",
        "max clock residual",
        "sync round trip (the machine's state)",
        "error",
    ]
    body = []
    for r in records:
        cells = [
            str(r.get("run")),
            str(r.get("status")),
            str(r.get("start_time_utc")),
            str(r.get("end_time_utc")),
            str(r.get("points", "-")),
            format_ns(r.get("max_abs_residual_ns")),
            format_ns(r.get("sync_rtt_min_ns")) if r.get("sync_rtt_min_ns") else "-",
            str(r.get("error") or ""),
        ]
        css = ' class="flagged"' if r.get("status") != "complete" else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{_e(t)}</th>" for t in titles)
    return (
        f'<table class="runs"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _figures_html(plots: Sequence[Plot]) -> str:
    from mpiscope.reports.plots.render import render  # lazy: matplotlib

    parts = ['<section id="figures">', "<h2>Figures</h2>"]
    if not plots:
        parts.append("<p>Nothing to plot: no measured point.</p>")
    for plot in plots:
        data = base64.b64encode(render(plot, fmt="svg")).decode("ascii")
        parts.append(
            f'<figure class="plot" id="plot-{_e(plot.name)}">'
            f"<h3>{_e(plot.title)}</h3>"
            f'<img alt="{_e(plot.title)}" src="data:image/svg+xml;base64,{data}">'
            f"<figcaption>{_e(plot.note)}</figcaption></figure>"
        )
    parts.append("</section>")
    return "\n".join(parts)
