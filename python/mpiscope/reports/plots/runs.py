"""``runs``: per-run medians as points, with the median over
runs and its interval (documents from ``mpiscope run --runs``)."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.reports.plots.common import (
    Doc,
    Pt,
    positive_x_all,
    scaled_values,
    time_unit,
    unique,
    variant_label,
    x_scale,
    y_scale,
)
from mpiscope.reports.plots.figure import Panel, Plot, Series

__all__ = ["runs_plot"]


def runs_plot(docs: Sequence[Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    for doc in docs:
        if not any(pt.run is not None for pt in doc.points):
            continue
        varied = doc.result.varied
        groups: dict[tuple[str, str, str | None], list[Pt]] = {}
        for pt in doc.points:
            sized = pt.size is not None or varied == "nprocs"
            groups.setdefault((pt.op if sized else "", pt.method, pt.cache), []).append(pt)
        several_variants = len({key[1:] for key in groups}) > 1
        prefix = f"{doc.label}: " if several else ""
        for (op, method, cache), pts in groups.items():
            name = op or "operations without a size"
            if several_variants:
                name = f"{name} ({variant_label(method, cache, doc)})"
            title = prefix + name
            panels.append(_run_panel(title, doc, pts, varied, categorical=not op))
    if not panels:
        return None
    note = (
        "Dots: the median of each run (one mpiscope-bench run) at each point. Markers with "
        "bars: the median of the runs' medians and its interval over runs "
        "(run_summary). Circled in red: the runs disagree (or a point is unstable)."
    )
    return Plot("runs", "Between-run variation", tuple(panels), note)


def _run_panel(
    title: str, doc: Doc, pts: Sequence[Pt], varied: str, categorical: bool
) -> Panel:
    def x_of(pt: Pt) -> float | str:
        if categorical:
            return pt.op
        return pt.nprocs if varied == "nprocs" else (pt.size or 0)

    ordered = sorted(pts, key=lambda p: (str(x_of(p)) if categorical else x_of(p), p.run or 0))
    unit, scale = time_unit(p.point.median_ns for p in ordered)
    dots = Series(
        "run medians",
        tuple(x_of(p) for p in ordered),
        scaled_values((p.point.median_ns for p in ordered), scale),
        style="points",
    )
    xs: list[float | str] = []
    ys: list[float | None] = []
    lows: list[float | None] = []
    highs: list[float | None] = []
    flags: list[bool] = []
    for pt in ordered:
        entry = doc.summary.get(pt.key)
        if entry is None or x_of(pt) in xs:
            continue
        xs.append(x_of(pt))
        ys.append(entry.get("median_ns"))
        lows.append(entry.get("ci_low_ns"))
        highs.append(entry.get("ci_high_ns"))
        flags.append(
            bool(entry.get("disagree"))
            or any(p.point.unstable for p in ordered if x_of(p) == x_of(pt))
        )
    series = [dots]
    if xs:
        series.append(
            Series(
                "median over runs",
                tuple(xs),
                scaled_values(ys, scale),
                scaled_values(lows, scale),
                scaled_values(highs, scale),
                tuple(flags),
                style="interval",
            )
        )
    if categorical:
        xscale = "category"
    elif varied == "nprocs":
        xscale = "linear"
    else:
        xscale = x_scale(x for x in dots.x if isinstance(x, (int, float)))
    if xscale == "log2":
        series = [positive_x_all(s) for s in series]
    return Panel(
        title=title,
        xlabel="operation"
        if categorical
        else ("processes" if varied == "nprocs" else "message size (bytes)"),
        ylabel=f"time ({unit})",
        xscale=xscale,
        yscale=y_scale(v for s in series for v in s.y),
        series=tuple(series),
        categories=tuple(unique(str(x) for x in dots.x)) if categorical else (),
        xbytes=not categorical and varied != "nprocs",
        flag_label="runs disagree (or unstable)",
    )
