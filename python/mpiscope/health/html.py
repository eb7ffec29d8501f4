"""The health document as one self-contained HTML page (``mpiscope html h.json``).

Inline SVG, no script, nothing loaded from the network: the verdict, a
heat map of each metric of the link matrix (a cell per pair, the slow ones
outlined; hovering a cell shows its pair and value), per-node bars (the
median of a node's links, its STREAM triad, the delayed launches its ranks
caused), the straggler timeline of each collective (every delayed launch:
when, which rank, by how much) and the fingerprint and phase tables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.health.values import format_value as _value
from mpiscope.html_page import escape, page
from mpiscope.result.stats import median
from mpiscope.result.units import format_ns

__all__ = ["render_health_html", "write_health_html"]

_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
.suspect { color: #a00; } .ok { color: #070; } .note { color: #666; }
svg { display: block; margin: 0.6em 0; } svg text { font: 10px sans-serif; fill: #333; }
rect.slow { stroke: #d00; stroke-width: 2; }
"""
_VIRIDIS = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")



def _colour(x: float) -> str:
    """Viridis at x in [0, 1] (0: dark, the worse end is drawn light)."""
    x = min(1.0, max(0.0, x)) * (len(_VIRIDIS) - 1)
    i = min(len(_VIRIDIS) - 2, int(x))
    f = x - i
    a, b = _VIRIDIS[i], _VIRIDIS[i + 1]
    return "#" + "".join(f"{round(a[k] + (b[k] - a[k]) * f):02x}" for k in range(3))


