"""How the health reports write a measured value: a bandwidth in GB/s, a
time as mpiscope writes times, a share in percent, an excess with its
interval, a missing one as ``-``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mpiscope.result.units import format_ns

__all__ = ["format_excess", "format_gbs", "format_share", "format_value"]


def format_gbs(value: float | None) -> str:
    """``10.9 GB/s`` (bytes/s in), ``-`` for none."""
    return "-" if value is None else f"{value / 1e9:.3g} GB/s"


def format_value(metric: str, value: float | None) -> str:
    """A value of the link metric ``metric``: bandwidth in GB/s, else a time."""
    return format_gbs(value) if metric == "bandwidth" else format_ns(value)


def format_share(value: float | None) -> str:
    """``4.10%`` (a fraction in), ``-`` for none."""
    return "-" if value is None else f"{value:.2%}"


def format_excess(entry: Mapping[str, Any], low: str = "low", high: str = "high") -> str:
    """``+3.81% [2.90%, 4.72%]``: an excess share (``entry["excess"]``) and
    its interval (``entry[low]``, ``entry[high]``, when there is one)."""
    value = entry.get("excess")
    if value is None:
        return "-"
    if entry.get(low) is None:
        return f"{value:+.2%}"
    return f"{value:+.2%} [{entry[low]:.2%}, {entry[high]:.2%}]"
