"""Traces of MPI programs: reading, the global clock, summaries and exports.

``mpiscope trace`` (python/mpiscope/cmd_trace.py) runs a program under the
tracer library and reads what it wrote; docs/tracer.md tells how to use it,
docs/trace-format.md what the files hold.
"""

from __future__ import annotations

__all__ = ["load", "read_trace"]

from mpiscope.trace.merge import load
from mpiscope.trace.reader import read_trace
