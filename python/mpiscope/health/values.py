"""How the health reports write a measured value: a bandwidth in GB/s, a
time as mpiscope writes times, a missing one as ``-``."""

from __future__ import annotations

from mpiscope.result.units import format_ns

__all__ = ["format_gbs", "format_value"]


def format_gbs(value: float | None) -> str:
    """``10.9 GB/s`` (bytes/s in), ``-`` for none."""
    return "-" if value is None else f"{value / 1e9:.3g} GB/s"


def format_value(metric: str, value: float | None) -> str:
    """A value of the link metric ``metric``: bandwidth in GB/s, else a time."""
    return format_gbs(value) if metric == "bandwidth" else format_ns(value)
