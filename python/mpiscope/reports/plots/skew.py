"""``start-skew``: max(start) - min(start) over ranks, per launch from the
raw samples when the point kept them, else the point's median and maximum."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.reports.plots.common import Doc, Pt, scaled_values, time_unit, y_scale
from mpiscope.reports.plots.figure import Panel, Plot, Series
from mpiscope.result.units import format_bytes

__all__ = ["skew_plot"]


def skew_plot(docs: Sequence[Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    uses_raw = uses_summary = False
    for doc in docs:
        categories: list[str] = []
        groups: dict[str, tuple[list[str], list[float]]] = {}
        for pt in doc.points:
            if pt.method != "window":
                continue
            category = _skew_category(pt, doc)
            raw = pt.point.get("raw")
            found = False
            if raw and raw.get("start_ns"):
                for valid, start in zip(raw.get("valid") or [], raw["start_ns"], strict=False):
                    if start:
                        name = "valid launches" if valid else "invalid launches"
                        _add(groups, name, category, max(start) - min(start))
                        found = uses_raw = True
            elif pt.point.get("start_skew"):
                skew = pt.point["start_skew"]
                for name, key in (
                    ("median of the launches", "median_ns"),
                    ("maximum of the launches", "max_ns"),
                ):
                    if skew.get(key) is not None:
                        _add(groups, name, category, float(skew[key]))
                        found = uses_summary = True
            if found and category not in categories:
                categories.append(category)
        if not categories:
            continue
        unit, scale = time_unit(v for _c, values in groups.values() for v in values)
        order = (
            "valid launches",
            "invalid launches",
            "median of the launches",
            "maximum of the launches",
        )
        series = tuple(
            Series(
                name, tuple(groups[name][0]), scaled_values(groups[name][1], scale), style="points"
            )
            for name in order
            if name in groups
        )
        panels.append(
            Panel(
                title=f"{doc.label}: start skew" if several else "start skew",
                xlabel="point",
                ylabel=f"start skew ({unit})",
                xscale="category",
                yscale="symlog" if y_scale(v for s in series for v in s.y) == "log" else "linear",
                series=series,
                categories=tuple(categories),
            )
        )
    if not panels:
        return None
    sources = []
    if uses_raw:
        sources.append("every launch from the raw samples (valid and invalid launches apart)")
    if uses_summary:
        sources.append(
            "the median and maximum over a point's launches where it kept no raw samples"
        )
    note = (
        "Start skew: latest minus earliest start of a launch over the ranks, on the global "
        f"clock (window method): {'; '.join(sources)}."
    )
    return Plot("start-skew", "Start skew of the launches", tuple(panels), note)


def _skew_category(pt: Pt, doc: Doc) -> str:
    text = pt.op
    if doc.result.varied == "nprocs":
        text += f" np={pt.nprocs}"
    elif pt.size is not None:
        text += f" {format_bytes(pt.size)}"
    if len(doc.caches) > 1:
        text += f" {pt.cache}"
    return text


def _add(groups: dict[str, tuple[list[str], list[float]]], name: str, x: str, y: float) -> None:
    xs, ys = groups.setdefault(name, ([], []))
    xs.append(x)
    ys.append(y)
