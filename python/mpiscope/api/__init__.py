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

from mpiscope.api.measure import check, firstcall, methods, overlap, run, startup

__all__ = ["check", "firstcall", "methods", "overlap", "run", "startup"]
