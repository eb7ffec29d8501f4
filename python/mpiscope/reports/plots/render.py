"""Drawing the figures of :mod:`mpiscope.reports.plots.data` with matplotlib.

:func:`render` draws one :class:`~mpiscope.reports.plots.data.Plot` (matplotlib with
the Agg backend, imported lazily so ``mpiscope --help`` stays instant) and
returns the file's bytes; :func:`write_plots` draws every figure of some
result documents into a folder (``mpiscope plot``). Each figure gets its
own Agg canvas: pyplot and the global backend are never touched, so a
Jupyter session calling these keeps its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.plots.figure import Heatmap, Panel, Plot, Series
from mpiscope.result import Result
from mpiscope.result.units import format_bytes

__all__ = ["FORMATS", "render", "write_plots"]

#: Output formats of :func:`render` / ``mpiscope plot --format``.
FORMATS = ("png", "svg", "pdf")

_MAX_TICKS = 11
_MAX_ANNOTATED_CELLS = 240

_STYLE: Any = {  # matplotlib rc names
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.framealpha": 0.85,
    "svg.fonttype": "path",
    "svg.hashsalt": "mpiscope",
    "pdf.fonttype": 42,
}
_FLAG_STYLE = {"ls": "none", "marker": "o", "ms": 10, "mfc": "none", "mec": "#d62728", "mew": 1.6}


def render(plot: Plot, path: Path | None = None, fmt: str = "png") -> bytes:
    """Draw ``plot``; write it to ``path`` if given; return the file's bytes."""
    if fmt not in FORMATS:
        raise MpiscopeError(f"unknown plot format {fmt!r} (known: {', '.join(FORMATS)})")
    import io

    import matplotlib  # lazy: keeps `mpiscope --help` fast
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_STYLE):
        # Two panels a row, unless a panel is wide (many categories) on its own.
        wide = max(_panel_width(p) for p in plot.panels) > 9.0
        ncols = 1 if len(plot.panels) == 1 or wide else 2
        nrows = math.ceil(len(plot.panels) / ncols)
        width = max(_panel_width(p) for p in plot.panels) * ncols
        figure = Figure(figsize=(width, 4.2 * nrows + 0.6), layout="constrained")
        FigureCanvasAgg(figure)  # this figure's own Agg canvas: no global backend switch
        figure.suptitle(plot.title, fontsize=13, fontweight="bold")
        axes = figure.subplots(nrows, ncols, squeeze=False)
        for ax, panel in zip(axes.flat, plot.panels, strict=False):
            _draw_panel(figure, ax, panel)
        for ax in list(axes.flat)[len(plot.panels) :]:
            ax.set_visible(False)
        buffer = io.BytesIO()
        metadata = {"Date": None} if fmt in ("svg", "pdf") else {}
        figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    data = buffer.getvalue()
    if path is not None:
        outputs.write_bytes(path, data)
    return data


def write_plots(
    results: Sequence[Result],
    out_dir: Path,
    fmt: str = "png",
    labels: Sequence[str] | None = None,
) -> list[Path]:
    """Draw every figure of :func:`plot_data` into ``out_dir`` (created if
    needed, one level; files of the same name are replaced); return the
    paths written."""
    if fmt not in FORMATS:
        raise MpiscopeError(f"unknown plot format {fmt!r} (known: {', '.join(FORMATS)})")
    plots = plot_data(results, labels)
    if not plots:
        raise MpiscopeError("nothing to plot: the result has no measured point")
    outputs.check_output_dir(out_dir, "--out")
    written = []
    for plot in plots:
        path = out_dir / f"{plot.name}.{fmt}"
        render(plot, path, fmt)
        written.append(path)
    return written


def _panel_width(panel: Panel) -> float:
    if panel.xscale == "category":
        count = len(panel.heatmap.columns) if panel.heatmap else len(panel.categories)
        return min(max(6.5, 0.45 * count + 2.5), 16.0)
    return 8.0 if len(panel.series) > 6 else 6.5


def _draw_panel(figure: Any, ax: Any, panel: Panel) -> None:
    ax.set_title(panel.title)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if panel.heatmap is not None:
        _draw_heatmap(figure, ax, panel.heatmap)
        return
    flagged_x: list[float] = []
    flagged_y: list[float] = []
    dodge = _dodge(panel)
    for index, series in enumerate(panel.series):
        xs = _positions(panel, series, dodge[index])
        ys = _nan(series.y)
        color = f"C{index % 10}"
        if series.style == "line":
            ax.plot(xs, ys, marker="o", ms=3.5, lw=1.6, color=color, label=series.label)
            if series.low is not None and series.high is not None:
                ax.fill_between(
                    xs, _nan(series.low), _nan(series.high), color=color, alpha=0.2, lw=0
                )
        elif series.style == "interval":
            low, high = _nan(series.low or series.y), _nan(series.high or series.y)
            below = [
                0.0 if math.isnan(y - lo) else max(0.0, y - lo)
                for y, lo in zip(ys, low, strict=True)
            ]
            above = [
                0.0 if math.isnan(hi - y) else max(0.0, hi - y)
                for y, hi in zip(ys, high, strict=True)
            ]
            ax.errorbar(
                xs,
                ys,
                yerr=[below, above],
                fmt="D",
                ms=5,
                capsize=4,
                color=color,
                label=series.label,
                zorder=3,
            )
        else:
            ax.plot(
                xs, ys, ls="none", marker="o", ms=4.5, alpha=0.6, color=color, label=series.label
            )
        for x, y, flag in zip(xs, ys, series.flagged or (), strict=False):
            if flag:
                flagged_x.append(x)
                flagged_y.append(y)
    if flagged_x:
        ax.plot(flagged_x, flagged_y, **_FLAG_STYLE, label=panel.flag_label, zorder=4)
    if panel.reference is not None:
        ax.axhline(panel.reference, color="0.3", lw=1, ls="--", label="window method")
    _set_x_axis(ax, panel)
    _set_y_axis(ax, panel)
    if len(panel.series) > 1 or flagged_x or panel.reference is not None:
        ax.legend(loc="best", ncols=2 if len(panel.series) > 6 else 1)


