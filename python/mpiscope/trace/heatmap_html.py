"""The heat map in HTML: a canvas panel (a row per rank, colored by the
share of each bin in MPI; the per-function breakdown stacked under it),
self-contained, on its own page (``trace heatmap -o x.html``) or above the
timeline of ``trace view``, where clicking a cell shows its bin in the
timeline. Hovering a cell tells its rank, time and share;
``window.heatmap`` lets a script read what was drawn."""

from __future__ import annotations

import json
from typing import Any

from mpiscope.html_page import escape, page

__all__ = ["render_heatmap_page", "render_heatmap_panel"]

SCRIPT = r"""
(function () {
const H = HEATMAP, cv = document.getElementById('hm'), fc = document.getElementById('hmf');
const tip = document.getElementById('hmtip'), LEFT = 130, TOP = 18, FH = 150;
const rows = H.rows.length, bins = H.values.length ? H.values[0].length : 0;
const RH = Math.max(2, Math.min(18, Math.floor(420 / Math.max(1, rows))));
const dpr = window.devicePixelRatio || 1;
const VIR = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
function color(v) {
  if (v === null) return '#e0e0e0';
  const x = Math.max(0, Math.min(1, v)) * (VIR.length - 1), i = Math.min(VIR.length - 2,
    Math.floor(x)), f = x - i, a = VIR[i], b = VIR[i + 1];
  return 'rgb(' + [0, 1, 2].map(k => Math.round(a[k] + (b[k] - a[k]) * f)).join(',') + ')';
}
const PAL = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
             '#bcbd22', '#17becf', '#7f7f7f'];
const GRAY = {'not in MPI': '#d5e8d4', 'other MPI': '#8c8c8c', "tracer's clock sync": '#f0dfb8'};
let k = 0;
const fills = H.layers.map(l => GRAY[l[0]] || PAL[k++ % PAL.length]);
document.getElementById('hmlegend').innerHTML = H.layers.map((l, i) =>
  '<span style="color:' + fills[i] + '">&#9632;</span> ' +
  l[0].replace(/&/g, '&amp;').replace(/</g, '&lt;')).join(' ');
const W = () => cv.clientWidth - LEFT - 10;
function fit(c, h) { c.width = Math.round(c.clientWidth * dpr); c.height = Math.round(h * dpr);
  c.style.height = h + 'px'; const g = c.getContext('2d'); g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return g; }
function unit(ns) { return ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] :
  ns >= 1e3 ? [1e3, 'us'] : [1, 'ns']; }
function fmt(ns, span) { const u = unit(Math.max(Math.abs(ns), span));
  return (ns / u[0]).toFixed(Math.max(0, 3 - Math.floor(Math.log10(Math.max(span, 1) / u[0]) + 1)))
    + ' ' + u[1]; }
const span = H.end_ns - H.begin_ns, bw = span / Math.max(1, bins);
const X = b => Math.round(LEFT + b / Math.max(1, bins) * W());  // whole pixels: no seams
function axis(g, y) {
  g.fillStyle = '#444'; g.font = '10px sans-serif'; g.textBaseline = 'alphabetic';
  for (let i = 0; i <= 10; i++) { const x = LEFT + i / 10 * W(), t = H.begin_ns + i / 10 * span;
    g.fillRect(x, y, 1, 4); const s = fmt(t, span / 10);
    g.fillText(s, Math.min(x - g.measureText(s).width / 2, LEFT + W() - g.measureText(s).width),
               y + 14); }
}
const drawn = {cells: 0, layers: 0};
function draw() {
  const g = fit(cv, TOP + rows * RH + 22);
  g.font = '11px sans-serif'; g.textBaseline = 'middle'; drawn.cells = 0;
  const every = Math.max(1, Math.ceil(12 / RH));
  H.rows.forEach((label, r) => {
    if (r % every === 0) { g.fillStyle = '#000'; g.fillText(label, 4, TOP + r * RH + RH / 2); }
    H.values[r].forEach((v, b) => { g.fillStyle = color(v);
      g.fillRect(X(b), TOP + r * RH, X(b + 1) - X(b), RH); drawn.cells++; });
  });
  axis(g, TOP + rows * RH + 2);
  if (!fc) return;
  const f = fit(fc, FH + 32), below = new Float64Array(bins);
  H.layers.forEach((l, i) => { f.fillStyle = fills[i];
    l[1].forEach((v, b) => { const h = (v || 0) * FH;
      f.fillRect(X(b), TOP / 2 + FH - below[b] - h, X(b + 1) - X(b), h); below[b] += h; });
    drawn.layers++; });
  f.fillStyle = '#000'; f.font = '10px sans-serif'; f.textBaseline = 'middle';
  [0, 50, 100].forEach(p => f.fillText(p + '%', LEFT - 30, TOP / 2 + FH - p / 100 * FH));
  axis(f, TOP / 2 + FH + 2);
}
function cell(ev) {
  const b = Math.floor((ev.offsetX - LEFT) / (W() / bins)), r = Math.floor((ev.offsetY - TOP) / RH);
  return (b >= 0 && b < bins && r >= 0 && r < rows) ? [r, b] : null;
}
cv.addEventListener('mousemove', ev => {
  const c = cell(ev); tip.style.display = 'none'; if (!c) return;
  const v = H.values[c[0]][c[1]], t0 = H.begin_ns + c[1] * bw;
  tip.textContent = H.rows[c[0]] + ', ' + fmt(t0, bw) + ' to ' + fmt(t0 + bw, bw) + ': ' +
    (v === null ? 'not running the program' : (100 * v).toFixed(1) + '% in ' + H.selection);
  tip.style.left = (ev.pageX + 12) + 'px'; tip.style.top = (ev.pageY + 12) + 'px';
  tip.style.display = 'block';
});
cv.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
cv.addEventListener('click', ev => {
  const c = cell(ev); if (!c || !window.timeline) return;
  const t0 = H.begin_ns + c[1] * bw; window.timeline.view(t0, t0 + bw);
  document.getElementById('tl').scrollIntoView({behavior: 'smooth', block: 'nearest'});
});
window.addEventListener('resize', draw);
window.heatmap = {data: H, state: () => ({...drawn}), rowHeight: RH, left: LEFT, top: TOP};
draw();
})();
"""


def render_heatmap_panel(data: dict[str, Any], clickable: bool) -> str:
    """The panel's HTML (heading, canvases, legend, script) for the data of
    :func:`mpiscope.trace.heatmap.heatmap_data` (with its ``selection``)."""
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    hint = " Click a cell to show its bin in the timeline." if clickable else ""
    return f"""<div id="heatmap">
<p><b>{escape(data["colorbar"])}</b>: dark 0%, yellow 100%.{hint}
{escape(data["note"])}</p>
<canvas id="hm" style="width:100%;display:block;cursor:{'pointer' if clickable else 'default'}">
</canvas>
<p>Time per function, stacked (share of the ranks' time): <span id="hmlegend"></span></p>
<canvas id="hmf" style="width:100%;display:block"></canvas>
<div id="hmtip" style="position:absolute;display:none;background:#ffd;border:1px solid #aa8;
padding:2px 5px;font-size:12px;pointer-events:none"></div>
<script>const HEATMAP = {payload};{SCRIPT}</script>
</div>"""


def render_heatmap_page(data: dict[str, Any]) -> str:
    """A self-contained page of the heat map alone."""
    body = f'<h3>{escape(data["title"])}</h3>\n{render_heatmap_panel(data, clickable=False)}'
    return page(data["title"], body, "body { font: 13px sans-serif; margin: 16px; }")
