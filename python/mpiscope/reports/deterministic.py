"""Points of a simulated run measured to their exact value, in the reports.

A simulated clock has no noise: under the stopping rule ``deterministic``
(the default of ``--launcher smpi``, docs/simulation.md) a point stops as
soon as two valid launches read the same time, and its statistics have no
spread (``stop_reason`` "deterministic", ``error_ns`` 0). The reports show
such a point's value with the word "deterministic" where another point has
``mean ± E``, and say why; a point of that rule whose launches read
different times was measured with statistics (the error rule), and the
reports flag it and say so.
"""

from __future__ import annotations

from mpiscope.result import Point, Result
from mpiscope.result.estimate import is_measurement
from mpiscope.result.units import format_bytes

__all__ = ["DETERMINISTIC", "deterministic_lines", "differed", "is_exact"]

#: The stopping rule, and the stop reason of a point it ended.
DETERMINISTIC = "deterministic"


def is_exact(point: Point) -> bool:
    """Whether the point stopped at its exact value (no interval to show)."""
    return point.get("stop_reason") == DETERMINISTIC


def differed(point: Point, result: Result) -> bool:
    """Whether the point was measured under the deterministic rule but its
    launches read different times, so that it has statistics instead."""
    return (result.method.get("stop_rule") == DETERMINISTIC and is_measurement(point)
            and not is_exact(point))  # fmt: skip


def deterministic_lines(result: Result) -> list[str]:
    """The notes under the point table: which points are exact and why,
    which have statistics although the rule was the deterministic one."""
    points = [p for p in result.points if is_measurement(p)]
    exact = [p for p in points if is_exact(p)]
    other = [p for p in points if differed(p, result)]
    lines = []
    if exact:
        k_init = result.method.get("k_init")
        lines.append(
            f"deterministic ({len(exact)} of {len(points)} points): the simulated clock has no "
            f"noise, and each of these points' valid launches (n_c, after the {k_init} launches of "
            "the initialization stage) read the same time, to 1e-9 of it: the value is exact and "
            "has no interval (mpiscope run --stop error measures statistics anyway)"
        )
    if other:
        names = ", ".join(_name(p) for p in other[:8]) + (" ..." if len(other) > 8 else "")
        lines.append(
            f"launches differed ({len(other)} of {len(points)} points, with statistics): two "
            "valid launches read different times (an operation with random data or start times, "
            f"or times that fall between the clock's steps), so the error rule measured them: "
            f"{names}"
        )
    return lines


def _name(point: Point) -> str:
    size = point.size_bytes
    return point.op if size is None else f"{point.op} {format_bytes(size)}"