def _table(
    header: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1, last_left: bool = False
) -> str:
    """A table, its first ``left`` columns (and the last one, with
    ``last_left``: a sentence) aligned left, the numbers right."""

    def cls(i: int) -> str:
        return " class=l" if i < left or (last_left and i == len(header) - 1) else ""

    head = "".join(f"<th{cls(i)}>{escape(h)}</th>" for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f"<td{cls(i)}>{escape(v)}</td>" for i, v in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _verdict(doc: Mapping[str, Any]) -> str:
    suspects = doc.get("suspects") or []
    if not suspects:
        return '<p class="ok"><b>Healthy:</b> nothing stands out.</p>'
    rows = [
        (
            s["kind"],
            s["name"],
            s["evidence"],
            s["certainty"],
            "-" if s.get("p_value") is None else f"{s['p_value']:.2g}",
        )
        for s in suspects
    ]
    return f'<p class="suspect"><b>{len(suspects)} suspect(s)</b></p>' + _table(
        ["kind", "name", "measurement", "how sure", "p"], rows, left=3
    )


def _heatmap(metric: str, section: Mapping[str, Any], names: Sequence[str]) -> str:
    pairs = section["pairs"]
    units = len(names)
    known = [m for m in pairs["median"] if m is not None]
    if units < 2 or not known:
        return ""
    low, high = min(known), max(known)
    cell = max(4, min(28, 560 // units))
    label = 110 if units <= 64 else 30
    top = 6
    size = label + units * cell + 10
    height = max(top + units * cell, 170) + 10
    parts = [
        f'<svg class="heatmap" data-metric="{escape(metric)}" data-units="{units}" '
        f'width="{size + 150}" height="{height}" role="img" aria-label="{escape(metric)} matrix">'
    ]
    for i, name in enumerate(names):
        if units <= 64:
            y = top + i * cell + cell / 2 + 3
            parts.append(
                f'<text x="{label - 4}" y="{y:.1f}" text-anchor="end">{escape(name)}</text>'
            )
    for a, b, m, slow in zip(pairs["a"], pairs["b"], pairs["median"], pairs["slow"], strict=True):
        if m is None:
            continue
        x = 0.0 if high == low else (m - low) / (high - low)
        shade = _colour(x if section["higher_is_worse"] else 1.0 - x)
        tip = f"{names[a]} - {names[b]}: {_value(metric, m)}" + (" (slow)" if slow else "")
        cls = "cell slow" if slow else "cell"
        for i, j in ((a, b), (b, a)):
            parts.append(
                f'<rect class="{cls}" x="{label + j * cell}" y="{top + i * cell}" '
                f'width="{cell}" height="{cell}" fill="{shade}"><title>{escape(tip)}</title></rect>'
            )
    legend_x = size + 10
    for k in range(11):
        parts.append(
            f'<rect x="{legend_x}" y="{top + k * 14}" width="14" height="14" '
            f'fill="{_colour(k / 10)}"/>'
        )
    best, worst = (low, high) if section["higher_is_worse"] else (high, low)
    parts.append(f'<text x="{legend_x + 18}" y="{top + 10}">{escape(_value(metric, best))}</text>')
    parts.append(
        f'<text x="{legend_x + 18}" y="{top + 150}">{escape(_value(metric, worst))} (worse)</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _links(doc: Mapping[str, Any]) -> str:
    links = doc.get("links")
    if not links:
        return "<h2>Link matrix</h2><p class=note>not measured</p>"
    names = links.get("units") or []
    out = [f"<h2>Link matrix: {len(names)} {escape(links['unit'])}s</h2>"]
    if not links.get("judged"):
        out.append(f"<p class=note>No verdict: {escape(links.get('why_not'))}</p>")
    for metric, section in links["metrics"].items():
        slow = sum(section["pairs"]["slow"])
        out.append(
            f"<h3>{escape(metric)}</h3><p>{escape(section['what'])}; typical "
            f"{escape(_value(metric, section['typical']))}, slow beyond "
            f"{escape(_value(metric, section['limit']))}: {slow} pair(s) (outlined)</p>"
        )
        out.append(_heatmap(metric, section, names))
    return "".join(out)


def _bars(title: str, values: Sequence[tuple[str, float | None]], text: Any, cls: str) -> str:
    known = [v for _, v in values if v is not None]
    if not known:
        return ""
    top = max(known) or 1.0
    row, width = 16, 420
    parts = [
        f"<h3>{escape(title)}</h3>",
        f'<svg class="bars {cls}" width="{width + 320}" height="{row * len(values) + 8}">',
    ]
    for i, (name, v) in enumerate(values):
        y = 4 + i * row
        parts.append(f'<text x="150" y="{y + 11}" text-anchor="end">{escape(name)}</text>')
        if v is None:
            continue
        w = max(1.0, width * v / top)
        parts.append(
            f'<rect class="bar" x="156" y="{y}" width="{w:.1f}" height="{row - 3}" '
            f'fill="#4c78a8"><title>{escape(text(v))}</title></rect>'
        )
        parts.append(f'<text x="{160 + w:.1f}" y="{y + 11}">{escape(text(v))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _node_bars(doc: Mapping[str, Any]) -> str:
    links = doc.get("links") or {}
    names = links.get("units") or []
    out = ["<h2>Per node</h2>"]
    for metric, section in (links.get("metrics") or {}).items():
        pairs = section["pairs"]
        per: list[list[float]] = [[] for _ in names]
        for a, b, m in zip(pairs["a"], pairs["b"], pairs["median"], strict=True):
            if m is not None:
                per[a].append(m)
                per[b].append(m)
        values = [(n, median(v)) for n, v in zip(names, per, strict=True)]
        out.append(
            _bars(
                f"median {metric} of each {links['unit']}'s links",
                values,
                lambda v, m=metric: _value(m, v),
                f"links-{metric}",
            )
        )
    triad = ((doc.get("fingerprint") or {}).get("triad") or {}).get("hosts") or {}
    if triad:
        out.append(
            _bars(
                "STREAM triad per node (its cores together)",
                sorted(triad.items()),
                lambda v: f"{v / 1e9:.3g} GB/s",
                "triad",
            )
        )
    section = doc.get("stragglers") or {}
    env = doc.get("environment") or {}
    hosts, nodes = env.get("hosts") or [], env.get("rank_nodes") or []
    if section.get("ops") and hosts and nodes:
        counts = {h: 0.0 for h in hosts}
        for op in section["ops"]:
            for r in op["ranks"]:
                if r["rank"] < len(nodes):
                    counts[hosts[nodes[r["rank"]]]] += r["events"]
        out.append(
            _bars(
                "delayed launches each node's ranks caused (arrived last)",
                list(counts.items()),
                lambda v: f"{v:.0f}",
                "stragglers",
            )
        )
    return "".join(out)


def _timeline(op: Mapping[str, Any]) -> str:
    events = op.get("timeline") or []
    head = (
        f"<h3>{escape(op['op'])}: {op['events']} of {op['launches']} launches delayed by more than "
        f"{escape(format_ns(op['delta_ns']))}</h3>"
    )
    if op.get("behind") or op.get("stage_starts"):
        head += (
            f"<p class=note>not judged: {op.get('behind') or 0} launches behind schedule (the "
            "first rank already late for its slot: their order of arrival is the previous "
            f"launch's order of exit) and {op.get('stage_starts') or 0} first launches of a "
            "stage (their schedule had just come from rank 0)</p>"
        )
    if not events:
        return head + "<p class=note>no delayed launch</p>"
    width, height, left, bottom = 640, 200, 60, 24
    t_max = max(e[0] for e in events) or 1.0
    leads = [e[2] for e in events]
    lo, hi = math.log10(max(1.0, min(leads))), math.log10(max(leads))
    hi = hi if hi > lo else lo + 1
    ranks = sorted({int(e[1]) for e in events})
    color = {r: _PALETTE[i % len(_PALETTE)] for i, r in enumerate(ranks)}
    parts = [
        head,
        f'<svg class="timeline" data-op="{escape(op["op"])}" width="{width + left + 120}" '
        f'height="{height + bottom + 10}">',
        f'<line x1="{left}" y1="{height}" x2="{left + width}" y2="{height}" stroke="#888"/>',
        f'<text x="{left}" y="{height + 16}">0 s</text>',
        f'<text x="{left + width}" y="{height + 16}" text-anchor="end">{t_max:.3g} s</text>',
        f'<text x="{left - 4}" y="10" text-anchor="end">{escape(format_ns(10**hi))}</text>',
        f'<text x="{left - 4}" y="{height}" text-anchor="end">{escape(format_ns(10**lo))}</text>',
    ]
    for t, rank, lead in events:
        x = left + width * t / t_max
        y = height - height * (math.log10(max(lead, 1.0)) - lo) / (hi - lo)
        tip = f"rank {int(rank)} at {t:.4f} s: late by {format_ns(lead)}"
        parts.append(
            f'<circle class="event" cx="{x:.1f}" cy="{y:.1f}" r="3" '
            f'fill="{color[int(rank)]}"><title>{escape(tip)}</title></circle>'
        )
    for i, r in enumerate(ranks[:12]):
        parts.append(
            f'<text x="{left + width + 10}" y="{14 + i * 14}" fill="{color[r]}">rank {r}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _stragglers(doc: Mapping[str, Any]) -> str:
    section = doc.get("stragglers")
    if not section:
        return "<h2>Stragglers</h2><p class=note>not measured</p>"
    return "<h2>Stragglers: who arrives last</h2>" + "".join(_timeline(op) for op in section["ops"])


def _fingerprint(doc: Mapping[str, Any]) -> str:
    fp = doc.get("fingerprint") or {}
    cores = (fp.get("cores") or {}).get("cores") or []
    out = ["<h2>Fingerprint</h2>"]
    if cores:
        rows = [
            (
                c["host"],
                c["core"],
                c["rank"],
                "-" if c["share_lost"] is None else f"{c['share_lost']:.2%}",
                "-" if c.get("own_hz") is None else f"{c['own_hz']:.3g} Hz",
                f"{c['disturbed_quanta']}/{c['quanta']}",
                "-"
                if c.get("triad_bytes_per_s") is None
                else f"{c['triad_bytes_per_s'] / 1e9:.3g} GB/s",
                "stands out" if c["stands_out"] else "",
            )
            for c in cores
        ]
        out.append(
            _table(
                ["host", "core", "rank", "detours", "frequency", "disturbed quanta", "triad", ""],
                rows,
                left=1,
            )
        )
    else:
        probe: Mapping[str, Any] = next(
            (p for p in doc.get("phases") or [] if p["name"] == "probe"), {}
        )
        out.append(f"<p class=note>cores not probed: {escape(probe.get('reason') or '-')}</p>")
    check = fp.get("check")
    if check:
        out.append("<pre>" + escape("\n".join(check["verdicts"])) + "</pre>")
    return "".join(out)


def _phases(doc: Mapping[str, Any]) -> str:
    rows = [
        (
            p["name"],
            p["status"],
            p.get("ranks") or "-",
            "-" if p.get("seconds") is None else f"{p['seconds']:.1f}",
            p.get("error") or p.get("reason") or "",
        )
        for p in doc.get("phases") or []
    ]
    return "<h2>Phases</h2>" + _table(
        ["phase", "status", "ranks", "seconds", ""], rows, left=2, last_left=True
    )


def render_health_html(docs: Sequence[Mapping[str, Any]], sources: Sequence[str]) -> str:
    """The page of one or more health documents."""
    sections = []
    for doc, source in zip(docs, sources, strict=True):
        env = doc.get("environment") or {}
        where = (
            f"simulated, platform {env.get('platform')}"
            if env.get("simulated")
            else (env.get("launcher") or "")
        )
        sections.append(
            f"<section><h1>mpiscope health: {escape(source)}</h1>"
            f"<p class=note>{escape(env.get('ranks'))} ranks on {len(env.get('hosts') or [])} "
            f"node(s); {escape(where)}; {escape(doc.get('start_time_utc'))}; status "
            f"{escape(doc.get('status'))}</p>"
            + _verdict(doc)
            + _links(doc)
            + _node_bars(doc)
            + _stragglers(doc)
            + _fingerprint(doc)
            + _phases(doc)
            + "</section>"
        )
    return page("mpiscope health", "\n".join(sections), _STYLE)


def write_health_html(docs: Sequence[Mapping[str, Any]], sources: Sequence[str], out: Path) -> None:
    """Write the page to ``out`` (replaced if it exists)."""
    outputs.write_text(out, render_health_html(docs, sources))
