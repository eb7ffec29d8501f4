"""A self-contained HTML timeline (Upshot-style), drawn for the visible range.

One row per rank (and thread), a bar per MPI call colored by kind, an
arrow per message from the start of the send to the completion of the
receive (red when it runs backwards in time), and in colors of their own
an arrow per collective instance (from the last member to arrive to each
other member's completion) and per one-sided transfer (origin to target,
in its epoch), which a checkbox hides. The page holds the calls and
messages as data and a canvas redrawn at every zoom (level of detail):

* a call is drawn at its true width at the current zoom; where a row holds
  more calls than pixels, each pixel column shows the kind that covers most
  of it, shaded by how much of the pixel is inside calls (no minimum width
  is ever baked in);
* tick labels step by 1, 2 or 5 times a power of ten of the visible span,
  with as many digits as that step needs;
* arrows keep their heads at every zoom; when more than ``BUNDLE_AT`` are
  visible, arrows between the same two rows that start and end in the same
  few pixels are drawn as one thicker arrow with their count;
* the legend lists the colors the trace uses;
* the first view is the communication: the calls between MPI_Init and
  MPI_Finalize (double click or "whole run" shows those too).

Wheel: zoom around the pointer; drag: pan; double click: the whole run;
hovering a call tells what it is. ``window.timeline`` lets a script set the
view and read what was drawn (the tests and the docs' screenshots use it).
Nothing to install: any browser opens the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope.html_page import escape, page
from mpiscope.result.units import format_ns
from mpiscope.trace.merge import Merged

__all__ = ["MAX_HTML_CALLS", "render_html", "write_html"]

#: Calls above which the HTML view refuses (use Perfetto for large traces).
MAX_HTML_CALLS = 400_000
#: Arrows visible above which close ones are bundled.
BUNDLE_AT = 200
COLORS = {  # kind -> (legend label, color)
    "send": ("send", "#1f77b4"), "isend": ("send", "#1f77b4"),
    "sendrecv": ("sendrecv", "#17becf"), "isendrecv": ("sendrecv", "#17becf"),
    "recv": ("recv", "#2ca02c"), "irecv": ("recv", "#2ca02c"), "mrecv": ("recv", "#2ca02c"),
    "imrecv": ("recv", "#2ca02c"),
    "completion": ("wait/test", "#d62728"), "probe": ("probe", "#bcbd22"),
    "collective": ("collective", "#ff7f0e"), "icollective": ("icollective", "#ffbb78"),
    "init": ("init/finalize", "#7f7f7f"), "finalize": ("init/finalize", "#7f7f7f"),
    "rma": ("one-sided", "#8c564b"),
}
OTHER = ("other", "#9467bd")
LINK_COLORS = {  # Link.kind -> (legend label, color)
    "collective": ("collective: last to arrive -> each member's completion", "#c85a00"),
    "rma": ("one-sided: origin -> target", "#e7298a"),
}

SCRIPT = r"""
(function () {
const D = DATA, cv = document.getElementById('tl'), ctx = cv.getContext('2d');
const tip = document.getElementById('tip'), LEFT = 130, TOP = 34, ROW = 34, BAR = 20;
const showLinks = document.getElementById('links');
const W = () => cv.clientWidth - LEFT - 10;
let t0 = D.view[0], t1 = D.view[1], drawn = {}, drag = null;
const dpr = window.devicePixelRatio || 1;
function size() {
  cv.width = Math.round(cv.clientWidth * dpr);
  cv.height = Math.round((TOP + ROW * D.rows.length + 10) * dpr);
  cv.style.height = (TOP + ROW * D.rows.length + 10) + 'px';
}
const X = t => LEFT + (t - t0) / (t1 - t0) * W();
const T = x => t0 + (x - LEFT) / W() * (t1 - t0);
function lower(a, v) { let lo = 0, hi = a.length; while (lo < hi) {
  const m = (lo + hi) >> 1; if (a[m] < v) lo = m + 1; else hi = m; } return lo; }
const UNITS = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
function label(t, step) {
  // the unit of the value (s, ms, us, ns), as many decimals as the step needs
  let u = UNITS[3];
  for (const x of UNITS) if (Math.abs(t) >= x[0] || step >= x[0]) { u = x; break; }
  const dec = Math.max(0, Math.ceil(-Math.log10(step / u[0]) - 1e-9));
  return (t / u[0]).toFixed(Math.min(dec, 9)) + ' ' + u[1];
}
function ticks() {
  const span = t1 - t0, raw = span / 10, p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
  const out = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) out.push([t, label(t, step)]);
  return out;
}
function drawRow(r, y, stats) {
  const row = D.rows[r], s = row.s, e = row.e, n = s.length, w = W();
  if (!n) return;
  const first = Math.max(0, lower(s, t0 - row.maxd)), last = lower(s, t1 + 1e-9);
  const px = (t1 - t0) / w;
  if (last - first > 2 * w) {  // level of detail: a pixel column per kind that covers most
    const cover = new Float64Array(w * D.kinds.length);
    for (let i = first; i < last; i++) {
      const a = Math.max(s[i], t0), b = Math.min(e[i], t1); if (b <= a) continue;
      let c0 = Math.floor((a - t0) / px), c1 = Math.floor((b - t0) / px);
      for (let c = c0; c <= Math.min(c1, w - 1); c++) {
        const lo = t0 + c * px, hi = lo + px;
        cover[c * D.kinds.length + row.k[i]] += Math.min(b, hi) - Math.max(a, lo);
      }
    }
    for (let c = 0; c < w; c++) {
      let best = -1, sum = 0, top = 0;
      for (let k = 0; k < D.kinds.length; k++) { const v = cover[c * D.kinds.length + k];
        sum += v; if (v > top) { top = v; best = k; } }
      if (best < 0) continue;
      ctx.globalAlpha = Math.max(0.25, Math.min(1, sum / px));
      ctx.fillStyle = D.kinds[best][1]; ctx.fillRect(LEFT + c, y, 1, BAR);
      stats.bins++;
    }
    ctx.globalAlpha = 1;
    return;
  }
  for (let i = first; i < last; i++) {
    if (e[i] < t0) continue;
    const a = X(s[i]), b = X(e[i]);
    ctx.fillStyle = D.kinds[row.k[i]][1];
    if (b - a < 1) { ctx.globalAlpha = Math.max(0.3, b - a); ctx.fillRect(a, y, 1, BAR);
      ctx.globalAlpha = 1; } else ctx.fillRect(a, y, b - a, BAR);
    stats.bars++;
  }
}
function arrow(x0, y0, x1, y1, color, width) {
  ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = width;
  ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
  const ang = Math.atan2(y1 - y0, x1 - x0), h = 7 + width;
  ctx.beginPath(); ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - h * Math.cos(ang - 0.4), y1 - h * Math.sin(ang - 0.4));
  ctx.lineTo(x1 - h * Math.cos(ang + 0.4), y1 - h * Math.sin(ang + 0.4));
  ctx.closePath(); ctx.fill();
}
// One set of arrows (messages, or collective / one-sided links): each with its
// head when few are visible, else bundled (same rows, start and end in the
// same bin; bins widen until few). color(i, back) for one, (g) for a bundle.
function drawSet(M, color, bundleColor) {
  const mid = r => TOP + r * ROW + BAR / 2 + 4, vis = [];
  for (let i = 0; i < M.s.length; i++) {
    const a = Math.min(M.s[i], M.r[i]), b = Math.max(M.s[i], M.r[i]);
    if (b >= t0 && a <= t1) vis.push(i);
  }
  if (vis.length <= D.bundleAt) {
    for (const i of vis) arrow(X(M.s[i]), mid(M.a[i]), X(M.r[i]), mid(M.b[i]),
                               color(i, M.r[i] < M.s[i]), 1);
    return [vis.length, 0];
  }
  let groups = null;
  for (let bin = 8; ; bin *= 2) {
    groups = new Map();
    for (const i of vis) {
      const back = M.r[i] < M.s[i] ? 1 : 0, k = M.k ? M.k[i] : 0;
      const key = M.a[i] + ',' + M.b[i] + ',' + Math.floor(X(M.s[i]) / bin) + ',' +
        Math.floor(X(M.r[i]) / bin) + ',' + back + ',' + k;
      const g = groups.get(key);
      if (g) { g.n++; g.xs += M.s[i]; g.xr += M.r[i]; }
      else groups.set(key, {n: 1, xs: M.s[i], xr: M.r[i], a: M.a[i], b: M.b[i], back, k});
    }
    if (groups.size <= D.bundleAt / 2 || bin > W()) break;
  }
  ctx.font = '10px sans-serif';
  const labels = groups.size <= 40;
  for (const g of groups.values()) {
    const x0 = X(g.xs / g.n), x1 = X(g.xr / g.n), y0 = mid(g.a), y1 = mid(g.b);
    arrow(x0, y0, x1, y1, bundleColor(g), Math.min(4, 1 + Math.log2(g.n) / 3));
    if (labels && g.n > 1) { ctx.fillStyle = '#000';
      ctx.fillText('\u00d7' + g.n, (x0 + x1) / 2 + 4, (y0 + y1) / 2); }
  }
  return [vis.length, groups.size];
}
function drawArrows(stats) {
  ctx.save(); ctx.beginPath(); ctx.rect(LEFT, 0, W(), cv.height); ctx.clip();
  if (showLinks.checked) {
    [stats.links, stats.linkBundles] = drawSet(D.links, i => D.linkKinds[D.links.k[i]][1],
                                                g => D.linkKinds[g.k][1]);
  }
  [stats.arrows, stats.bundles] = drawSet(D.msgs, (i, back) => back ? '#e00' : '#222',
    g => g.back ? 'rgba(220,0,0,0.8)' : 'rgba(30,30,30,0.7)');
  ctx.restore();
}
function draw() {
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cv.width, cv.height);
  const stats = {bars: 0, bins: 0, arrows: 0, bundles: 0, links: 0, linkBundles: 0, ticks: []};
  ctx.font = '12px sans-serif'; ctx.fillStyle = '#000'; ctx.textBaseline = 'middle';
  D.rows.forEach((row, r) => {
    const y = TOP + r * ROW;
    ctx.fillStyle = '#000'; ctx.fillText(row.label, 8, y + BAR / 2 + 4);
    ctx.fillStyle = '#eee'; ctx.fillRect(LEFT, y + BAR / 2 + 4, W(), 1);
  });
  ctx.save(); ctx.beginPath(); ctx.rect(LEFT, 0, W(), cv.height); ctx.clip();
  D.rows.forEach((row, r) => drawRow(r, TOP + r * ROW + 4, stats));
  ctx.restore();
  drawArrows(stats);
  ctx.font = '10px sans-serif'; ctx.textBaseline = 'alphabetic';
  for (const [t, text] of ticks()) {
    const x = X(t); ctx.fillStyle = '#ccc'; ctx.fillRect(x, 22, 1, 8);
    ctx.fillStyle = '#444';
    if (x + ctx.measureText(text).width < LEFT + W() + 8) ctx.fillText(text, x + 2, 18);
    stats.ticks.push(text);
  }
  document.getElementById('range').textContent =
    'view ' + label(t0, (t1 - t0) / 10) + ' to ' + label(t1, (t1 - t0) / 10) +
    ' (' + label(t1 - t0, (t1 - t0) / 10) + ')';
  drawn = stats;
}
function view(a, b) {
  if (!(b > a)) return; const min = 10;  // ns: narrower tells nothing
  if (b - a < min) { const m = (a + b) / 2; a = m - min / 2; b = m + min / 2; }
  t0 = a; t1 = b; draw();
}
cv.addEventListener('wheel', ev => {
  ev.preventDefault();
  const t = T(ev.offsetX), f = ev.deltaY < 0 ? 0.8 : 1.25;
  view(t - (t - t0) * f, t + (t1 - t) * f);
});
cv.addEventListener('mousedown', ev => { drag = ev.offsetX; });
window.addEventListener('mouseup', () => { drag = null; });
cv.addEventListener('dblclick', () => view(0, D.span));
cv.addEventListener('mousemove', ev => {
  if (drag !== null) { const dt = (ev.offsetX - drag) / W() * (t1 - t0); drag = ev.offsetX;
    view(t0 - dt, t1 - dt); return; }
  const r = Math.floor((ev.offsetY - TOP) / ROW), row = D.rows[r];
  tip.style.display = 'none';
  if (!row || ev.offsetX < LEFT) return;
  const t = T(ev.offsetX), tol = 3 / W() * (t1 - t0);
  let i = lower(row.s, t + tol) - 1;
  while (i >= 0 && row.e[i] < t - tol && row.s[i] > t - row.maxd - tol) i--;
  if (i < 0 || row.e[i] < t - tol) return;
  tip.textContent = D.names[row.n[i]] + ': ' + label(row.e[i] - row.s[i], 1) + ' at ' +
    label(row.s[i], 1) + (row.b[i] > 0 ? ', ' + row.b[i] + ' B' : '');
  tip.style.left = (ev.pageX + 12) + 'px'; tip.style.top = (ev.pageY + 12) + 'px';
  tip.style.display = 'block';
});
document.getElementById('all').onclick = () => view(0, D.span);
showLinks.onchange = () => draw();
document.getElementById('comm').onclick = () => view(D.view[0], D.view[1]);
window.addEventListener('resize', () => { size(); draw(); });
window.timeline = {view, state: () => ({t0, t1, ...drawn}), data: D};
size(); draw();
})();
"""


def _rows(merged: Merged) -> dict[tuple[int, int], int]:
    rows: dict[tuple[int, int], int] = {}
    for tl in merged.timelines:
        for thread in sorted({int(t) for t in tl.records["thread"]} | {0}):
            rows[(tl.rank, thread)] = len(rows)
    return rows


def _communication(merged: Merged) -> tuple[float, float]:
    """From the first call after MPI_Init to the end of the last call before
    MPI_Finalize, over all ranks (the whole run when there is none), with a
    2% margin."""
    begins, ends = [], []
    for tl in merged.timelines:
        if not len(tl.records):
            continue
        cls = np.array(tl.source.classes)[tl.records["func"]]
        inside = tl.main & (cls != "init") & (cls != "finalize")
        if inside.any():
            begins.append(float(tl.start_ns[inside].min()))
            ends.append(float(tl.end_ns[inside].max()))
    begin, end = (min(begins), max(ends)) if begins else (0.0, merged.end_ns)
    if end <= begin:
        begin, end = 0.0, max(merged.end_ns, 1.0)
    margin = (end - begin) * 0.02
    return max(0.0, begin - margin), min(max(merged.end_ns, 1.0), end + margin)


def _data(merged: Merged) -> dict[str, Any]:
    rows = _rows(merged)
    names: dict[str, int] = {}
    kinds: dict[tuple[str, str], int] = {}
    out_rows: list[dict[str, Any]] = [
        {"label": f"rank {rank}" + (f" thread {thread}" if thread else ""), "s": [], "e": [],
         "k": [], "n": [], "b": [], "maxd": 0.0} for rank, thread in rows]
    for tl in merged.timelines:
        for index in np.nonzero(tl.main)[0]:
            i = int(index)
            row = out_rows[rows[(tl.rank, int(tl.records["thread"][i]))]]
            s, e = round(float(tl.start_ns[i]), 1), round(float(tl.end_ns[i]), 1)
            kind = COLORS.get(tl.cls(i), OTHER)
            row["s"].append(s)
            row["e"].append(max(e, s))
            row["k"].append(kinds.setdefault(kind, len(kinds)))
            row["n"].append(names.setdefault(tl.name(i), len(names)))
            row["b"].append(max(int(tl.records["bytes"][i]), 0))
            row["maxd"] = max(row["maxd"], e - s)
    msgs: dict[str, list[Any]] = {"a": [], "b": [], "s": [], "r": []}
    for m in merged.messages:
        msgs["a"].append(rows[(m.src, 0)])
        msgs["b"].append(rows[(m.dst, 0)])
        msgs["s"].append(round(m.send_ns, 1))
        msgs["r"].append(round(m.recv_ns, 1))
    links: dict[str, list[Any]] = {"a": [], "b": [], "s": [], "r": [], "k": []}
    link_kinds = list(LINK_COLORS)
    for link in merged.links:
        links["a"].append(rows[(link.src, 0)])
        links["b"].append(rows[(link.dst, 0)])
        links["s"].append(round(link.src_ns, 1))
        links["r"].append(round(link.dst_ns, 1))
        links["k"].append(link_kinds.index(link.kind))
    return {"rows": out_rows, "kinds": [list(k) for k in kinds], "names": list(names),
            "msgs": msgs, "links": links, "linkKinds": [list(LINK_COLORS[k]) for k in link_kinds],
            "span": max(merged.end_ns, 1.0), "view": list(_communication(merged)),
            "bundleAt": BUNDLE_AT}


STYLE = """body { font: 13px sans-serif; margin: 16px; }
#tl { width: 100%; border: 1px solid #ccc; cursor: grab; display: block; }
#tip { position: absolute; display: none; background: #ffd; border: 1px solid #aa8;
  padding: 2px 5px; font-size: 12px; pointer-events: none; }
