"""``time-vs-size`` and ``time-vs-nprocs``: time against message size or
process count, the trimmed mean with its confidence band."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.reports.plots.common import (
    Doc,
    confidence_text,
    flag_legend,
    group_series,
    label_parts,
    line_series,
    point_value,
    series_label,
    time_unit,
    x_scale,
    y_scale,
)
from mpiscope.reports.plots.figure import Panel, Plot
from mpiscope.result.estimate import Estimate

__all__ = ["time_plot"]


def time_plot(docs: Sequence[Doc], several: bool, varied: str) -> Plot | None:
    groups = group_series(docs, lambda p: p.size is not None or varied == "nprocs", varied)
    dropped_zero = varied == "size" and any(0 in pts for _d, _k, pts in groups)
    rows: list[tuple[str, list[int], list[Estimate]]] = []
    for doc, key, by_x in groups:
        xs = sorted(by_x)
        values = [point_value(doc, by_x[x]) for x in xs]
        rows.append(
            (series_label(doc, several, key[0], label_parts(docs, key, varied)), xs, values)
        )
    if not rows:
        return None
    xscale = "linear" if varied == "nprocs" else x_scale(x for _l, xs, _v in rows for x in xs)
    if xscale == "log2":
        rows = [_drop_zero(row) for row in rows]
    unit, scale = time_unit(v.value_ns for _l, _x, vals in rows for v in vals)
    series = tuple(line_series(label, xs, values, scale) for label, xs, values in rows)
    panel = Panel(
        title="time per operation",
        xlabel="message size (bytes)" if varied == "size" else "processes",
        ylabel=f"time ({unit})",
        xscale=xscale,
        yscale="log" if varied == "size" else y_scale(v for s in series for v in s.y),
        series=series,
        xbytes=varied == "size",
        flag_label=flag_legend(docs),
    )
    note = (
        f"Lines: trimmed mean T of each point; band: its {confidence_text(docs)} confidence "
        "interval. Merged runs: the median of the runs' medians and its interval over "
        "runs. Circled in red: unstable points or runs that disagree."
    )
    if dropped_zero and xscale == "log2":
        note += " 0-byte points are not shown on the logarithmic size axis."
    name = "time-vs-size" if varied == "size" else "time-vs-nprocs"
    title = "Time vs message size" if varied == "size" else "Time vs number of processes"
    return Plot(name, title, (panel,), note)


def _drop_zero(
    row: tuple[str, list[int], list[Estimate]],
) -> tuple[str, list[int], list[Estimate]]:
    label, xs, values = row
    kept = [(x, v) for x, v in zip(xs, values, strict=True) if x > 0]
    return label, [x for x, _v in kept], [v for _x, v in kept]
