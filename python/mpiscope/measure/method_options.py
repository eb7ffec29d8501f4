"""Timing methods, arrival patterns and cache modes as the command line takes them.

The bench (src/engine/method*.c) implements the methods
(:mod:`mpiscope.result.methods` lists them); this module checks what the
user typed against them before anything is launched. Each parser is an argparse
``type=`` (raises ArgumentTypeError, shown as one line); the checks that
need several options at once raise MpiscopeError.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import name_list, unknown
from mpiscope.record import Record
from mpiscope.result.describe import description, names
from mpiscope.result.methods import METHODS

__all__ = [
    "ARRIVAL_FORMS",
    "ARRIVAL_KINDS",
    "MAX_ARRIVAL_US",
    "CACHE_MODES",
    "Arrival",
    "check_method_options",
    "methods_for_ops",
    "parse_arrival",
    "parse_cache_modes",
    "parse_methods",
]

CACHE_MODES = names("cache")
#: Each arrival pattern and its form (``late:RANK:US``), from the engine.
ARRIVAL_FORMS = {
    a["name"]: ":".join(filter(None, (a["name"], a["parameters"])))
    for a in description()["arrival"]["patterns"]
}
ARRIVAL_KINDS = tuple(ARRIVAL_FORMS)
#: The largest arrival offset the bench takes (10 s).
MAX_ARRIVAL_US = 1e7


def parse_methods(text: str) -> list[str]:
    """``window,barrier`` -> ["window", "barrier"] (any case, no duplicates)."""
    return name_list(text, list(METHODS), "method")


def parse_cache_modes(text: str) -> list[str]:
    """``cold``, ``warm``, ``cold,warm`` (both: every point measured in each)."""
    return name_list(text, list(CACHE_MODES), "cache mode")


class Arrival(Record):
    """When ranks start a launch relative to its planned moment.

    ``none``: all at once; ``late``: rank ``rank`` late by ``us``;
    ``linear``: rank i late by i * ``us``; ``random``: each rank late by a
    uniform draw in [0, ``us``] (``seed`` fixes the draws).
    """

    kind: str
    us: float = 0.0
    rank: int | None = None
    seed: int | None = None

    @property
    def plan_object(self) -> dict[str, str | float | int]:
        """The plan's ``arrival`` field: an object whose members are typed
        values (``{"kind": "late", "rank": 1, "us": 100}``), parsed once here."""
        members: dict[str, str | float | int | None] = {
            "kind": self.kind, "rank": self.rank,
            "us": None if self.kind == "none" else self.us, "seed": self.seed,
        }
        return {key: value for key, value in members.items() if value is not None}

    @property
    def text(self) -> str:
        """The spec as a user writes it (``late:1:100``), for messages."""
        if self.kind == "none":
            return "none"
        parts = [self.kind]
        if self.rank is not None:
            parts.append(str(self.rank))
        parts.append(_number(self.us))
        if self.seed is not None:
            parts.append(str(self.seed))
        return ":".join(parts)


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def parse_arrival(text: str) -> Arrival:
    """``none``, ``late:RANK:US``, ``linear:US`` or ``random:US[:SEED]``."""
    parts = [part.strip() for part in text.strip().split(":")]
    kind = parts[0].lower()
    if kind not in ARRIVAL_FORMS:
        raise argparse.ArgumentTypeError(
            f"{unknown('arrival pattern', kind, ARRIVAL_KINDS)}; "
            f"forms: {', '.join(ARRIVAL_FORMS.values())}"
        )
    form = ARRIVAL_FORMS[kind]
    required = len(form.split("[")[0].split(":"))
    counts = (required, required + form.count("[")) if "[" in form else (required,)
    if len(parts) not in counts:
        raise argparse.ArgumentTypeError(f"bad arrival {text!r}: expected {form}")
    if kind == "none":
        return Arrival("none")
    if kind == "late":
        rank = _whole(parts[1], text, "RANK")
        return Arrival("late", _microseconds(parts[2], text), rank=rank)
    seed = _whole(parts[2], text, "SEED") if len(parts) == 3 else None
    return Arrival(kind, _microseconds(parts[1], text), seed=seed)


def _whole(part: str, text: str, what: str) -> int:
    try:
        value = int(part)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"bad arrival {text!r}: {what} must be a whole number >= 0, not {part!r}"
        )
    return value


def _microseconds(part: str, text: str) -> float:
    try:
        value = float(part)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= MAX_ARRIVAL_US):
        raise argparse.ArgumentTypeError(
            f"bad arrival {text!r}: US must be a number of microseconds in [0, "
            f"{MAX_ARRIVAL_US:.0f}], not {part!r}"
        )
    return value


def methods_for_ops(ops: Sequence[str], methods: Sequence[str] | None = None) -> list[str]:
    """``methods`` (default: all) that apply to at least one of ``ops``."""
    chosen = list(METHODS) if methods is None else list(methods)
    lowered = {op.lower() for op in ops}
    return [
        name
        for name in chosen
        if not METHODS[name].only_ops or lowered & set(METHODS[name].only_ops)
    ]


def check_method_options(
    ops: Sequence[str],
    methods: Sequence[str],
    arrival: Arrival | None,
    window_ns: float | None,
    nprocs: int,
) -> None:
    """Options that only make sense together; raise MpiscopeError otherwise.

    A method limited to some operations (bcast-supinski) is skipped by the
    bench for the others, but must apply to at least one of ``ops``.
    """
    for name in methods:
        if not methods_for_ops(ops, [name]):
            raise MpiscopeError(
                f"method {name} applies only to {', '.join(METHODS[name].only_ops)}, "
                f"which is not among the operations {','.join(ops)}"
            )
    if window_ns is not None and "window" not in methods:
        raise MpiscopeError(
            f"--window-ns applies to the window method, which is not among --method "
            f"{','.join(methods)}"
        )
    if arrival is None or arrival.kind == "none":
        return
    if not any(METHODS[name].scheduled for name in methods):
        scheduled = ", ".join(name for name, info in METHODS.items() if info.scheduled)
        raise MpiscopeError(
            f"--arrival applies to the scheduled methods ({scheduled}), none of which is among "
            f"--method {','.join(methods)}"
        )
    if arrival.kind == "late" and arrival.rank is not None and arrival.rank >= nprocs:
        raise MpiscopeError(
            f"--arrival {arrival.text}: rank {arrival.rank} is not a rank of a "
            f"{nprocs}-process run"
        )
