"""What a user types for the noise detector: durations, frequencies, agents.

``10s``, ``1ms``, ``250us`` are durations; ``10Hz`` or ``10`` a frequency;
``10Hz:1ms@1`` an injected agent (10 bursts a second of 1 ms CPU time each,
pinned to logical CPU 1; ``@K`` may be left out, and ``~0.2`` after the
burst adds 20% jitter to each wake-up).
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import Ranged

__all__ = [
    "DETECTORS",
    "LAYOUTS",
    "Duration",
    "Frequency",
    "InjectorSpec",
    "parse_duration_s",
    "parse_frequency_hz",
    "parse_injector",
]

DETECTORS = ("alltoall", "barrier", "stream-ring")
#: A: no agent, one rank per physical core; B: agent on a core the detector
#: does not use; C: agent on the same logical core as one detector rank;
#: all: one rank per logical core (hyper-threads included).
LAYOUTS = ("A", "B", "C", "all")

_DURATION_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60.0}
_DURATION_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(min|s|ms|us|ns)?\s*$")
_FREQ_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(hz|khz)?\s*$", re.IGNORECASE)
_INJECT_RE = re.compile(
    r"^(?P<hz>[^:]+):(?P<burst>[^@~]+)(?:~(?P<jitter>[^@]+))?(?:@(?P<core>\d+))?$"
)


def parse_duration_s(text: str, what: str = "duration") -> float:
    """``"1ms"`` -> 0.001 (seconds; a bare number is seconds)."""
    match = _DURATION_RE.match(text)
    if not match:
        raise MpiscopeError(f"{what} '{text}' is not a duration such as 10s, 1ms or 250us")
    value = float(match.group(1)) * _DURATION_UNITS[match.group(2) or "s"]
    if not math.isfinite(value) or value <= 0:
        raise MpiscopeError(f"{what} '{text}' must be positive")
    return value


def parse_frequency_hz(text: str, what: str = "frequency") -> float:
    """``"10Hz"`` -> 10.0."""
    match = _FREQ_RE.match(text)
    if not match:
        raise MpiscopeError(f"{what} '{text}' is not a frequency such as 10Hz")
    value = float(match.group(1)) * (1e3 if (match.group(2) or "").lower() == "khz" else 1.0)
    if not math.isfinite(value) or value <= 0:
        raise MpiscopeError(f"{what} '{text}' must be positive")
    return value


class Duration(Ranged):
    """An argparse type: a duration as :func:`parse_duration_s` reads it
    (10s, 1ms, 250us), in seconds in ``(low, high]``."""

    def __init__(self, low: float, high: float) -> None:
        super().__init__(low, high, low_open=True)

    def parse(self, text: str) -> float:
        match = _DURATION_RE.match(text)
        if not match:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a duration such as 10s, 1ms or 250us"
            )
        return float(match.group(1)) * _DURATION_UNITS[match.group(2) or "s"]

    def text(self, value: float) -> str:
        return f"{value!r}s"


class Frequency(Ranged):
    """An argparse type: a frequency as :func:`parse_frequency_hz` reads it
    (10Hz, 10), in Hz in ``(low, high]``."""

    def __init__(self, low: float, high: float) -> None:
        super().__init__(low, high, low_open=True)

    def parse(self, text: str) -> float:
        match = _FREQ_RE.match(text)
        if not match:
            raise argparse.ArgumentTypeError(f"{text!r} is not a frequency such as 10Hz")
        return float(match.group(1)) * (1e3 if (match.group(2) or "").lower() == "khz" else 1.0)

    def text(self, value: float) -> str:
        return f"{value!r}Hz"


@dataclass(frozen=True)
class InjectorSpec:
    """The built-in agent: wakes ``hz`` times a second, burns ``burst_ns`` of CPU."""

    hz: float
    burst_ns: float
    core: int | None = None
    jitter: float = 0.0

    def __post_init__(self) -> None:
        period_ns = 1e9 / self.hz
        if self.burst_ns >= period_ns:
            raise MpiscopeError(
                f"a burst of {self.burst_ns / 1e6:g} ms does not fit in a period of "
                f"{period_ns / 1e6:g} ms at {self.hz:g} Hz"
            )
        if not 0.0 <= self.jitter < 1.0:
            raise MpiscopeError(f"jitter {self.jitter:g} must be in [0, 1)")

    @property
    def label(self) -> str:
        """``10Hz:1ms@1``, the form parse_injector reads."""
        text = f"{self.hz:g}Hz:{_format_duration(self.burst_ns)}"
        if self.jitter:
            text += f"~{self.jitter:g}"
        return text + (f"@{self.core}" if self.core is not None else "")

    def argv(self, program: str, seconds: float | None = None) -> list[str]:
        """The mpiscope-inject command line that plays this agent."""
        argv = [program, "--hz", f"{self.hz:g}", "--burst-ns", f"{self.burst_ns:.0f}"]
        if self.core is not None:
            argv += ["--core", str(self.core)]
        if self.jitter:
            argv += ["--jitter", f"{self.jitter:g}"]
        if seconds is not None:
            argv += ["--seconds", f"{seconds:g}"]
        return argv


def parse_injector(text: str) -> InjectorSpec:
    """``"10Hz:1ms@1"`` (or ``10:1ms``, ``20Hz:0.1ms~0.2@0``) -> InjectorSpec."""
    match = _INJECT_RE.match(text.strip())
    if not match:
        raise MpiscopeError(
            f"--inject '{text}' is not FREQ:BURST[~JITTER][@CORE] such as 10Hz:1ms@1"
        )
    jitter = 0.0
    if match.group("jitter"):
        try:
            jitter = float(match.group("jitter"))
        except ValueError:
            raise MpiscopeError(f"jitter '{match.group('jitter')}' is not a number") from None
    core = int(match.group("core")) if match.group("core") else None
    return InjectorSpec(
        hz=parse_frequency_hz(match.group("hz")),
        burst_ns=round(parse_duration_s(match.group("burst"), "burst") * 1e9),
        core=core,
        jitter=jitter,
    )


def _format_duration(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:g}{unit}"
    return f"{ns:g}ns"
