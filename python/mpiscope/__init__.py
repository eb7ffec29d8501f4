"""mpiscope: precise MPI benchmarking.

The measurements run in C (``mpiscope-bench``); this package is everything
around them: the command line, launching, and reading result documents::

    import mpiscope
    result = mpiscope.load_result("bcast.json")
    for point in result.points:
        print(point.op, point.size_bytes, point.median_ns)

    df = mpiscope.load("bcast.json")   # pandas DataFrame, one row per point
"""

from __future__ import annotations

from mpiscope.errors import MpiscopeError
from mpiscope.result import Point, Result, load_result
from mpiscope.result.frame import load

__all__ = ["MpiscopeError", "Point", "Result", "__version__", "load", "load_result"]

__version__ = "0.1.0"
