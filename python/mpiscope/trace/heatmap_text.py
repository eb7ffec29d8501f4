"""The heat map in a terminal: a line of shade characters per rank (a
character per bin, its height the share of the bin in MPI), then a line per
function of the breakdown; readable on a cluster's login node."""

from __future__ import annotations

import math

import numpy as np

from mpiscope.result.units import format_ns
from mpiscope.trace.heatmap import HeatMap

__all__ = ["render_text"]

SHADES = " ▁▂▃▄▅▆▇█"  # 0, then eighths of the bin
ASCII_SHADES = " .:-=+*#@"
NOT_RUNNING, ASCII_NOT_RUNNING = "·", "~"


def _shade(values: np.ndarray, ascii_only: bool) -> str:
    chars = ASCII_SHADES if ascii_only else SHADES
    out = []
    for v in values:
        if not math.isfinite(v):
            out.append(ASCII_NOT_RUNNING if ascii_only else NOT_RUNNING)
        else:
            out.append(chars[0 if v <= 0 else min(8, max(1, math.ceil(v * 8 - 1e-9)))])
    return "".join(out)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%" if math.isfinite(x) else "     -"


def render_text(hm: HeatMap, max_rows: int = 64, top: int = 8, ascii_only: bool = False,
                title: bool = True) -> str:
    """The heat map as a line of shade characters per rank (a character per
    bin), then a line per function (its share of the ranks' time)."""
    rows = hm.rows(max_rows)
    layers = hm.layers(top) if top > 0 else []
    labels = rows.labels + [layer.label for layer in layers] + ["all ranks"]
    pad = max(len(x) for x in labels) + 1
    chars = ASCII_SHADES if ascii_only else SHADES
    lines = []
    if title:
        lines.append(f"heat map of {hm.directory}: {len(hm.calls)} ranks, {int(hm.calls.sum())} "
                     f"calls; {hm.window}")
    lines.append(f"time in {hm.selection.label} per rank: {hm.bins} bins of "
                 f"{format_ns(hm.width_ns)} ({' '.join(chars[1:])}: up to 1/8 .. 8/8 of the "
                 f"bin; blank: none; {ASCII_NOT_RUNNING if ascii_only else NOT_RUNNING}: not "
                 "running the program)")
    left, right = format_ns(hm.begin_ns), format_ns(hm.end_ns)
    axis = left + " " * max(1, hm.bins + 2 - len(left) - len(right)) + right
    lines.append(" " * pad + axis + "  share")
    for label, share, total in zip(rows.labels, rows.share, rows.totals, strict=True):
        lines.append(f"{label:<{pad}}|{_shade(share, ascii_only)}|{_pct(total)}")
    run = hm.running_ns.sum(axis=0)
    sel = hm.selected_ns.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        everyone = np.where(run > 0, sel / run, np.nan)
    total_run = float(run.sum())
    lines.append(f"{'all ranks':<{pad}}|{_shade(everyone, ascii_only)}|"
                 f"{_pct(float(sel.sum()) / total_run if total_run > 0 else math.nan)}")
    if layers:
        lines += ["", f"time per function (share of the ranks' time; top {top} of "
                  f"{hm.selection.label})"]
        every = hm.ranks_ns
        whole = float(every.sum())
        for layer in layers:
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(every > 0, layer.ns / every, np.nan)
            lines.append(f"{layer.label:<{pad}}|{_shade(share, ascii_only)}|"
                         f"{_pct(layer.total_ns / whole if whole > 0 else math.nan)}")
    lines += [f"note: {n}" for n in hm.notes(rows)]
    return "\n".join(lines)
