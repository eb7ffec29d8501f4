"""The engine's timing methods: their names (the ones plans and result
documents use), in the engine's order, what each does and where it applies,
read from the engine's description (:mod:`mpiscope.result.describe`).

The bench implements them (src/engine/method*.c); the command line checks
``--method`` against this table and the reports order methods by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mpiscope.result.describe import description

__all__ = ["DEFAULT_METHOD", "METHODS", "MethodInfo"]

#: The method of a document or point that names none, and the baseline
#: other methods are compared with (the plan's default, test_describe.py).
DEFAULT_METHOD = "window"


@dataclass(frozen=True)
class MethodInfo:
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
