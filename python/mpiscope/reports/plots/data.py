"""What the figures of result documents show, as plain data.

:func:`plot_data` turns result documents into :class:`Plot` objects: every
number a figure shows, already in the unit of its axis, with the axis
labels, scales and a caption. It imports neither matplotlib nor pandas, so
tests (and the golden files) compare data, not pixels; :mod:`mpiscope.reports.plots.render`
draws them.

The figures, each only when the documents have what it needs:

- ``time-vs-size``: time against message size, one line per result file /
  operation / timing method (and process count when several), the trimmed
  mean T with its confidence interval as a band; for merged launches the
  median of the launches' medians with its bootstrap interval over
  launches (``launch_summary``). Unstable points (and launches that
  disagree) are circled in red.
- ``bandwidth``: bytes / time for the operations of :data:`BANDWIDTH_OPS`.
- ``time-no-size``: operations without a size (barrier, wait patterns).
- ``time-vs-nprocs``: time against the number of processes, for documents
  whose ``varied`` is ``"nprocs"``.
- ``per-rank``: heat map rank x size of each rank's median duration,
  coloured relative to the slowest rank of the same point.
- ``start-skew``: max(start) - min(start) over ranks, per launch from the
  raw samples when the point kept them, else the point's median and maximum.
- ``methods``: each timing method's median over the window method's median,
  per size (documents from ``mpiscope methods``).
- ``launches``: per-launch medians as points, with the median over launches
  and its interval (documents from ``mpiscope run --launches``).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.result import Point, Result
from mpiscope.result.estimate import (
    Estimate,
    Key,
    estimate,
    is_measurement,
    point_cache,
    point_method,
    summary_index,
)
from mpiscope.result.units import format_bytes, format_ns, pick_time_unit

__all__ = [
    "BANDWIDTH_OPS",
    "Heatmap",
    "Panel",
    "Plot",
    "Series",
    "plot_data",
    "plots_as_json",
    "source_labels",
]

#: Operations for which bytes / time is a bandwidth: their size is data that
#: each rank sends or receives (the "algorithm bandwidth" of nccl-tests: the
#: message size over the time, not the bytes on the wire, which depend on
#: the algorithm). Left out: barrier and the wait patterns (no data), and
#: any operation not listed here, so a new operation gets no misleading
#: bandwidth until someone decides what its size means.
BANDWIDTH_OPS = frozenset(
    {
        "bcast",
        "gather",
        "gatherv",
        "scatter",
        "scatterv",
        "allgather",
        "allgatherv",
        "alltoall",
        "alltoallv",
        "alltoallw",
        "reduce",
        "allreduce",
        "reduce_scatter",
        "reduce_scatter_block",
        "scan",
        "exscan",
    }
)

_RATE_UNITS: tuple[tuple[str, float], ...] = (
    ("B/s", 1.0),
    ("KiB/s", 1024.0),
    ("MiB/s", 1024.0**2),
    ("GiB/s", 1024.0**3),
)


@dataclass(frozen=True)
class Series:
    """One line or set of markers. ``x`` are numbers, or category names for a
    category axis; ``y``, ``low``, ``high`` are in the panel's y unit;
    ``flagged`` marks points not to trust (unstable, launches disagree).

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
    """A grid of cells: ``values[row][column]`` in [0, 1] gives the colour,
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


# --- what to draw ---------------------------------------------------------------


@dataclass(frozen=True)
class _Pt:
    """A point with what the views need, from one labelled result."""

    source: str
    op: str
    method: str
    launch: int | None
    size: int | None
    nprocs: int
    cache: str | None
    point: Point

    @property
    def actual(self) -> int | None:
        return self.point.actual_bytes

    @property
    def key(self) -> Key:
        return (self.op, self.size, self.nprocs, self.method, self.cache)


@dataclass
class _Doc:
    label: str
    result: Result
    points: list[_Pt]
    summary: dict[Key, Mapping[str, Any]]

    @property
    def methods(self) -> list[str]:
        return _unique(p.method for p in self.points)

    @property
    def caches(self) -> list[str | None]:
        return _unique(p.cache for p in self.points)


def source_labels(results: Sequence[Result]) -> list[str]:
    """Short, distinct names of result files: the file stem, with the parent
    folder (then a number) added where stems collide."""
    stems = [r.path.stem if r.path is not None else "result" for r in results]
    labels = list(stems)
    for i, result in enumerate(results):
        if stems.count(stems[i]) > 1 and result.path is not None:
            labels[i] = f"{result.path.parent.name}/{stems[i]}"
    for i in range(len(labels)):
        if labels.count(labels[i]) > 1:
            labels[i] = f"{labels[i]} ({i + 1})"
    return labels


def plot_data(results: Sequence[Result], labels: Sequence[str] | None = None) -> list[Plot]:
    """Every figure the documents allow, as data (see the module doc)."""
    labels = list(labels) if labels is not None else source_labels(results)
    docs = [_doc(label, result) for label, result in zip(labels, results, strict=True)]
    by_size = [d for d in docs if d.result.varied == "size"]
    by_nprocs = [d for d in docs if d.result.varied == "nprocs"]
    builders: list[Callable[[], Plot | None]] = [
        lambda: _time_plot(by_size, len(docs) > 1, "size"),
        lambda: _bandwidth_plot(by_size, len(docs) > 1),
        lambda: _unsized_plot(by_size, len(docs) > 1),
        lambda: _time_plot(by_nprocs, len(docs) > 1, "nprocs"),
        lambda: _per_rank_plot(docs, len(docs) > 1),
        lambda: _skew_plot(docs, len(docs) > 1),
        lambda: _methods_plot(docs, len(docs) > 1),
        lambda: _launches_plot(docs, len(docs) > 1),
    ]
    return [plot for build in builders if (plot := build()) is not None]


def plots_as_json(plots: Sequence[Plot]) -> list[dict[str, Any]]:
    """The plots as plain JSON values (tuples become lists)."""
    data: list[dict[str, Any]] = json.loads(
        json.dumps([dataclasses.asdict(plot) for plot in plots], allow_nan=False)
    )
    return data


def _doc(label: str, result: Result) -> _Doc:
    points = [
        _Pt(
            label,
            p.op,
            point_method(result, p),
            p.get("launch"),
            p.size_bytes,
            p.nprocs,
            point_cache(result, p),
            p,
        )
        for p in result.points
        if is_measurement(p)
    ]
    return _Doc(label, result, points, summary_index(result))


def _value(doc: _Doc, pts: Sequence[_Pt]) -> Estimate:
    """The estimate drawn for one x of a series (see :mod:`mpiscope.result.estimate`)."""
    summary = doc.summary.get(pts[0].key) if len(pts) > 1 else None
    return estimate([p.point for p in pts], summary)


def _median_of(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _x_of(pt: _Pt, varied: str) -> int | None:
    return pt.size if varied == "size" else pt.nprocs


def _series_label(doc: _Doc, several_files: bool, op: str, parts: Sequence[str]) -> str:
    text = f"{doc.label}: {op}" if several_files else op
    extra = [part for part in parts if part]
    return f"{text} ({', '.join(extra)})" if extra else text


_GroupKey = tuple[str, str, "str | None", "int | None"]


def _groups(
    docs: Sequence[_Doc], keep: Callable[[_Pt], bool], varied: str
) -> list[tuple[_Doc, _GroupKey, dict[int, list[_Pt]]]]:
    """Points grouped by document, (op, method, cache, other) and x; ``other``
    is the process count when sizes vary and the size when process counts vary."""
    out: list[tuple[_Doc, _GroupKey, dict[int, list[_Pt]]]] = []
    for doc in docs:
        groups: dict[_GroupKey, dict[int, list[_Pt]]] = {}
        for pt in doc.points:
            x = _x_of(pt, varied)
            if x is None or not keep(pt):
                continue
            other = pt.nprocs if varied == "size" else pt.size
            key = (pt.op, pt.method, pt.cache, other)
            groups.setdefault(key, {}).setdefault(x, []).append(pt)
        out += [(doc, key, groups[key]) for key in groups]
    return out


def _label_parts(docs: Sequence[_Doc], key: _GroupKey, varied: str) -> list[str]:
    _op, method, cache, other = key
    methods = _unique(p.method for d in docs for p in d.points)
    caches = _unique(p.cache for d in docs for p in d.points)
    others = _unique(p.nprocs if varied == "size" else p.size for d in docs for p in d.points)
    parts = [method if len(methods) > 1 else "", f"{cache} cache" if len(caches) > 1 else ""]
    if len([o for o in others if o is not None]) > 1 and other is not None:
        parts.append(f"np={other}" if varied == "size" else f"size {format_bytes(other)}")
    return parts


def _variant(method: str, cache: str | None, doc: _Doc) -> str:
    """A method's name, with the cache mode when the document has several."""
    return f"{method}, {cache} cache" if len(doc.caches) > 1 else method


