"""The figures of the models, as :class:`~mpiscope.reports.plots.figure.Plot`
data drawn by :func:`~mpiscope.reports.plots.render.render`: ``mpiscope
model check --plot`` (measured and predicted times against size, a panel
per operation and process count) and the fit of a model document (the
measured one-way ping-pong time against the model's, ``mpiscope html``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope.models.check import CheckRow
from mpiscope.reports.plots.figure import Panel, Plot, Series
from mpiscope.reports.plots.render import render

__all__ = ["check_plot", "fit_plot", "save_check_plot"]


def _panel(title: str, ylabel: str, series: Sequence[Series]) -> Panel:
    return Panel(title, "size", ylabel, "log2", "log", tuple(series), xbytes=True)


def check_plot(rows: Sequence[CheckRow], title: str) -> Plot:
    groups: dict[tuple[str, int], list[CheckRow]] = {}
    for row in sorted(rows, key=lambda r: (r.op, r.nprocs, r.size_bytes)):
        groups.setdefault((row.op, row.nprocs), []).append(row)
    panels = []
    for (op, nprocs), mine in groups.items():
        sizes = tuple(float(max(r.size_bytes, 1)) for r in mine)
        series = [Series("measured", sizes, tuple(r.measured_ns / 1000 for r in mine),
                         style="points")]  # fmt: skip
        series += [Series(name.split(":", 1)[1], sizes,
                          tuple(r.predicted_ns[name] / 1000 for r in mine))
                   for name in mine[0].predicted_ns]  # fmt: skip
        panels.append(_panel(f"{op}, {nprocs} ranks", "time (us)", series))
    return Plot("model-check", title, tuple(panels),
                "measured medians (points) and each algorithm's prediction (lines)")  # fmt: skip


def fit_plot(doc: Mapping[str, Any]) -> Plot | None:
    """The measured one-way time and the model's at the fitted sizes; None
    when the document has no fit error (no ping-pong reference)."""
    points = doc["fit_error"]["points"]
    if not points:
        return None
    sizes = tuple(float(max(p["size_bytes"], 1)) for p in points)
    series = [Series("measured", sizes, tuple(p["measured_ns"] / 1000 for p in points),
                     style="points"),
              Series(f"{doc['model']} model", sizes,
                     tuple(p["model_ns"] / 1000 for p in points))]  # fmt: skip
    return Plot("model-fit", f"{doc['model']} model", (_panel("", "one-way time (us)", series),),
                "measured one-way ping-pong time and the model's")  # fmt: skip


def save_check_plot(rows: Sequence[CheckRow], path: Path, title: str) -> None:
    """Draw the check as ``path``, in the format its suffix names (.png, .svg, .pdf)."""
    render(check_plot(rows, title), path, path.suffix.lower().lstrip("."))
