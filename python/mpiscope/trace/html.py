"""A self-contained HTML/SVG timeline for small traces (Upshot-style).

One row per rank (and thread), a bar per MPI call coloured by kind, an
arrow per message from the start of the send to the completion of the
receive; arrows that run backwards in time are red. The mouse wheel zooms
around the pointer, dragging pans; hovering a bar or an arrow tells what
it is. Nothing to install: any browser opens the file.
"""

from __future__ import annotations

import html
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.result.units import format_bytes, format_ns
from mpiscope.trace.merge import Merged

__all__ = ["MAX_HTML_CALLS", "render_html", "write_html"]

#: Calls above which the HTML view refuses (use Perfetto for large traces).
MAX_HTML_CALLS = 50_000
WIDTH, ROW, TOP, LEFT = 1200, 34, 40, 130
COLOURS = {
    "send": "#1f77b4", "isend": "#1f77b4", "sendrecv": "#17becf", "isendrecv": "#17becf",
    "recv": "#2ca02c", "irecv": "#2ca02c", "mrecv": "#2ca02c", "imrecv": "#2ca02c",
    "completion": "#d62728", "probe": "#bcbd22", "collective": "#ff7f0e",
    "icollective": "#ffbb78", "init": "#7f7f7f", "finalize": "#7f7f7f",
}
OTHER = "#9467bd"

SCRIPT = """
const svg = document.getElementById('tl'), g = document.getElementById('view');
let scale = 1, shift = 0, drag = null;
function apply() {
  g.setAttribute('transform', `translate(${shift} 0) scale(${scale} 1)`);
  document.querySelectorAll('.tick').forEach((t, k) => {
    const x = WIDTH * k / 10, ns = (x - shift) / scale * SPAN / WIDTH;
    t.textContent = ns >= 1e9 ? (ns / 1e9).toPrecision(3) + ' s' : ns >= 1e6 ?
      (ns / 1e6).toPrecision(3) + ' ms' : ns >= 1e3 ? (ns / 1e3).toPrecision(3) + ' us' :
      ns.toPrecision(3) + ' ns';
  });
}
svg.addEventListener('wheel', e => {
  e.preventDefault();
  const x = e.offsetX - LEFT, f = e.deltaY < 0 ? 1.25 : 0.8;
  shift = x - (x - shift) * f; scale *= f; apply();
});
svg.addEventListener('mousedown', e => { drag = e.clientX; });
window.addEventListener('mouseup', () => { drag = null; });
window.addEventListener('mousemove', e => {
  if (drag !== null) { shift += e.clientX - drag; drag = e.clientX; apply(); }
});
"""


def _rows(merged: Merged) -> dict[tuple[int, int], int]:
    rows: dict[tuple[int, int], int] = {}
    for tl in merged.timelines:
        for thread in sorted({int(t) for t in tl.records["thread"]} | {0}):
            rows[(tl.rank, thread)] = len(rows)
    return rows


def render_html(merged: Merged, title: str) -> str:
    calls = sum(int(t.main.sum()) for t in merged.timelines)
    if calls > MAX_HTML_CALLS:
        raise MpiscopeError(f"the trace has {calls} calls, too many for the HTML view "
                            f"(at most {MAX_HTML_CALLS}): use "
                            "mpiscope trace export --format perfetto")
    rows = _rows(merged)
    span = max(merged.end_ns, 1.0)
    sx = WIDTH / span
    height = TOP + ROW * len(rows) + 20
    parts: list[str] = []
    for (rank, thread), row in rows.items():
        y = TOP + row * ROW
        label = f"rank {rank}" + (f" thread {thread}" if thread else "")
        parts.append(f'<text x="8" y="{y + ROW / 2 + 4:.1f}" class="label">{label}</text>')
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + WIDTH}" y1="{y + ROW / 2:.1f}" '
                     f'y2="{y + ROW / 2:.1f}" class="axis"/>')
    ticks = []
    for k in range(11):
        t = span * k / 10
        ticks.append(f'<text x="{LEFT + t * sx:.1f}" y="24" class="tick">{format_ns(t)}</text>')
    bars: list[str] = []
    for tl in merged.timelines:
        for i in range(len(tl.records)):
            if not tl.main[i]:
                continue
            r = tl.records[i]
            y = TOP + rows[(tl.rank, int(r["thread"]))] * ROW + 6
            x0, x1 = tl.start_ns[i] * sx, tl.end_ns[i] * sx
            tip = f"{tl.name(i)}: {format_ns(tl.end_ns[i] - tl.start_ns[i])}"
            if int(r["bytes"]) > 0:
                tip += f", {format_bytes(int(r['bytes']))}"
            if tl.unfinished[i]:
                tip += " (had not returned)"
            bars.append(f'<rect x="{x0:.2f}" y="{y}" width="{max(x1 - x0, 0.3):.2f}" '
                        f'height="{ROW - 12}" fill="{COLOURS.get(tl.cls(i), OTHER)}">'
                        f"<title>{html.escape(tip)}</title></rect>")
    arrows: list[str] = []
    for m in merged.messages:
        y0 = TOP + rows[(m.src, 0)] * ROW + ROW / 2
        y1 = TOP + rows[(m.dst, 0)] * ROW + ROW / 2
        cls = "back" if m.backwards else "msg"
        tip = (f"rank {m.src} -> {m.dst}, tag {m.tag}, {format_bytes(max(m.bytes, 0))}, "
               f"{format_ns(m.recv_ns - m.send_ns)} send start to receive end")
        arrows.append(f'<line x1="{m.send_ns * sx:.2f}" y1="{y0:.1f}" x2="{m.recv_ns * sx:.2f}" '
                      f'y2="{y1:.1f}" class="{cls}" marker-end="url(#head)">'
                      f"<title>{html.escape(tip)}</title></line>")
    legend = " ".join(f'<span style="color:{c}">&#9632; {k}</span>'
                      for k, c in COLOURS.items() if k in {"send", "recv", "completion",
                                                           "collective", "init", "probe"})
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font: 13px sans-serif; margin: 16px; }}
.label {{ font-size: 12px; }} .tick {{ font-size: 10px; fill: #555; }}
.axis {{ stroke: #ddd; }}
.msg {{ stroke: #222; stroke-width: 1; vector-effect: non-scaling-stroke; }}
.back {{ stroke: #e00; stroke-width: 1.5; vector-effect: non-scaling-stroke; }}
</style></head><body>
<h3>{html.escape(title)}</h3>
<p>{len(merged.trace.ranks)} ranks, {calls} calls, {len(merged.messages)} messages
({merged.backwards} backwards), {format_ns(span)}. Wheel: zoom; drag: pan. {legend}
<span style="color:{OTHER}">&#9632; other</span></p>
<svg id="tl" width="{LEFT + WIDTH + 20}" height="{height}" style="border:1px solid #ccc">
<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6"
markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker>
<clipPath id="clip"><rect x="{LEFT}" y="0" width="{WIDTH}" height="{height}"/></clipPath></defs>
{''.join(parts)}{''.join(ticks)}
<g clip-path="url(#clip)"><g transform="translate({LEFT} 0)"><g id="view">
{''.join(bars)}
{''.join(arrows)}
</g></g></g></svg>
<script>const LEFT = {LEFT}, WIDTH = {WIDTH}, SPAN = {span!r};{SCRIPT}</script>
</body></html>
"""


def write_html(merged: Merged, out: Path) -> int:
    out.write_text(render_html(merged, f"mpiscope trace {merged.trace.directory}"),
                   encoding="utf-8")
    return len(merged.messages)
