"""What the figures share: the measured points of each labeled document,
their grouping into series, labels, scales and units."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.reports.plots.figure import Series
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
from mpiscope.result.stats import median
from mpiscope.result.units import format_bytes, pick_time_unit

__all__ = [
    "Doc",
    "GroupKey",
    "Pt",
    "confidence_text",
    "flag_legend",
    "group_series",
    "label_parts",
    "line_series",
    "median_of",
    "point_value",
    "point_x",
    "positive_x_all",
    "read_doc",
    "scaled_values",
    "series_label",
    "source_labels",
    "time_unit",
    "unique",
    "variant_label",
    "x_scale",
    "y_scale",
]


@dataclass(frozen=True)
class Pt:
    """A point with what the views need, from one labeled result."""

    source: str
    op: str
    method: str
    run: int | None
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
class Doc:
    label: str
    result: Result
    points: list[Pt]
    summary: dict[Key, Mapping[str, Any]]

    @property
    def methods(self) -> list[str]:
        return unique(p.method for p in self.points)

    @property
    def caches(self) -> list[str | None]:
        return unique(p.cache for p in self.points)


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


def read_doc(label: str, result: Result) -> Doc:
    points = [
        Pt(
            label,
            p.op,
            point_method(result, p),
            p.get("run"),
            p.size_bytes,
            p.nprocs,
            point_cache(result, p),
            p,
        )
        for p in result.points
        if is_measurement(p)
    ]
    return Doc(label, result, points, summary_index(result))


def point_value(doc: Doc, pts: Sequence[Pt]) -> Estimate:
    """The estimate drawn for one x of a series (see :mod:`mpiscope.result.estimate`)."""
    summary = doc.summary.get(pts[0].key) if len(pts) > 1 else None
    return estimate([p.point for p in pts], summary)


def median_of(values: Iterable[float | None]) -> float | None:
    return median([v for v in values if v is not None])


def point_x(pt: Pt, varied: str) -> int | None:
    return pt.size if varied == "size" else pt.nprocs


def series_label(doc: Doc, several_files: bool, op: str, parts: Sequence[str]) -> str:
    text = f"{doc.label}: {op}" if several_files else op
    extra = [part for part in parts if part]
    return f"{text} ({', '.join(extra)})" if extra else text


GroupKey = tuple[str, str, "str | None", "int | None"]


def group_series(
    docs: Sequence[Doc], keep: Callable[[Pt], bool], varied: str
) -> list[tuple[Doc, GroupKey, dict[int, list[Pt]]]]:
    """Points grouped by document, (op, method, cache, other) and x; ``other``
    is the process count when sizes vary and the size when process counts vary."""
    out: list[tuple[Doc, GroupKey, dict[int, list[Pt]]]] = []
    for doc in docs:
        groups: dict[GroupKey, dict[int, list[Pt]]] = {}
        for pt in doc.points:
            x = point_x(pt, varied)
            if x is None or not keep(pt):
                continue
            other = pt.nprocs if varied == "size" else pt.size
            key = (pt.op, pt.method, pt.cache, other)
            groups.setdefault(key, {}).setdefault(x, []).append(pt)
        out += [(doc, key, groups[key]) for key in groups]
    return out


def label_parts(docs: Sequence[Doc], key: GroupKey, varied: str) -> list[str]:
    _op, method, cache, other = key
    methods = unique(p.method for d in docs for p in d.points)
    caches = unique(p.cache for d in docs for p in d.points)
    others = unique(p.nprocs if varied == "size" else p.size for d in docs for p in d.points)
    parts = [method if len(methods) > 1 else "", f"{cache} cache" if len(caches) > 1 else ""]
    if len([o for o in others if o is not None]) > 1 and other is not None:
        parts.append(f"np={other}" if varied == "size" else f"size {format_bytes(other)}")
    return parts


def variant_label(method: str, cache: str | None, doc: Doc) -> str:
    """A method's name, with the cache mode when the document has several."""
    return f"{method}, {cache} cache" if len(doc.caches) > 1 else method


def x_scale(xs: Iterable[float]) -> str:
    """log2 when the positive values span a factor of 8 or more (a zero is
    then left out of the figure)."""
    values = sorted({x for x in xs if x > 0})
    if values and values[-1] / values[0] >= 8:
        return "log2"
    return "linear"


def y_scale(values: Iterable[float | None]) -> str:
    present = [v for v in values if v is not None and v > 0]
    if present and max(present) / min(present) >= 10:
        return "log"
    return "linear"


def scaled_values(values: Iterable[float | None], scale: float) -> tuple[float | None, ...]:
    return tuple(None if v is None else v / scale for v in values)


def time_unit(series_values: Iterable[float | None]) -> tuple[str, float]:
    return pick_time_unit(v for v in series_values if v is not None)


def flag_legend(docs: Sequence[Doc]) -> str:
    return "unstable or runs disagree" if any(d.summary for d in docs) else "unstable"


def confidence_text(docs: Sequence[Doc]) -> str:
    levels = unique(f"{d.result.confidence * 100:g}%" for d in docs)
    return levels[0] if len(levels) == 1 else "its result's"


def line_series(
    label: str, xs: Sequence[float], values: Sequence[Estimate], scale: float
) -> Series:
    return Series(
        label=label,
        x=tuple(xs),
        y=scaled_values((v.value_ns for v in values), scale),
        low=scaled_values((v.low_ns for v in values), scale),
        high=scaled_values((v.high_ns for v in values), scale),
        flagged=tuple(v.flagged for v in values),
    )


def positive_x_all(series: Series) -> Series:
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


def unique(values: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen
