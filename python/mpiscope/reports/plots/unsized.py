"""``time-no-size``: the operations without a size (barrier, wait patterns)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from mpiscope.reports.plots.common import (
    Doc,
    Pt,
    confidence_text,
    flag_legend,
    line_series,
    point_value,
    time_unit,
    unique,
    y_scale,
)
from mpiscope.reports.plots.figure import Panel, Plot
from mpiscope.result.estimate import Estimate

__all__ = ["unsized_plot"]


def unsized_plot(docs: Sequence[Doc], several: bool) -> Plot | None:
    categories: list[str] = []
    cells: dict[str, dict[str, list[Pt]]] = {}
    for doc in docs:
        for pt in doc.points:
            if pt.size is not None:
                continue
            key = f"{doc.label}: {pt.op}" if several else pt.op
            if key not in categories:
                categories.append(key)
            series_key = f"{doc.label}\0{pt.method}\0{pt.nprocs}\0{pt.cache}"
            cells.setdefault(series_key, {}).setdefault(key, []).append(pt)
    if not categories:
        return None
    doc_of = {d.label: d for d in docs}
    rows: list[tuple[str, list[str], list[Estimate]]] = []
    methods = unique(p.method for d in docs for p in d.points if p.size is None)
    nprocs = unique(p.nprocs for d in docs for p in d.points if p.size is None)
    caches = unique(p.cache for d in docs for p in d.points if p.size is None)
    for series_key, by_cat in cells.items():
        label, method, np_text, cache = series_key.split("\0")
        parts = [
            method if len(methods) > 1 else "",
            f"np={np_text}" if len(nprocs) > 1 else "",
            f"{cache} cache" if len(caches) > 1 else "",
        ]
        name = ", ".join(p for p in parts if p) or "time"
        cats = [c for c in categories if c in by_cat]
        rows.append((name, cats, [point_value(doc_of[label], by_cat[c]) for c in cats]))
    unit, scale = time_unit(v.value_ns for _n, _c, vals in rows for v in vals)
    series = tuple(
        dataclasses.replace(
            line_series(name, [0] * len(cats), values, scale), x=tuple(cats), style="interval"
        )
        for name, cats, values in rows
    )
    panel = Panel(
        title="operations without a message size",
        xlabel="operation",
        ylabel=f"time ({unit})",
        xscale="category",
        yscale=y_scale(v for s in series for v in s.y),
        series=series,
        categories=tuple(categories),
        flag_label=flag_legend(docs),
    )
    note = (
        f"Markers: trimmed mean T; bars: its {confidence_text(docs)} confidence interval "
        "(merged runs: median of the runs' medians and its interval). "
        "Circled in red: unstable."
    )
    return Plot("time-no-size", "Operations without a message size", (panel,), note)
