"""``bandwidth``: message bytes / time for the operations whose size is
data moved (:data:`BANDWIDTH_OPS`, from the op descriptors)."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.reports.plots.common import (
    Doc,
    flag_legend,
    group_series,
    label_parts,
    point_value,
    scaled_values,
    series_label,
    unique,
    x_scale,
)
from mpiscope.reports.plots.figure import Panel, Plot, Series
from mpiscope.result.describe import bandwidth_ops

__all__ = ["BANDWIDTH_OPS", "bandwidth_plot"]


#: Operations for which bytes / time is a bandwidth: their size is data that
#: each rank sends or receives (the "algorithm bandwidth" of nccl-tests: the
#: message size over the time, not the bytes on the wire, which depend on
#: the algorithm). Each op's descriptor says so (its ``bandwidth`` flag, in
#: the engine's description); barrier and the wait patterns move no data, and
#: a new operation gets no misleading bandwidth until its descriptor says.
BANDWIDTH_OPS = bandwidth_ops()


_RATE_UNITS: tuple[tuple[str, float], ...] = (
    ("B/s", 1.0),
    ("KiB/s", 1024.0),
    ("MiB/s", 1024.0**2),
    ("GiB/s", 1024.0**3),
)


def bandwidth_plot(docs: Sequence[Doc], several: bool) -> Plot | None:
    groups = group_series(
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
            value = point_value(doc, by_x[x])
            moved = float(by_x[x][0].actual or 0)
            ys.append(_rate(moved, value.value_ns))
            lows.append(_rate(moved, value.high_ns))
            highs.append(_rate(moved, value.low_ns))
            flags.append(value.flagged)
        label = series_label(doc, several, key[0], label_parts(docs, key, "size"))
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
            scaled_values(ys, scale),
            scaled_values(lows, scale),
            scaled_values(highs, scale),
            tuple(flags),
        )
        for label, xs, ys, lows, highs, flags in rows
    )
    ops = unique(key[0] for _d, key, _p in groups)
    panel = Panel(
        title="bandwidth: bytes moved / time",
        xlabel="message size (bytes)",
        ylabel=f"bandwidth ({unit})",
        xscale=x_scale(x for s in series for x in s.x if isinstance(x, (int, float))),
        yscale="log",
        series=series,
        xbytes=True,
        flag_label=flag_legend(docs),
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
