"""The progress display of ``mpiscope run``.

On a terminal, one line on stderr rewritten in place::

    [12/40] bcast 4 KiB  median 1.23 us

elsewhere (a file, a pipe, CI logs), one plain line per finished point;
with ``--quiet``, no progress at all. Warnings from the bench are always
shown (they say a result may not be trusted); the bench's other output
lines pass through to stdout.
"""

from __future__ import annotations

import sys

from mpiscope.launcher import Event, OutputEvent, ProgressEvent, WarningEvent
from mpiscope.result.units import format_bytes, format_ns
from mpiscope.terminal import columns

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import TextIO

__all__ = ["ProgressDisplay", "format_progress"]

_CLEAR_LINE = "\r\x1b[K"


def format_progress(event: ProgressEvent, nprocs: int | None = None) -> str:
    """The text of one progress line; the process count is shown when it
    differs from ``nprocs`` (the run's --np), i.e. when it is varied."""
    parts = [f"[{event.index}/{event.total}] {event.op} {format_bytes(event.size_bytes)}"]
    if nprocs is None or event.nprocs != nprocs:
        parts.append(f" np={event.nprocs}")
    parts.append(f"  median {format_ns(event.median_ns)}")
    if event.unstable:
        parts.append("  UNSTABLE")
    return "".join(parts)


class ProgressDisplay:
    """Shows bench events to the user; see the module doc."""

    def __init__(
        self,
        quiet: bool = False,
        nprocs: int | None = None,
        err: TextIO | None = None,
        out: TextIO | None = None,
        tty: bool | None = None,
    ) -> None:
        self._err = sys.stderr if err is None else err
        self._out = sys.stdout if out is None else out
        self._quiet = quiet
        self._nprocs = nprocs
        self._tty = self._isatty(self._err) if tty is None else tty
        self._line = ""  # the progress line currently on screen (tty mode)

    @staticmethod
    def _isatty(stream: TextIO) -> bool:
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False

    def __call__(self, event: Event) -> None:
        if isinstance(event, ProgressEvent):
            self.progress(event)
        elif isinstance(event, WarningEvent):
            self.warning(event.text)
        elif isinstance(event, OutputEvent):
            self.output(event.line)

    def progress(self, event: ProgressEvent) -> None:
        if self._quiet:
            return
        text = format_progress(event, self._nprocs)
        if self._tty:
            width = columns(self._err)
            self._line = text[: max(width - 1, 10)]
            self._err.write(_CLEAR_LINE + self._line)
        else:
            self._err.write(text + "\n")
        self._err.flush()

    def warning(self, text: str) -> None:
        self._above(self._err, f"mpiscope: warning: {text}")

    def output(self, line: str) -> None:
        self._above(self._out, line)

    def close(self) -> None:
        """Remove the progress line (tty mode) so what follows starts clean."""
        if self._tty and self._line:
            self._err.write(_CLEAR_LINE)
            self._err.flush()
            self._line = ""

    def _above(self, stream: TextIO, text: str) -> None:
        # On a terminal, write above the progress line and draw it again.
        if self._tty and self._line:
            self._err.write(_CLEAR_LINE)
            self._err.flush()
        stream.write(text + "\n")
        stream.flush()
        if self._tty and self._line:
            self._err.write(self._line)
            self._err.flush()
