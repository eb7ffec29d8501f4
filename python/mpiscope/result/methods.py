"""The engine's timing methods: their names (the ones plans and result
documents use), in the engine's order, what each does and where it applies,
read from the engine's description (:mod:`mpiscope.result.describe`).

The bench implements them (src/engine/method*.c); the command line checks
``--method`` against this table and the reports order methods by it.
"""

from __future__ import annotations

from collections.abc import Callable

from mpiscope.record import Record
from mpiscope.result.describe import description

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_METHOD",
    "LOOP_BIAS",
    "METHODS",
    "MethodInfo",
    "linear_loop_ratio",
    "linear_loop_ratio_of_times",
]

#: The method of a document or point that names none, and the baseline
#: other methods are compared with (the plan's default, test_describe.py).
DEFAULT_METHOD = "window"


class MethodInfo(Record):
    """One timing method: what it does and where it applies."""

    name: str
    description: str
    scheduled: bool  # launches start at planned global times: --arrival applies
    only_ops: tuple[str, ...] = ()  # empty: every operation


def _method(item: dict[str, Any]) -> MethodInfo:
    applies = item.get("applies_to")
    only = () if applies in (None, "all") else tuple(str(op) for op in applies)
    return MethodInfo(str(item["name"]), str(item["description"]), bool(item["scheduled"]), only)


#: Every method of the bench, in the engine's order (the order `mpiscope
#: methods` runs them), from its description.
METHODS: dict[str, MethodInfo] = {
    info.name: info for info in map(_method, description()["methods"])
}


def linear_loop_ratio(nprocs: int, k: int, i: int) -> float:
    """r_i(n,k) = ((n-1)(k-1) + i) / (i k): how many times longer than its
    true time t_i = i (alpha + m beta) rank root+i of a linear broadcast
    (the root sends to root+1, ..., root+n-1 in turn) reads in the IMB/OSU
    loop of k back-to-back launches (method ``barrier``): from the second
    launch on, rank i waits for the root's sends of the launch before to
    the ranks after it (measurement.md section 1, point 6). For 0 < i < n."""
    if not 0 < i < nprocs or k < 1:
        raise ValueError(f"r_i(n,k) needs 0 < i < n and k >= 1 (i={i}, n={nprocs}, k={k})")
    return linear_loop_ratio_of_times(i, nprocs - 1, k)  # t_i = i, in units of one send


def linear_loop_ratio_of_times(t_i: float, t_last: float, k: int) -> float:
    """The same bias from the true per-rank times, whatever each send costs
    (links of several kinds, e.g. ranks on the root's node and off it): rank
    i reads ((k-1) t_last + t_i) / k in the loop, t_last = t_{n-1} being the
    root's whole round of sends, so the ratio is ((k-1) t_last + t_i) / (k t_i).
    With t_i = i (alpha + m beta) it is linear_loop_ratio."""
    if not t_i > 0 or k < 1:
        raise ValueError(f"the ratio needs t_i > 0 and k >= 1 (t_i={t_i}, k={k})")
    return ((k - 1) * t_last + t_i) / (k * t_i)


#: The operations whose per-rank bias in the IMB/OSU loop has a closed form:
#: op name -> r(n, k, i), i counted from the root. ``mpiscope methods``
#: prints the measured per-rank ratio (barrier loop / window) next to it.
LOOP_BIAS: dict[str, Callable[[int, int, int], float]] = {"linear_bcast": linear_loop_ratio}
