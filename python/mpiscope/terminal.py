"""The width of the terminal mpiscope writes to.

shutil.get_terminal_size's rule (``$COLUMNS``, else the terminal's, else
80), without importing shutil: with bz2, lzma and zlib that import cost
~4 ms of every command's start on the AMD EPYC VM, and argparse asks for
the width each time an option is added.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

__all__ = ["columns"]

FALLBACK_COLUMNS = 80


def columns(stream: TextIO | None = None) -> int:
    """Columns of the terminal ``stream`` (default: the process's standard
    output) is on."""
    try:
        return int(os.environ["COLUMNS"]) or FALLBACK_COLUMNS
    except (KeyError, ValueError):
        pass
    try:
        fd = (stream or sys.__stdout__ or sys.stdout).fileno()
        return os.get_terminal_size(fd).columns or FALLBACK_COLUMNS
    except (AttributeError, OSError, ValueError):
        return FALLBACK_COLUMNS