def _dodge(panel: Panel) -> list[float]:
    """A small sideways shift per series, so markers at the same x stay
    visible: only for markers (lines and bands are never shifted)."""
    marked = [i for i, s in enumerate(panel.series) if s.style != "line"]
    shifts = [0.0] * len(panel.series)
    if len(marked) < 2:
        return shifts
    step = 0.16 if panel.xscale in ("category", "log2") else 0.05
    for rank, index in enumerate(marked):
        shifts[index] = (rank - (len(marked) - 1) / 2) * step
    return shifts


def _positions(panel: Panel, series: Series, shift: float) -> list[float]:
    if panel.xscale == "category":
        where = {name: float(i) for i, name in enumerate(panel.categories)}
        out = []
        seen: dict[str, int] = {}
        for x in series.x:
            # Many markers in one category (raw launches): spread them a little.
            k = seen.get(str(x), 0)
            seen[str(x)] = k + 1
            spread = ((k % 5) - 2) * 0.03 if series.style == "points" else 0.0
            out.append(where[str(x)] + shift + spread)
        return out
    values = [float(x) for x in series.x if isinstance(x, (int, float))]
    if panel.xscale == "log2":
        return [v * 2.0**shift for v in values]
    return [v + shift for v in values]


def _set_y_axis(ax: Any, panel: Panel) -> None:
    from matplotlib.ticker import FuncFormatter

    positive = any(y is not None and y > 0 for s in panel.series for y in s.y)
    if panel.yscale == "log" and positive:  # nothing measured: a log axis has no range
        ax.set_yscale("log")
    elif panel.yscale == "symlog":
        ax.set_yscale("symlog", linthresh=1.0)
        top = max((y for s in panel.series for y in s.y if y is not None), default=1.0)
        ax.set_ylim(0.0, max(top, 1.0) * 2.0)  # room above the highest marker
    if panel.yscale == "symlog" or panel.yscale == "log" and positive:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))


def _nan(values: Sequence[float | None]) -> list[float]:
    return [math.nan if v is None else v for v in values]


def _set_x_axis(ax: Any, panel: Panel) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    if panel.xscale == "category":
        ax.set_xticks(range(len(panel.categories)))
        rotate = (
            len(panel.categories) > 6 or max((len(c) for c in panel.categories), default=0) > 12
        )
        ax.set_xticklabels(
            panel.categories,
            rotation=60 if rotate else 0,
            ha="right" if rotate else "center",
            fontsize=8 if rotate else 9,
        )
        ax.set_xlim(-0.6, len(panel.categories) - 0.4)
        ax.grid(False, axis="x")
        return
    xs = sorted({float(x) for s in panel.series for x in s.x if isinstance(x, (int, float))})
    if panel.xscale == "log2" and any(x > 0 for x in xs):
        ax.set_xscale("log", base=2)
    if not xs:
        return
    step = max(1, math.ceil(len(xs) / _MAX_TICKS))
    ax.xaxis.set_major_locator(FixedLocator(xs[::step]))
    ax.xaxis.set_minor_locator(NullLocator())
    if panel.xbytes:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: format_bytes(int(v))))
        for label in ax.get_xticklabels():
            label.set_rotation(30)
    else:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))


def _draw_heatmap(figure: Any, ax: Any, heatmap: Heatmap) -> None:
    import numpy as np

    values = np.array(
        [[math.nan if v is None else v for v in row] for row in heatmap.values], dtype=float
    )
    masked = np.ma.masked_invalid(values)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.9")
    image = ax.imshow(masked, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(heatmap.columns)))
    ax.set_xticklabels(heatmap.columns, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(heatmap.rows)))
    ax.set_yticklabels(heatmap.rows, fontsize=8)
    ax.grid(False)
    if len(heatmap.rows) * len(heatmap.columns) <= _MAX_ANNOTATED_CELLS:
        for r, row in enumerate(heatmap.texts):
            for c, text in enumerate(row):
                if text is None:
                    continue
                value = values[r][c]
                color = "black" if not math.isnan(value) and value > 0.6 else "white"
                ax.text(
                    c, r, text.replace(" ", "\n"), ha="center", va="center", fontsize=7, color=color
                )
    figure.colorbar(image, ax=ax, label=heatmap.colorbar, shrink=0.9)
