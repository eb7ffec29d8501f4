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

from mpiscope.errors import MpiscopeError

#: typing is not imported at run time: it is most of the package's import
#: time, in which a Ctrl-C at the command's start would still be a traceback.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mpiscope.api import (
        check,
        firstcall,
        health_check,
        methods,
        noise_compare,
        noise_run,
        open_health,
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
    "health_check",
    "load",
    "load_result",
    "methods",
    "noise_compare",
    "noise_run",
    "open_health",
    "open_trace",
    "overlap",
    "run",
    "startup",
    "trace_program",
]



_LAZY = {
    "Point": "mpiscope.result",
    "Result": "mpiscope.result",
    "load_result": "mpiscope.result",
    "load": "mpiscope.result.frame",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # importlib.metadata only when asked (the CLI's start-up)
        from mpiscope.version import package_version

        globals()[name] = package_version()
        return globals()[name]
    module = _LAZY.get(name, "mpiscope.api")  # the API's names: mpiscope.api.__all__
    if module == "mpiscope.api" and name not in importlib.import_module(module).__all__:
        raise AttributeError(f"module 'mpiscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
