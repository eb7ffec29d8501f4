"""What every fitted model offers the predictions: the time of one message."""

from __future__ import annotations

from typing import Protocol

__all__ = ["P2PModel"]


class P2PModel(Protocol):
    """A point-to-point model: T(s) in ns, and gamma, the reduction cost
    per byte (0 when not measured)."""

    @property
    def gamma_ns_per_byte(self) -> float:  # read-only: the models are frozen dataclasses
        ...

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        """One message of ``nbytes``; ``sharing`` senders share the link
        (the per-byte part counts ``sharing`` times)."""
        ...
