"""mpiscope: precise MPI benchmarking.

The measurements run in C (``mpiscope-bench``); this package is everything
around them: the command line, launching, and reading result documents::

    import mpiscope
    result = mpiscope.load_result("bcast.json")
    for point in result.points:
        print(point.op, point.size_bytes, point.median_ns)

    df = mpiscope.load("bcast.json")   # pandas DataFrame, one row per point

Measurements can be run from Python too, as the commands run them
(:mod:`mpiscope.api`, docs/python-api.md)::

    result = mpiscope.run("bcast", np=2, sizes="8,1K")   # a Result, as load_result gives

The names are imported when first used (PEP 562): the command line imports
this package first, and a launch should not wait for the result reader.
"""

from __future__ import annotations

import importlib

from mpiscope.api import __all__ as _API
from mpiscope.errors import MpiscopeError

#: typing is not imported at run time: it is most of the package's import
#: time, in which a Ctrl-C at the command's start would still be a traceback.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mpiscope.api import (
        check,
        firstcall,
        methods,
        noise_compare,
        noise_run,
        open_trace,
        overlap,
        run,
        startup,
        trace_program,
    )
    from mpiscope.result import Point, Result, load_result
    from mpiscope.result.frame import load

    __version__: str

__all__ = [
    "MpiscopeError",
    "Point",
    "Result",
    "__version__",
    "check",
    "firstcall",
    "load",
    "load_result",
    "methods",
    "noise_compare",
    "noise_run",
    "open_trace",
    "overlap",
    "run",
    "startup",
    "trace_program",
]



def _version() -> str:
    """The installed package's version (pyproject.toml reads it from the
    repository's VERSION file, as CMake does); VERSION itself when the
    package runs from a checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    try:
        return version("mpiscope")
    except PackageNotFoundError:
        return (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()

_LAZY = {
    "Point": "mpiscope.result",
    "Result": "mpiscope.result",
    "load_result": "mpiscope.result",
    "load": "mpiscope.result.frame",
    **dict.fromkeys(_API, "mpiscope.api"),
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # importlib.metadata only when asked (the CLI's start-up)
        globals()[name] = _version()
        return globals()[name]
    if name not in _LAZY:
        raise AttributeError(f"module 'mpiscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
