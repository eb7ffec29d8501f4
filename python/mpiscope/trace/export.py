"""A trace written in another tool's format: Perfetto, Chrome's JSON, OTF2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["export_trace"]


def export_trace(stream: Any, fmt: str, out: Path) -> int:
    """Stream the trace (:class:`mpiscope.trace.stream.Stream`) into ``out``
    as ``fmt`` (perfetto, chrome, otf2); the number of arrows it holds
    (messages, collective instances, one-sided transfers)."""
    if fmt == "perfetto":
        from mpiscope.trace.perfetto import write_perfetto

        return write_perfetto(stream, out)
    if fmt == "chrome":
        from mpiscope.trace.chrome import write_chrome

        return write_chrome(stream, out)
    from mpiscope.trace.otf2 import write_otf2

    return write_otf2(stream, out)
