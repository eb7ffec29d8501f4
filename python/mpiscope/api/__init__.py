"""The Python API: measure from Python as the command line does.

Each function is a command of ``mpiscope``, its options given by name,
checked as the command line checks them, and returns the result document
as :func:`mpiscope.load_result` reads it (docs/python-api.md)::

    import mpiscope

    result = mpiscope.run("bcast", np=2, sizes="8,1K")
    for point in result.points:
        print(point.op, point.size_bytes, point.median_ns)
    frame = mpiscope.load(result.path)

Nothing is printed unless asked (``show=True`` prints what the command
prints, ``quiet=False`` shows the progress line). The command-line modules
(``mpiscope/commands/``) are thin layers over these functions: they turn
their parsed options into the same typed request
(:mod:`mpiscope.measure.request`) and call the same ``measure_*`` function.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mpiscope.api.health import health_check, open_health
    from mpiscope.api.measure import check, firstcall, methods, overlap, run, startup
    from mpiscope.api.noise import noise_compare, noise_run
    from mpiscope.api.trace import open_trace, trace_program

__all__ = ["check", "firstcall", "health_check", "methods", "noise_compare", "noise_run",
           "open_health", "open_trace", "overlap", "run", "startup", "trace_program"]  # fmt: skip

#: Each name's module, imported when the name is first used (PEP 562): the
#: command line imports one of them, not all.
_MODULES = {
    **dict.fromkeys(("check", "firstcall", "methods", "overlap", "run", "startup"),
                    "mpiscope.api.measure"),
    **dict.fromkeys(("open_trace", "trace_program"), "mpiscope.api.trace"),
    **dict.fromkeys(("noise_compare", "noise_run"), "mpiscope.api.noise"),
    **dict.fromkeys(("health_check", "open_health"), "mpiscope.api.health"),
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module 'mpiscope.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULES[name]), name)
    globals()[name] = value
    return value
