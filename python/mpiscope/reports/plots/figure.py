"""A figure as plain data: :class:`Plot` (panels of :class:`Series` or a
:class:`Heatmap`), every number already in the unit of its axis. No
matplotlib here: :mod:`.render` draws it, the golden files compare it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Heatmap", "Panel", "Plot", "Series", "plots_as_json"]


@dataclass(frozen=True)
class Series:
    """One line or set of markers. ``x`` are numbers, or category names for a
    category axis; ``y``, ``low``, ``high`` are in the panel's y unit;
    ``flagged`` marks points not to trust (unstable, runs disagree).

    ``style``: "line" (a line, and a band between low and high), "points"
    (markers only) or "interval" (markers with error bars low..high).
    """

    label: str
    x: tuple[float | str, ...]
    y: tuple[float | None, ...]
    low: tuple[float | None, ...] | None = None
    high: tuple[float | None, ...] | None = None
    flagged: tuple[bool, ...] | None = None
    style: str = "line"


@dataclass(frozen=True)
class Heatmap:
    """A grid of cells: ``values[row][column]`` in [0, 1] gives the color,
    ``texts[row][column]`` the annotation (None: no data)."""

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]
    texts: tuple[tuple[str | None, ...], ...]
    colorbar: str


@dataclass(frozen=True)
class Panel:
    """One set of axes. ``xscale``: "log2", "linear" or "category" (then
    ``categories`` gives the order); ``yscale``: "log", "symlog" (logarithmic
    above 1, linear below, so zeros show) or "linear"; ``xbytes``: x values
    are sizes in bytes; ``flag_label``: the legend of flagged points;
    ``reference``: a horizontal line to compare with (a ratio of 1)."""

    title: str
    xlabel: str
    ylabel: str
    xscale: str
    yscale: str
    series: tuple[Series, ...] = ()
    heatmap: Heatmap | None = None
    reference: float | None = None
    categories: tuple[str, ...] = ()
    xbytes: bool = False
    flag_label: str = "unstable"


@dataclass(frozen=True)
class Plot:
    """One figure: its file name (without extension), title, panels and a
    caption saying what is drawn."""

    name: str
    title: str
    panels: tuple[Panel, ...]
    note: str


def plots_as_json(plots: Sequence[Plot]) -> list[dict[str, Any]]:
    """The plots as plain JSON values (tuples become lists)."""
    data: list[dict[str, Any]] = json.loads(
        json.dumps([dataclasses.asdict(plot) for plot in plots], allow_nan=False)
    )
    return data
