"""Nodes and PLP's leader rule (spec/alltoall.md), the same rule as the
engine's mpiscope_alltoall_plp_rule, so a document can say which d the
rule picks next to the d that measured best."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = [
    "DEFAULT_SIZE_CRIT",
    "best_leaders",
    "divisors",
    "leader_choices",
    "node_sizes",
    "plp_rule",
]

#: The seed's Size_crit (MVAPICH 1.2), the engine's default size_crit option.
DEFAULT_SIZE_CRIT = 8192


def node_sizes(nprocs: int, nodes: int) -> list[int]:
    """Ranks per node of ``nodes`` virtual nodes of consecutive ranks (the
    first ``nprocs % nodes`` one rank larger), as the engine splits them."""
    if nodes < 1 or nodes > nprocs:
        raise ValueError(f"{nodes} nodes for {nprocs} processes")
    base, extra = divmod(nprocs, nodes)
    return [base + 1] * extra + [base] * (nodes - extra)


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` >= 1, ascending."""
    return [d for d in range(1, n + 1) if n % d == 0]


def leader_choices(sizes: Sequence[int]) -> list[int]:
    """The leader counts d PLP accepts on nodes of these sizes: the divisors
    of every node's rank count."""
    return divisors(math.gcd(*sizes)) if sizes else [1]


def plp_rule(ranks_per_node: int, block_bytes: int, size_crit: int = DEFAULT_SIZE_CRIT) -> int:
    """The seed's rule: with M ranks per node and m bytes per destination,
    d = M when M*M*m <= Size_crit (every d keeps the inter-node exchange in
    Bruck, so the most NIC use); else the largest divisor d of M with
    M*M*m/d > Size_crit (the exchange stays in the ring algorithm, with as
    many leaders as possible)."""
    m_sq = ranks_per_node * ranks_per_node * block_bytes
    if m_sq <= size_crit:
        return ranks_per_node
    return max(d for d in divisors(ranks_per_node) if m_sq / d > size_crit)


def best_leaders(times_by_leaders: Mapping[int, float]) -> int | None:
    """The d with the smallest time (the smaller d on a tie); None if none."""
    finite = {d: t for d, t in times_by_leaders.items() if math.isfinite(t)}
    return min(finite, key=lambda d: (finite[d], d)) if finite else None
