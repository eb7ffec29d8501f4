"""What the bench receives when an option is not given: the engine
parameters always passed at their default, and the defaults that differ on
a simulated cluster (``--launcher smpi``, docs/simulation.md). Constants
only, so that the typed request (:mod:`mpiscope.measure.request`) and the
flags (:mod:`mpiscope.measure.options`) read one table."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ALWAYS_PASSED", "SIMULATED_DEFAULTS", "simulated_help"]

#: Engine parameters the bench always receives, at their default when not
#: given (what a result was measured with never depends on the bench's
#: defaults); the other engine parameters go to it only when given.
ALWAYS_PASSED = (
    "timer", "sync", "stop", "target_rse", "min_valid", "max_valid", "max_point_seconds",
    "confidence", "trim", "align", "window_min_ns", "root", "dtype", "reduce_op",
)  # fmt: skip
#: The engine parameters whose default differs on a simulated cluster
#: (--launcher smpi, docs/simulation.md), when not given: a simulated clock
#: has no noise, so each point stops at its exact value, and the clock
#: sync's round trips repeat exactly, so one exchange after the first
#: shows that the first was the shortest.
SIMULATED_DEFAULTS: dict[str, Any] = {"stop": "deterministic", "sync_patience": 1, "ledger": "off"}
#: Why, for the flags' help.
_SIMULATED_WHY = {
    "stop": "where --stop error measures statistics anyway",
    "sync_patience": "whose round trips repeat exactly",
    "ledger": "where its companions cost three times the points themselves (docs/simulation.md)",
}


def simulated_help(name: str) -> str:
    """What a simulated run takes for ``name`` when it is not given, and why."""
    return f"{SIMULATED_DEFAULTS[name]} under --launcher smpi, {_SIMULATED_WHY[name]}"