button { font-size: 12px; }"""


def render_html(merged: Merged, title: str, panel: str = "") -> str:
    """The page; `panel` (HTML, e.g. the heat map of
    :mod:`mpiscope.trace.heatmap_html`) goes above the timeline."""
    calls = sum(int(t.main.sum()) for t in merged.timelines)
    if calls > MAX_HTML_CALLS:
        raise MpiscopeError(f"the trace has {calls} calls, too many for the HTML view "
                            f"(at most {MAX_HTML_CALLS}): use "
                            "mpiscope trace export --format perfetto")
    data = _data(merged)
    legend = " ".join(f'<span style="color:{c}">&#9632;</span> {escape(k)}'
                      for k, c in dict(data["kinds"]).items())
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    used = set(data["links"]["k"])
    link_legend = (" ".join(f'<span style="color:{c}">&#8594;</span> {escape(label)}'
                            for i, (label, c) in enumerate(data["linkKinds"]) if i in used)
                   + ' <label><input type="checkbox" id="links" checked> these arrows</label>'
                   if used else '<input type="checkbox" id="links" hidden>')
    body = f"""<h3>{escape(title)}</h3>
<p id="about" data-messages="{len(merged.messages)}" data-calls="{calls}">
{len(merged.trace.ranks)} ranks, {calls} calls, {len(merged.messages)} messages
({merged.backwards} backwards, in red), {format_ns(merged.end_ns)}.
Wheel: zoom; drag: pan; double click: the whole run.
<button id="comm">communication</button> <button id="all">whole run</button>
<span id="range"></span></p>
{panel}
<p id="legend">{legend} &#8594; message (send start to receive end)
{link_legend}</p>
<canvas id="tl"></canvas><div id="tip"></div>
<script>const DATA = {payload};{SCRIPT}</script>
"""
    return page(title, body, STYLE)


def write_html(merged: Merged, out: Path, panel: str = "") -> int:
    outputs.write_text(out, render_html(merged, f"mpiscope trace {merged.trace.directory}",
                                        panel))
    return len(merged.messages)
