"""``methods``: each timing method's median over the window method's
median, per size (documents from ``mpiscope methods``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mpiscope.reports.plots.common import (
    Doc,
    Pt,
    median_of,
    positive_x_all,
    unique,
    variant_label,
    x_scale,
    y_scale,
)
from mpiscope.reports.plots.figure import Panel, Plot, Series
from mpiscope.result.estimate import Key

__all__ = ["methods_plot"]


def methods_plot(docs: Sequence[Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    for doc in docs:
        if "window" not in doc.methods or len(doc.methods) < 2:
            continue
        varied = doc.result.varied
        grouped: dict[Key, list[Pt]] = {}
        for pt in doc.points:
            grouped.setdefault(pt.key, []).append(pt)
        medians: dict[Key, float | None] = {}
        for key, pts in grouped.items():
            entry = doc.summary.get(key) if len(pts) > 1 else None
            medians[key] = (
                entry.get("median_ns")
                if entry is not None
                else median_of(p.point.median_ns for p in pts)
            )
        prefix = f"{doc.label}: " if several else ""
        ops = unique(key[0] for key in grouped)
        sized = [
            op
            for op in ops
            if any(k[0] == op and (k[1] is not None or varied == "nprocs") for k in grouped)
        ]
        for op in sized:
            panels.append(_ratio_panel(prefix + op, doc, op, medians, varied))
        unsized = [op for op in ops if op not in sized]
        if unsized:
            panels.append(
                _ratio_category_panel(prefix + "operations without a size", doc, unsized, medians)
            )
    if not panels:
        return None
    note = (
        "Each timing method's median over the window method's median for the same operation, "
        "size, process count and cache mode (merged runs: medians of the runs' "
        "medians). Above 1: the method reports a longer time than the synchronized window."
    )
    return Plot("methods", "Timing methods compared with the window method", tuple(panels), note)


def _ratio(value: float | None, reference: float | None) -> float | None:
    if value is None or reference is None or reference <= 0:
        return None
    return value / reference


def _other_methods(doc: Doc) -> list[tuple[str, str | None]]:
    """(method, cache) of every method but the window, in document order."""
    return unique((p.method, p.cache) for p in doc.points if p.method != "window")


def _ratio_panel(
    title: str,
    doc: Doc,
    op: str,
    medians: Mapping[Key, float | None],
    varied: str,
) -> Panel:
    series: list[Series] = []
    for method, cache in _other_methods(doc):
        xs: list[int] = []
        ys: list[float | None] = []
        for (o, size, nprocs, _m, _c), median in sorted(
            ((k, v) for k, v in medians.items() if k[0] == op and k[3] == method and k[4] == cache),
            key=lambda kv: (kv[0][2], kv[0][1] or 0),
        ):
            x = nprocs if varied == "nprocs" else size
            if x is None:
                continue
            xs.append(x)
            ys.append(_ratio(median, medians.get((o, size, nprocs, "window", cache))))
        if xs:
            series.append(Series(variant_label(method, cache, doc), tuple(xs), tuple(ys)))
    xscale = (
        "linear"
        if varied == "nprocs"
        else x_scale(x for s in series for x in s.x if isinstance(x, (int, float)) and x > 0)
    )
    if xscale == "log2":
        series = [positive_x_all(s) for s in series]
    return Panel(
        title=title,
        xlabel="processes" if varied == "nprocs" else "message size (bytes)",
        ylabel="time / window method's time",
        xscale=xscale,
        yscale=y_scale(v for s in series for v in s.y),
        series=tuple(series),
        reference=1.0,
        xbytes=varied != "nprocs",
    )


def _ratio_category_panel(
    title: str,
    doc: Doc,
    ops: Sequence[str],
    medians: Mapping[Key, float | None],
) -> Panel:
    series: list[Series] = []
    for method, cache in _other_methods(doc):
        xs: list[str] = []
        ys: list[float | None] = []
        for (op, size, nprocs, m, c), median in medians.items():
            if m == method and c == cache and op in ops and size is None:
                xs.append(op)
                ys.append(_ratio(median, medians.get((op, size, nprocs, "window", cache))))
        if xs:
            series.append(
                Series(variant_label(method, cache, doc), tuple(xs), tuple(ys), style="points")
            )
    return Panel(
        title=title,
        xlabel="operation",
        ylabel="time / window method's time",
        xscale="category",
        yscale=y_scale(v for s in series for v in s.y),
        series=tuple(series),
        reference=1.0,
        categories=tuple(ops),
    )
