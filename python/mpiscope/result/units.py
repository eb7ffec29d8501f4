"""Human formatting of times (ns) and sizes (bytes), in one place.

Every time in mpiscope is a number of nanoseconds and every size a number of
bytes; this module is the only place that turns them into text for humans.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from mpiscope.result.center import median

__all__ = [
    "TIME_UNITS",
    "format_bytes",
    "format_median_range",
    "format_ns",
    "format_percent",
    "format_number",
    "pick_time_unit",
]

#: Time units from small to large: (name, nanoseconds per unit).
TIME_UNITS: tuple[tuple[str, float], ...] = (
    ("ns", 1.0),
    ("us", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
)

_BYTE_UNITS: tuple[tuple[str, int], ...] = (
    ("B", 1),
    ("KiB", 1024),
    ("MiB", 1024**2),
    ("GiB", 1024**3),
    ("TiB", 1024**4),
)

MISSING = "-"


def format_number(value: float, digits: int = 3, trim_zeros: bool = True) -> str:
    """``value`` with ``digits`` significant digits, never in exponent form.

    Values of ``10**digits`` and more are shown as integers (1234 -> "1234").
    With ``trim_zeros`` false, trailing zeros stay (0.92 -> "0.920"), which
    keeps a table column's precision visible.
    """
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{value:.{decimals}f}"
    if trim_zeros and "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def pick_time_unit(values_ns: Iterable[float | None]) -> tuple[str, float]:
    """The unit in which the typical (median) absolute value lies in [1, 1000).

    Used to give a whole table column one unit. ``None`` values are ignored;
    with no value, nanoseconds.
    """
    magnitudes = sorted(abs(v) for v in values_ns if v is not None and math.isfinite(v))
    magnitudes = [m for m in magnitudes if m > 0]
    if not magnitudes:
        return TIME_UNITS[0]
    typical = magnitudes[len(magnitudes) // 2]
    chosen = TIME_UNITS[0]
    for unit in TIME_UNITS:
        if typical >= unit[1]:
            chosen = unit
    return chosen


def format_ns(ns: float | None, digits: int = 3) -> str:
    """A time in nanoseconds as text in the best unit: "812 ns", "1.23 us"."""
    if ns is None:
        return MISSING
    name, scale = pick_time_unit([ns])
    return f"{format_number(ns / scale, digits)} {name}"


def format_median_range(values_ns: Sequence[float]) -> str:
    """The median of several times and their range, "1.2 ms [1.1 ms .. 1.5 ms]";
    one time alone; "-" for none."""
    if not values_ns:
        return MISSING
    if len(values_ns) == 1:
        return format_ns(values_ns[0])
    return (f"{format_ns(median(values_ns))} [{format_ns(min(values_ns))} .. "
            f"{format_ns(max(values_ns))}]")  # fmt: skip


def format_bytes(size: int | float | None) -> str:
    """A size in bytes with a binary unit: "1 B", "4 KiB", "1.5 MiB"."""
    if size is None:
        return MISSING
    name, scale = _BYTE_UNITS[0]
    for unit in _BYTE_UNITS:
        if abs(size) >= unit[1]:
            name, scale = unit
    value = size / scale
    if float(value).is_integer():
        return f"{int(value)} {name}"
    return f"{format_number(value, 3)} {name}"


def format_percent(fraction: float) -> str:
    """0.05 -> ``5%`` (3 significant digits)."""
    return f"{format_number(fraction * 100, 3)}%"
