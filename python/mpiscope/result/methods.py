"""The engine's timing methods: their names (the ones plans and result
documents use), in the engine's order, what each does and where it applies.

The bench implements them (src/engine/method*.c); the command line checks
``--method`` against this table and the reports order methods by it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_METHOD", "METHODS", "MethodInfo"]

#: The method of a document or point that names none.
DEFAULT_METHOD = "window"


@dataclass(frozen=True)
class MethodInfo:
    """One timing method: what it does and where it applies."""

    name: str
    description: str
    scheduled: bool  # launches start at planned global times: --arrival applies
    only_ops: tuple[str, ...] = ()  # empty: every operation


#: Every method of the bench, in the order `mpiscope methods` runs them.
METHODS: dict[str, MethodInfo] = {
    info.name: info
    for info in (
        MethodInfo(
            "window",
            "synchronized windows (MPIPerf): every launch starts at the same global moment; "
            "time = max over ranks",
            True,
        ),
        MethodInfo(
            "roundtime",
            "each launch scheduled after the observed completion of the previous one "
            "(round-time, Schuchart/Hunold/Bosilca)",
            True,
        ),
        MethodInfo(
            "barrier",
            "the IMB/OSU loop: a barrier, then k back-to-back launches averaged per rank",
            False,
        ),
        MethodInfo(
            "barrier-each", "a barrier before every launch; per-launch max over ranks", False
        ),
        MethodInfo("none", "back-to-back launches, no separation", False),
        MethodInfo("root", "MPIBlib: the time on the root rank", False),
        MethodInfo("max", "MPIBlib: the max over ranks of their local times", False),
        MethodInfo("global", "MPIBlib: global clock, last end - first start", False),
        MethodInfo(
            "bcast-supinski",
            "de Supinski & Karonis: Bcast time from acknowledged broadcasts (bcast only)",
            False,
            ("bcast",),
        ),
    )
}
