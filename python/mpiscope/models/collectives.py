"""Costs of collective algorithms from any point-to-point model (Thakur,
Rabenseifner and Gropp, IJHPCA 2005; research notes 5.2), written with the
model's time T(s) of one s-byte message in place of alpha + s*beta, so that
the same formula serves Hockney, LogGP, PLogP and LMO, and with gamma, the
reduction time per byte (0 when not measured).

``size`` is the engine op's size (docs/operations.md): bcast and allreduce
the vector bytes, scatter/gather/allgather the bytes per process, alltoall
the bytes per destination. The names are the contract with the C side
(include/mpiscope/model.h): the same name gives the same number in both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mpiscope.errors import MpiscopeError

__all__ = ["COLLECTIVES", "Collective", "bruck_ns", "collective", "ring_ns"]

#: T(s): the time (ns) of one s-byte message.
Time = Callable[[float], float]


def _log2(p: int) -> int:
    return math.ceil(math.log2(p)) if p > 1 else 0


def _floor_pow2(p: int) -> int:
    return 1 << (p.bit_length() - 1)


def bruck_ns(p: int, m: float, t: Time) -> float:
    """Radix-2 Bruck: ceil(log2 p) steps, each forwarding ceil(p/2) blocks."""
    return _log2(p) * t(math.ceil(p / 2) * m) if p > 1 else 0.0


def ring_ns(p: int, m: float, t: Time) -> float:
    """p - 1 steps of one m-byte message (pairwise, ring, linear, scatter...)."""
    return (p - 1) * t(m)


def _binomial(p: int, s: float, t: Time, gamma: float) -> float:
    return _log2(p) * t(s)


def _linear(p: int, s: float, t: Time, gamma: float) -> float:
    return ring_ns(p, s, t)


def _bruck(p: int, s: float, t: Time, gamma: float) -> float:
    return bruck_ns(p, s, t)


def _extra(p: int, s: float, t: Time, gamma: float) -> float:
    """The two extra steps of a non-power-of-two p: the excess ranks hand
    their vector to a partner (and it reduces), and get the result back."""
    return 0.0 if p == _floor_pow2(p) else 2 * t(s) + s * gamma


def _recursive_doubling(p: int, s: float, t: Time, gamma: float) -> float:
    steps = (_floor_pow2(p).bit_length() - 1) if p > 1 else 0
    return steps * (t(s) + s * gamma) + _extra(p, s, t, gamma)


def _rabenseifner(p: int, s: float, t: Time, gamma: float) -> float:
    if p < 2:
        return 0.0
    q = _floor_pow2(p)
    steps = q.bit_length() - 1
    halving = sum(t(s / 2**k) for k in range(1, steps + 1))
    return 2 * halving + (q - 1) / q * s * gamma + _extra(p, s, t, gamma)


def _dissemination(p: int, s: float, t: Time, gamma: float) -> float:
    return _log2(p) * t(0.0)


@dataclass(frozen=True)
class Collective:
    """One algorithm: its name (``op:algorithm``), formula and cost."""

    name: str
    formula: str
    cost: Callable[[int, float, Time, float], float]

    @property
    def op(self) -> str:
        return self.name.split(":", 1)[0]

    def time_ns(self, p: int, size: float, t: Time, gamma: float = 0.0) -> float:
        return 0.0 if p < 2 else self.cost(p, float(size), t, gamma)


_LIST = (
    Collective("bcast:linear", "(p-1) T(s)", _linear),
    Collective("bcast:binomial", "ceil(log2 p) T(s)", _binomial),
    Collective("scatter:linear", "(p-1) T(s)", _linear),
    Collective("gather:linear", "(p-1) T(s)", _linear),
    Collective("alltoall:bruck", "ceil(log2 p) T(ceil(p/2) s)", _bruck),
    Collective("alltoall:pairwise", "(p-1) T(s)", _linear),
    Collective("alltoall:linear", "(p-1) T(s)  (single port: overlap not modeled)", _linear),
    Collective("allreduce:recursive_doubling",
               "log2 q (T(s) + s gamma) [+ 2 T(s) + s gamma if p != q], q = 2^floor(log2 p)",
               _recursive_doubling),
    Collective("allreduce:rabenseifner",
               "2 sum_k=1..log2 q T(s/2^k) + (q-1)/q s gamma [+ 2 T(s) + s gamma if p != q]",
               _rabenseifner),
    Collective("allgather:ring", "(p-1) T(s)", _linear),
    Collective("barrier:dissemination", "ceil(log2 p) T(0)", _dissemination),
)  # fmt: skip
#: Every shared collective algorithm by name.
COLLECTIVES: dict[str, Collective] = {c.name: c for c in _LIST}


def collective(name: str) -> Collective:
    """The algorithm ``name``; a one-line MpiscopeError naming the known ones."""
    try:
        return COLLECTIVES[name]
    except KeyError:
        raise MpiscopeError(
            f"unknown collective algorithm {name!r} (known: {', '.join(COLLECTIVES)})"
        ) from None
