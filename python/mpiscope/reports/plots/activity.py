"""The heat map of a trace as a picture: time on x, a row per rank (or group
of ranks) colored by the share of each bin spent in MPI, and below it the
per-function breakdown (each function's share of the ranks' time,
stacked, with the time not in MPI on top).

:class:`ActivityMap` is plain data (the trace's heat map computes it:
:mod:`mpiscope.trace.heatmap`); :func:`render_activity` draws it with
matplotlib (Agg, imported lazily, its own canvas as in :mod:`.render`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.reports.plots.render import FORMATS

__all__ = ["ActivityMap", "render_activity"]

_LABELLED_ROWS = 40  # more rows than this: label some of them
_GREYS = {"not in MPI": "#d5e8d4", "other MPI": "#8c8c8c", "tracer's clock sync": "#f0dfb8"}


@dataclass(frozen=True)
class ActivityMap:
    """``values[row][bin]``: share in [0, 1] (None: the row's ranks were not
    running); ``layers``: (label, share of the ranks' time per bin);
    ``begin``/``end``: the window in the unit of ``xlabel``."""

    title: str
    xlabel: str
    begin: float
    end: float
    rows: tuple[str, ...]
    values: Sequence[Sequence[float | None]]
    colorbar: str
    layers: tuple[tuple[str, Sequence[float | None]], ...]
    note: str


def render_activity(act: ActivityMap, fmt: str = "png") -> bytes:
    """Draw ``act``; the file's bytes (the caller writes them)."""
    if fmt not in FORMATS:
        raise MpiscopeError(f"unknown plot format {fmt!r} (known: {', '.join(FORMATS)})")
    import io
    import textwrap

    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = len(act.rows)
    top_in = min(max(1.6, 0.16 * rows + 0.9), 7.5)
    bottom_in = 3.2 if act.layers else 0.0
    note = textwrap.fill(act.note, 130) if act.note else ""
    with matplotlib.rc_context({"font.size": 9, "axes.titlesize": 10, "svg.fonttype": "path",
                                "svg.hashsalt": "mpiscope", "pdf.fonttype": 42}):
        figure = Figure(figsize=(11.0, top_in + bottom_in + 0.9 + 0.16 * note.count("\n")),
                        layout="constrained")
        FigureCanvasAgg(figure)
        figure.suptitle(act.title, fontsize=11, fontweight="bold")
        grid = figure.add_gridspec(2 if act.layers else 1, 1,
                                   height_ratios=[top_in, bottom_in] if act.layers else [1])
        ax = figure.add_subplot(grid[0])
        _draw_map(figure, ax, act)
        if act.layers:
            _draw_layers(figure.add_subplot(grid[1], sharex=ax), act)
        if note:
            figure.supxlabel(note, fontsize=7.5, x=0.01, ha="left", color="0.25")
        buffer = io.BytesIO()
        figure.savefig(buffer, format=fmt, dpi=110,
                       metadata={"Date": None} if fmt in ("svg", "pdf") else {})
    return buffer.getvalue()


def _draw_map(figure: Any, ax: Any, act: ActivityMap) -> None:
    import matplotlib
    import numpy as np

    values = np.array([[np.nan if v is None else v for v in row] for row in act.values],
                      dtype=float).reshape(len(act.rows), -1)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.88")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0.0, vmax=1.0,
                      aspect="auto", interpolation="nearest",
                      extent=(act.begin, act.end, len(act.rows) - 0.5, -0.5))
    step = max(1, -(-len(act.rows) // _LABELLED_ROWS))
    ticks = list(range(0, len(act.rows), step))
    ax.set_yticks(ticks)
    ax.set_yticklabels([act.rows[i] for i in ticks], fontsize=7 if len(ticks) > 16 else 8)
    ax.set_xlim(act.begin, act.end)
    ax.set_title(act.colorbar)
    if not act.layers:
        ax.set_xlabel(act.xlabel)
    figure.colorbar(image, ax=ax, label="share of the bin", shrink=0.95, pad=0.01)


def _draw_layers(ax: Any, act: ActivityMap) -> None:
    import numpy as np

    bins = len(act.layers[0][1])
    edges = np.linspace(act.begin, act.end, bins + 1)
    below = np.zeros(bins)
    color = 0
    for label, share in act.layers:
        y = np.array([0.0 if v is None else v for v in share], dtype=float) * 100.0
        gray = _GREYS.get(label)
        face = gray or f"C{color % 10}"
        color += gray is None
        top = below + y
        ax.stairs(top, edges, baseline=below, fill=True, color=face, label=label, lw=0)
        below = top
    ax.set_xlim(act.begin, act.end)
    ax.set_ylim(0, max(100.0, float(below.max()) if bins else 100.0))
    ax.set_ylabel("% of the ranks' time")
    ax.set_xlabel(act.xlabel)
    ax.set_title("time per function (stacked)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7.5, frameon=False,
              ncols=min(6, len(act.layers)))