def _xscale(xs: Iterable[float]) -> str:
    """log2 when the positive values span a factor of 8 or more (a zero is
    then left out of the figure)."""
    values = sorted({x for x in xs if x > 0})
    if values and values[-1] / values[0] >= 8:
        return "log2"
    return "linear"


def _yscale(values: Iterable[float | None]) -> str:
    present = [v for v in values if v is not None and v > 0]
    if present and max(present) / min(present) >= 10:
        return "log"
    return "linear"


def _scaled(values: Iterable[float | None], scale: float) -> tuple[float | None, ...]:
    return tuple(None if v is None else v / scale for v in values)


def _time_unit(series_values: Iterable[float | None]) -> tuple[str, float]:
    return pick_time_unit(v for v in series_values if v is not None)


def _flag_label(docs: Sequence[_Doc]) -> str:
    return "unstable or launches disagree" if any(d.summary for d in docs) else "unstable"


def _confidence_text(docs: Sequence[_Doc]) -> str:
    levels = _unique(f"{d.result.confidence * 100:g}%" for d in docs)
    return levels[0] if len(levels) == 1 else "its result's"


def _time_plot(docs: Sequence[_Doc], several: bool, varied: str) -> Plot | None:
    groups = _groups(docs, lambda p: p.size is not None or varied == "nprocs", varied)
    dropped_zero = varied == "size" and any(0 in pts for _d, _k, pts in groups)
    rows: list[tuple[str, list[int], list[Estimate]]] = []
    for doc, key, by_x in groups:
        xs = sorted(by_x)
        values = [_value(doc, by_x[x]) for x in xs]
        rows.append(
            (_series_label(doc, several, key[0], _label_parts(docs, key, varied)), xs, values)
        )
    if not rows:
        return None
    xscale = "linear" if varied == "nprocs" else _xscale(x for _l, xs, _v in rows for x in xs)
    if xscale == "log2":
        rows = [_drop_zero(row) for row in rows]
    unit, scale = _time_unit(v.value_ns for _l, _x, vals in rows for v in vals)
    series = tuple(_line(label, xs, values, scale) for label, xs, values in rows)
    panel = Panel(
        title="time per operation",
        xlabel="message size (bytes)" if varied == "size" else "processes",
        ylabel=f"time ({unit})",
        xscale=xscale,
        yscale="log" if varied == "size" else _yscale(v for s in series for v in s.y),
        series=series,
        xbytes=varied == "size",
        flag_label=_flag_label(docs),
    )
    note = (
        f"Lines: trimmed mean T of each point; band: its {_confidence_text(docs)} confidence "
        "interval. Merged launches: the median of the launches' medians and its interval over "
        "launches. Circled in red: unstable points or launches that disagree."
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


def _line(label: str, xs: Sequence[float], values: Sequence[Estimate], scale: float) -> Series:
    return Series(
        label=label,
        x=tuple(xs),
        y=_scaled((v.value_ns for v in values), scale),
        low=_scaled((v.low_ns for v in values), scale),
        high=_scaled((v.high_ns for v in values), scale),
        flagged=tuple(v.flagged for v in values),
    )


def _bandwidth_plot(docs: Sequence[_Doc], several: bool) -> Plot | None:
    groups = _groups(
        docs, lambda p: p.op in BANDWIDTH_OPS and bool(p.actual) and bool(p.size), "size"
    )
    rows: list[
        tuple[
            str, list[int], list[float | None], list[float | None], list[float | None], list[bool]
        ]
    ] = []
    for doc, key, by_x in groups:
        xs = sorted(by_x)
        ys, lows, highs, flags = [], [], [], []
        for x in xs:
            value = _value(doc, by_x[x])
            moved = float(by_x[x][0].actual or 0)
            ys.append(_rate(moved, value.value_ns))
            lows.append(_rate(moved, value.high_ns))
            highs.append(_rate(moved, value.low_ns))
            flags.append(value.flagged)
        label = _series_label(doc, several, key[0], _label_parts(docs, key, "size"))
        rows.append((label, xs, ys, lows, highs, flags))
    if not rows:
        return None
    present = sorted(y for row in rows for y in row[2] if y is not None)
    unit, scale = _RATE_UNITS[0]
    if present:
        for candidate in _RATE_UNITS:
            if present[len(present) // 2] >= candidate[1]:
                unit, scale = candidate
    series = tuple(
        Series(
            label,
            tuple(xs),
            _scaled(ys, scale),
            _scaled(lows, scale),
            _scaled(highs, scale),
            tuple(flags),
        )
        for label, xs, ys, lows, highs, flags in rows
    )
    ops = _unique(key[0] for _d, key, _p in groups)
    panel = Panel(
        title="bandwidth: bytes moved / time",
        xlabel="message size (bytes)",
        ylabel=f"bandwidth ({unit})",
        xscale=_xscale(x for s in series for x in s.x if isinstance(x, (int, float))),
        yscale="log",
        series=series,
        xbytes=True,
        flag_label=_flag_label(docs),
    )
    note = (
        "Bandwidth = the message's bytes (actual_bytes) / the time of the time plot, for "
        f"{', '.join(ops)}: the size over the time, not the bytes on the wire. Not shown for "
        "operations without data (barrier, wait patterns) or whose size is not data moved."
    )
    return Plot("bandwidth", "Bandwidth vs message size", (panel,), note)


def _rate(moved: float, time_ns: float | None) -> float | None:
    if time_ns is None or time_ns <= 0:
        return None
    return moved / time_ns * 1e9


def _unsized_plot(docs: Sequence[_Doc], several: bool) -> Plot | None:
    categories: list[str] = []
    cells: dict[str, dict[str, list[_Pt]]] = {}
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
    methods = _unique(p.method for d in docs for p in d.points if p.size is None)
    nprocs = _unique(p.nprocs for d in docs for p in d.points if p.size is None)
    caches = _unique(p.cache for d in docs for p in d.points if p.size is None)
    for series_key, by_cat in cells.items():
        label, method, np_text, cache = series_key.split("\0")
        parts = [
            method if len(methods) > 1 else "",
            f"np={np_text}" if len(nprocs) > 1 else "",
            f"{cache} cache" if len(caches) > 1 else "",
        ]
        name = ", ".join(p for p in parts if p) or "time"
        cats = [c for c in categories if c in by_cat]
        rows.append((name, cats, [_value(doc_of[label], by_cat[c]) for c in cats]))
    unit, scale = _time_unit(v.value_ns for _n, _c, vals in rows for v in vals)
    series = tuple(
        dataclasses.replace(
            _line(name, [0] * len(cats), values, scale), x=tuple(cats), style="interval"
        )
        for name, cats, values in rows
    )
    panel = Panel(
        title="operations without a message size",
        xlabel="operation",
        ylabel=f"time ({unit})",
        xscale="category",
        yscale=_yscale(v for s in series for v in s.y),
        series=series,
        categories=tuple(categories),
        flag_label=_flag_label(docs),
    )
    note = (
        f"Markers: trimmed mean T; bars: its {_confidence_text(docs)} confidence interval "
        "(merged launches: median of the launches' medians and its interval). "
        "Circled in red: unstable."
    )
    return Plot("time-no-size", "Operations without a message size", (panel,), note)


def _column_name(pt: _Pt, varied: str) -> str:
    if varied == "nprocs":
        return f"np={pt.nprocs}"
    return format_bytes(pt.size) if pt.size is not None else pt.op


def _per_rank_plot(docs: Sequence[_Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    for doc in docs:
        varied = doc.result.varied
        groups: dict[tuple[str, str, str | None], list[_Pt]] = {}
        for pt in doc.points:
            if not pt.point.get("per_rank"):
                continue
            op = pt.op if (pt.size is not None or varied == "nprocs") else ""
            groups.setdefault((op, pt.method, pt.cache), []).append(pt)
        several_variants = len({key[1:] for key in groups}) > 1
        # Operations with a size first, those without one last, in one panel.
        for (op, method, cache), pts in sorted(groups.items(), key=lambda item: item[0][0] == ""):
            title = op or "operations without a size"
            if several_variants:
                title = f"{title} ({_variant(method, cache, doc)})"
            panels.append(
                _heatmap_panel(
                    f"{doc.label}: {title}" if several else title, pts, varied, unsized=not op
                )
            )
    if not panels:
        return None
    note = (
        "Each cell: one rank's median duration of its own part of the operation (text), "
        "coloured by its ratio to the slowest rank's median at that point: the ranks that "
        "wait the longest inside the operation stand out. Merged launches: the median over "
        "launches."
    )
    return Plot("per-rank", "Per-rank times", tuple(panels), note)


def _heatmap_panel(title: str, pts: Sequence[_Pt], varied: str, unsized: bool) -> Panel:
    def order(pt: _Pt) -> int:  # a stable sort: operations without a size keep their order
        return pt.nprocs if varied == "nprocs" else (pt.size if pt.size is not None else -1)

    columns: list[str] = []
    cells: dict[tuple[int, str], list[float | None]] = {}
    ranks: set[int] = set()
    for pt in sorted(pts, key=order):
        column = _column_name(pt, varied)
        if column not in columns:
            columns.append(column)
        for entry in pt.point.get("per_rank") or []:
            ranks.add(int(entry["rank"]))
            cells.setdefault((int(entry["rank"]), column), []).append(entry.get("median_ns"))
    rank_list = sorted(ranks)
    medians = {key: _median_of(values) for key, values in cells.items()}
    values: list[tuple[float | None, ...]] = []
    texts: list[tuple[str | None, ...]] = []
    slowest = {
        c: max((v for (r, cc), v in medians.items() if cc == c and v is not None), default=None)
        for c in columns
    }
    for rank in rank_list:
        row_values: list[float | None] = []
        row_texts: list[str | None] = []
        for column in columns:
            median = medians.get((rank, column))
            top = slowest[column]
            row_values.append(None if median is None or not top else median / top)
            row_texts.append(None if median is None else format_ns(median))
        values.append(tuple(row_values))
        texts.append(tuple(row_texts))
    heatmap = Heatmap(
        rows=tuple(f"rank {r}" for r in rank_list),
        columns=tuple(columns),
        values=tuple(values),
        texts=tuple(texts),
        colorbar="rank's median / slowest rank's median",
    )
    return Panel(
        title=title,
        xlabel="operation" if unsized else ("processes" if varied == "nprocs" else "message size"),
        ylabel="rank",
        xscale="category",
        yscale="linear",
        heatmap=heatmap,
    )


def _skew_plot(docs: Sequence[_Doc], several: bool) -> Plot | None:
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
        unit, scale = _time_unit(v for _c, values in groups.values() for v in values)
        order = (
            "valid launches",
            "invalid launches",
            "median of the launches",
            "maximum of the launches",
        )
        series = tuple(
            Series(name, tuple(groups[name][0]), _scaled(groups[name][1], scale), style="points")
            for name in order
            if name in groups
        )
        panels.append(
            Panel(
                title=f"{doc.label}: start skew" if several else "start skew",
                xlabel="point",
                ylabel=f"start skew ({unit})",
                xscale="category",
                yscale="symlog" if _yscale(v for s in series for v in s.y) == "log" else "linear",
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


def _skew_category(pt: _Pt, doc: _Doc) -> str:
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


def _methods_plot(docs: Sequence[_Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    for doc in docs:
        if "window" not in doc.methods or len(doc.methods) < 2:
            continue
        varied = doc.result.varied
        grouped: dict[Key, list[_Pt]] = {}
        for pt in doc.points:
            grouped.setdefault(pt.key, []).append(pt)
        medians: dict[Key, float | None] = {}
        for key, pts in grouped.items():
            entry = doc.summary.get(key) if len(pts) > 1 else None
            medians[key] = (
                entry.get("median_ns")
                if entry is not None
                else _median_of(p.point.median_ns for p in pts)
            )
        prefix = f"{doc.label}: " if several else ""
        ops = _unique(key[0] for key in grouped)
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
        "size, process count and cache mode (merged launches: medians of the launches' "
        "medians). Above 1: the method reports a longer time than the synchronized window."
    )
    return Plot("methods", "Timing methods compared with the window method", tuple(panels), note)


def _ratio(value: float | None, reference: float | None) -> float | None:
    if value is None or reference is None or reference <= 0:
        return None
    return value / reference


def _other_methods(doc: _Doc) -> list[tuple[str, str | None]]:
    """(method, cache) of every method but the window, in document order."""
    return _unique((p.method, p.cache) for p in doc.points if p.method != "window")


def _ratio_panel(
    title: str,
    doc: _Doc,
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
            series.append(Series(_variant(method, cache, doc), tuple(xs), tuple(ys)))
    xscale = (
        "linear"
        if varied == "nprocs"
        else _xscale(x for s in series for x in s.x if isinstance(x, (int, float)) and x > 0)
    )
    if xscale == "log2":
        series = [_positive_x_all(s) for s in series]
    return Panel(
        title=title,
        xlabel="processes" if varied == "nprocs" else "message size (bytes)",
        ylabel="time / window method's time",
        xscale=xscale,
        yscale=_yscale(v for s in series for v in s.y),
        series=tuple(series),
        reference=1.0,
        xbytes=varied != "nprocs",
    )


def _ratio_category_panel(
    title: str,
    doc: _Doc,
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
                Series(_variant(method, cache, doc), tuple(xs), tuple(ys), style="points")
            )
    return Panel(
        title=title,
        xlabel="operation",
        ylabel="time / window method's time",
        xscale="category",
        yscale=_yscale(v for s in series for v in s.y),
        series=tuple(series),
        reference=1.0,
        categories=tuple(ops),
    )


def _launches_plot(docs: Sequence[_Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    for doc in docs:
        if not any(pt.launch is not None for pt in doc.points):
            continue
        varied = doc.result.varied
        groups: dict[tuple[str, str, str | None], list[_Pt]] = {}
        for pt in doc.points:
            sized = pt.size is not None or varied == "nprocs"
            groups.setdefault((pt.op if sized else "", pt.method, pt.cache), []).append(pt)
        several_variants = len({key[1:] for key in groups}) > 1
        prefix = f"{doc.label}: " if several else ""
        for (op, method, cache), pts in groups.items():
            name = op or "operations without a size"
            if several_variants:
                name = f"{name} ({_variant(method, cache, doc)})"
            title = prefix + name
            panels.append(_launch_panel(title, doc, pts, varied, categorical=not op))
    if not panels:
        return None
    note = (
        "Dots: the median of each launch (one mpiscope-bench run) at each point. Markers with "
        "bars: the median of the launches' medians and its interval over launches "
        "(launch_summary). Circled in red: the launches disagree (or a point is unstable)."
    )
    return Plot("launches", "Between-launch variation", tuple(panels), note)


def _launch_panel(
    title: str, doc: _Doc, pts: Sequence[_Pt], varied: str, categorical: bool
) -> Panel:
    def x_of(pt: _Pt) -> float | str:
        if categorical:
            return pt.op
        return pt.nprocs if varied == "nprocs" else (pt.size or 0)

    ordered = sorted(pts, key=lambda p: (str(x_of(p)) if categorical else x_of(p), p.launch or 0))
    unit, scale = _time_unit(p.point.median_ns for p in ordered)
    dots = Series(
        "launch medians",
        tuple(x_of(p) for p in ordered),
        _scaled((p.point.median_ns for p in ordered), scale),
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
                "median over launches",
                tuple(xs),
                _scaled(ys, scale),
                _scaled(lows, scale),
                _scaled(highs, scale),
                tuple(flags),
                style="interval",
            )
        )
    if categorical:
        xscale = "category"
    elif varied == "nprocs":
        xscale = "linear"
    else:
        xscale = _xscale(x for x in dots.x if isinstance(x, (int, float)))
    if xscale == "log2":
        series = [_positive_x_all(s) for s in series]
    return Panel(
        title=title,
        xlabel="operation"
        if categorical
        else ("processes" if varied == "nprocs" else "message size (bytes)"),
        ylabel=f"time ({unit})",
        xscale=xscale,
        yscale=_yscale(v for s in series for v in s.y),
        series=tuple(series),
        categories=tuple(_unique(str(x) for x in dots.x)) if categorical else (),
        xbytes=not categorical and varied != "nprocs",
        flag_label="launches disagree (or unstable)",
    )


def _positive_x_all(series: Series) -> Series:
    keep = [i for i, x in enumerate(series.x) if isinstance(x, (int, float)) and x > 0]

    def pick(values: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
        return None if values is None else tuple(values[i] for i in keep)

    return dataclasses.replace(
        series,
        x=tuple(series.x[i] for i in keep),
        y=tuple(series.y[i] for i in keep),
        low=pick(series.low),
        high=pick(series.high),
        flagged=pick(series.flagged),
    )


def _unique(values: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen
