"""A standalone HTML page for noise documents (figures embedded as base64 PNG).

:func:`render_noise_html` takes one document or a list of them (noise-run,
noise-verdict, noise-probe) and returns the whole page as a string, with no
external files. An alternating noise-run is compared with itself (agent-off
packets against agent-on ones); two or more separate-design runs are also
compared with the first one given, which is the baseline.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope.html_page import escape, page
from mpiscope.noise import criteria, figures, paired

__all__ = ["render_noise_html", "write_noise_html"]

_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
.yes { color: #a00; font-weight: bold; } .note { color: #666; }
img { max-width: 100%; display: block; margin: 0.6em 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dt { font-weight: bold; }
"""



def _img(fig: Any, alt: str) -> str:
    data = base64.b64encode(figures.figure_png(fig)).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def _table(header: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1) -> str:
    def cell(tag: str, index: int, value: object) -> str:
        cls = ' class="l"' if index < left else ""
        text = escape(value)
        if value == "yes":
            cls = ' class="yes"'
        return f"<{tag}{cls}>{text}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _dl(items: Sequence[tuple[str, object]]) -> str:
    return (
        "<dl>"
        + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items if v is not None)
        + "</dl>"
    )


def _verdict_html(verdict: Mapping[str, Any]) -> str:
    base, test = verdict["baseline"], verdict["test"]
    samples = _table(
        ["sample", "source", "n", "median (s)", "mean (s)"],
        [
            (name, s["source"], s["n"], f"{s['median_s']:.6g}", f"{s['mean_s']:.6g}")
            for name, s in (("baseline", base), ("test", test))
        ],
        left=2,
    )
    rows = criteria.verdict_rows(verdict)
    criteria_table = _table(["criterion", "value", "threshold", "detected"], rows, left=2)
    line = criteria.verdict_sentence(verdict).removeprefix("verdict: ")
    stated = criteria.limit_sentence(verdict)
    return (
        samples + f"<p>Values normalised to the baseline median; difference of means "
        f"{verdict['mean_difference']:+.4f}.</p>"
        + criteria_table
        + f"<p><strong>{escape(line[:1].upper() + line[1:])}.</strong></p>"
        + (f"<p>{escape(stated[:1].upper() + stated[1:])}.</p>" if stated else "")
    )


def _run_label(run: Mapping[str, Any], index: int) -> str:
    detector = (run.get("detector") or {}).get("detector", "?")
    layout = run.get("layout")
    return f"#{index + 1} {detector}" + (f" layout {layout}" if layout else "")


def _run_html(run: Mapping[str, Any], label: str) -> str:
    detector = run.get("detector") or {}
    agent = run.get("agent") or {}
    env = run.get("environment") or {}
    info = _dl(
        [
            ("status", run.get("status")),
            ("error", run.get("error")),
            ("design", run.get("design")),
            ("layout", run.get("layout")),
            ("detector", detector.get("detector")),
            ("ranks", detector.get("nprocs")),
            ("packet seconds", detector.get("packet_seconds")),
            ("iterations per packet", detector.get("iterations_per_packet")),
            ("agent", agent.get("command") or agent.get("kind") if agent else "none"),
            ("agent Hz", agent.get("hz")),
            ("agent burst (ns)", agent.get("burst_ns")),
            ("agent core", agent.get("core")),
            ("host", env.get("host")),
            ("CPU", env.get("cpu_model")),
            ("MPI", env.get("mpi")),
            ("created", run.get("created")),
        ]
    )
    parts = [f"<h2>noise-run {escape(label)}</h2>", info]
    try:
        samples = criteria.samples_of(run)
    except MpiscopeError as exc:
        return "".join(parts) + f'<p class="note">{escape(exc)}</p>'
    if run.get("design") == "alternate":
        try:
            pairs = paired.block_pairs(run.get("packets") or [])
        except MpiscopeError:
            pairs = None
        parts.append(_comparison_html(samples, "baseline", f"{label} agent off vs on", pairs))
    elif len(samples["all"]) >= 1:
        parts.append(_img(figures.boxplots_figure(samples, "all"), f"packet times {label}"))
    return "".join(parts)


def _comparison_html(samples: Mapping[str, Sequence[float]], baseline: str, title: str,
                     pairs: Sequence[tuple[float, float]] | None = None) -> str:
    parts = []
    try:
        parts.append(_img(figures.boxplots_figure(samples, baseline), f"box plots {title}"))
        verdicts = [
            criteria.compare_samples(
                samples[baseline], values, baseline_source=baseline, test_source=label,
                pairs=pairs,
            )
            for label, values in samples.items()
            if label != baseline
        ]
    except MpiscopeError as exc:
        return "".join(parts) + f'<p class="note">No comparison: {escape(exc)}</p>'
    labels = [v["test"]["source"] for v in verdicts]
    if verdicts:
        parts.append(_img(figures.mean_vs_gap_figure(verdicts, labels), f"mean vs gap {title}"))
    for verdict in verdicts:
        parts.append(
            f"<h3>{escape(verdict['test']['source'])} against {escape(baseline)}</h3>"
            + _verdict_html(verdict)
        )
    return "".join(parts)


def _probe_html(doc: Mapping[str, Any]) -> str:
    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.3%}"

    rows = []
    for w in doc["workers"]:
        fwq, ftq, selfish = w.get("fwq"), w.get("ftq"), w.get("selfish")
        hz = w.get("dominant_hz")
        rows.append(
            (
                w.get("host") or "-",
                w["rank"],
                w["core"],
                share(fwq["share_lost"]) if fwq else "-",
                f"{fwq['median_ns']:.0f}" if fwq and fwq["median_ns"] is not None else "-",
                share(ftq["share_lost"]) if ftq else "-",
                selfish["detours"] if selfish else "-",
                share(selfish["share_lost"]) if selfish else "-",
                f"{selfish['period_ns'] / 1e6:.4g}" if selfish and selfish["period_ns"] else "-",
                "-" if hz is None else f"{hz:.4g}",
            )
        )
    header = [
        "host",
        "rank",
        "core",
        "FWQ lost",
        "FWQ median (ns)",
        "FTQ lost",
        "detours",
        "selfish lost",
        "detour period (ms)",
        "dominant (Hz)",
    ]
    parts = [
        f"<h2>noise-probe {escape(doc.get('source', ''))}</h2>",
        _table(header, rows),
        '<p class="note">Shares are of CPU time. FWQ: 1 - n x min / sum of unit times; '
        "FTQ: 1 - mean / p99 of the work per quantum; selfish: detour time / run time.</p>",
    ]
    if doc["workers"]:
        parts.append(_img(figures.ftq_spectrum_figure(doc), "FTQ spectra"))
        parts.append(_img(figures.selfish_timeline_figure(doc), "selfish detours"))
    return "".join(parts)


def _calibration_html(doc: Mapping[str, Any]) -> str:
    plan = doc["plan"]
    detectors = ", ".join(plan["detectors"])
    head = (f"<h2>noise-calibration: {escape(detectors)}, {plan['nprocs']} ranks, "
            f"{plan['packets']} packets of {plan['packet_seconds']:g} s, layout C, "
            f"alternating blocks of {plan['block']}</h2>")
    criteria = sorted({c for found in doc["smallest"].values() for c in found})
    smallest = _table(["detector", *criteria],
                      [[d, *[found.get(c) or "-" for c in criteria]]
                       for d, found in doc["smallest"].items()])
    runs = _table(["detector", "agent", "CPU load", "mean difference", "boundary gap",
                   "p (Mann-Whitney)", "fired"],
                  [[r["detector"], r["agent"], f"{r['load']:.2%}", f"{r['mean_difference']:+.2%}",
                    "-" if r.get("boundary_gap") is None else f"{r['boundary_gap']:+.2%}",
                    f"{r['p_value']:.3g}", ", ".join(r["fired"]) or "-"] for r in doc["runs"]],
                  left=2)
    return (head + "<h3>Smallest agent detected, per criterion</h3>" + smallest
            + "<h3>Every run (A/A: a sham agent, any detection is a false alarm)</h3>" + runs)


def write_noise_html(docs: Sequence[Mapping[str, Any]], out: Path) -> None:
    """Write the page of ``docs`` to ``out`` (replaced if it exists)."""
    try:
        outputs.write_text(out, render_noise_html(docs))
    except OSError as exc:
        raise MpiscopeError(f"cannot write {out}: {exc.strerror or exc}") from None


def render_noise_html(doc_or_docs: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> str:
    """The standalone HTML page of one noise document or a list of them."""
    docs = [doc_or_docs] if isinstance(doc_or_docs, Mapping) else list(doc_or_docs)
    if not docs:
        raise MpiscopeError("no noise document to render")
    sections: list[str] = []
    separate: dict[str, list[float]] = {}
    for index, doc in enumerate(docs):
        kind = doc.get("kind")
        if kind == "noise-run":
            label = _run_label(doc, index)
            sections.append(_run_html(doc, label))
            if doc.get("design") == "separate":
                separate[label] = [float(p["seconds"]) for p in doc.get("packets") or []]
        elif kind == "noise-verdict":
            title = f"{doc['test']['source']} against {doc['baseline']['source']}"
            sections.append(f"<h2>noise-verdict: {escape(title)}</h2>" + _verdict_html(doc))
        elif kind == "noise-probe":
            sections.append(_probe_html(doc))
        elif kind == "noise-calibration":
            sections.append(_calibration_html(doc))
        else:
            raise MpiscopeError(f"cannot render a document of kind {kind!r}")
    if len(separate) >= 2:
        baseline = next(iter(separate))
        sections.insert(
            0,
            f"<h2>Comparison with {escape(baseline)} (the baseline)</h2>"
            + _comparison_html(separate, baseline, "runs"),
        )
    body = "\n".join(sections)
    return page("mpiscope noise report", body, _STYLE, heading="mpiscope noise report")
