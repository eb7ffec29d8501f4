"""The engine's own description (``mpiscope-bench --describe``): its
operations, timing methods, timers, clock-sync algorithms, element types,
reductions, cache modes, arrival patterns, stopping rules and every plan
parameter with its default, range and unit, from the C tables.

It is checked in next to this module (describe.json) and kept equal to
the bench's output by tests/python/test_describe.py; regenerate it with::

    mpiscope-bench --describe | python -m json.tool --indent 1 \
        > python/mpiscope/result/describe.json

The command line takes its choices and defaults from here, the reports
the order of the methods and which operations move data: Python lists
none of them again.
"""

from __future__ import annotations

from mpiscope.inputs import bundled_json

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["bandwidth_ops", "description", "names", "pair_ops", "parameter"]


def description() -> dict[str, Any]:
    """The whole description, as the bench printed it."""
    return bundled_json("result/describe.json")


def names(section: str) -> tuple[str, ...]:
    """The names of a list section (``timers``, ``sync``, ``methods``, ...), in
    the engine's order."""
    return tuple(str(item["name"]) for item in description()[section])


def parameter(name: str) -> dict[str, Any]:
    """A plan parameter: ``type``, ``default``, ``unit``, ``min``, ``max``
    (with ``min_exclusive``, ``max_exclusive``), ``choices``, ``help``."""
    for item in description()["plan_parameters"]:
        if item["name"] == name:
            return dict(item)
    raise KeyError(f"the engine has no plan parameter {name!r}")


def pair_ops() -> frozenset[str]:
    """Operations that send messages between ranks and so need 2 ranks at
    least (the op descriptors' flag ``pairs``)."""
    return frozenset(op["name"] for op in description()["ops"] if "pairs" in op.get("flags", ()))


def bandwidth_ops() -> frozenset[str]:
    """Operations whose size is data each rank sends or receives, so that
    bytes / time is a bandwidth (the op descriptors' ``bandwidth``)."""
    return frozenset(op["name"] for op in description()["ops"] if op.get("bandwidth"))
