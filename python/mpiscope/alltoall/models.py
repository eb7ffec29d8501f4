"""The cost of each Alltoall algorithm of the lab (research notes 5.2) on a
point-to-point model, usually the piecewise Hockney fit of a ping-pong
(:mod:`mpiscope.models.hockney`, re-exported here for the lab); Bruck and
the ring come from :mod:`mpiscope.models.collectives`, the leader schemes
are the lab's own.

Notation: N processes, m bytes per destination, K nodes of M ranks, d
leaders per node, T(s) the fitted time of one message of s bytes. Leader
schemes are an intra-node copy in and out (T_intra of the bytes one
leader handles) plus the inter-node exchange of the aggregated block
B = M*M*m/d among K leaders, d of them per node at once sharing the node's
link (a message of s bytes costs alpha + d*beta*s), in Bruck when B <=
size_crit and in the ring otherwise (the lab's ``inter=auto``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mpiscope.alltoall.plp import plp_rule
from mpiscope.models.base import P2PModel
from mpiscope.models.collectives import bruck_ns, ring_ns
from mpiscope.models.hockney import Hockney, Segment, fit_hockney

__all__ = [
    "MODELS",
    "Hockney",
    "Segment",
    "Topology",
    "fit_hockney",
    "mpich_auto_model",
    "predict",
]


@dataclass(frozen=True)
class Topology:
    """The run's shape: N processes in K nodes of (at most) M ranks."""

    nprocs: int
    nodes: int
    ranks_per_node: int
    size_crit: int


#: cost(topology, m, d, inter, intra), in ns
Cost = Callable[[Topology, float, int | None, P2PModel, P2PModel], float]


def _leaders(topo: Topology, m: float, d: int, inter: P2PModel, intra: P2PModel) -> float:
    """Copy in, inter-node exchange of B = M*M*m/d among K leaders (d per node
    at once), copy out."""
    big_m, k = topo.ranks_per_node, topo.nodes
    block = big_m * big_m * m / d
    copy = intra.time_ns(big_m / d * topo.nprocs * m)

    def shared(s: float) -> float:
        return inter.time_ns(s, sharing=d)

    exchange = bruck_ns(k, block, shared) if block <= topo.size_crit else ring_ns(k, block, shared)
    return 2 * copy + exchange


def _plain(kind: str) -> Cost:
    def model(topo: Topology, m: float, _d: int | None, inter: P2PModel, _i: P2PModel) -> float:
        return (bruck_ns if kind == "bruck" else ring_ns)(topo.nprocs, m, inter.time_ns)

    return model


def _leader_model(which: str) -> Cost:
    def model(topo: Topology, m: float, d: int | None, inter: P2PModel, intra: P2PModel) -> float:
        if which == "one":
            d = 1
        elif which == "m":
            d = topo.ranks_per_node
        elif d is None:
            d = plp_rule(topo.ranks_per_node, int(m), topo.size_crit)
        return _leaders(topo, m, d, inter, intra)

    return model


#: Model name -> (formula as text, cost function).
MODELS: dict[str, tuple[str, Cost]] = {
    "bruck": ("ceil(log2 N) * T(ceil(N/2) m)", _plain("bruck")),
    "pairwise": ("(N-1) * T(m)", _plain("ring")),
    "linear": ("(N-1) * T(m)  (single-port Hockney: as pairwise; overlap is not modeled)",
               _plain("ring")),
    "lss": ("(N-1) * T(m)  (Hockney has no rendezvous sync messages: as pairwise)",
            _plain("ring")),
    "one_leader": ("2 T_intra(N M m) + X(K, M M m, 1)  {1, K, M M m}", _leader_model("one")),
    "m_leader": ("2 T_intra(N m) + X(K, M m, M)  {M, K, M m}", _leader_model("m")),
    "plp": ("2 T_intra(N M m / d) + X(K, M M m / d, d)  {d, K, M M m / d}",
            _leader_model("plp")),
}  # fmt: skip
#: The leader schemes among MODELS (their cost needs the node topology).
LEADER_SCHEMES = ("one_leader", "m_leader", "plp")
#: X(K, B, d): the inter-node exchange of blocks B among K leaders, d per node at once.
EXCHANGE_TEXT = (
    "X(K, B, d) = ceil(log2 K) T_d(ceil(K/2) B) if B <= size_crit else (K-1) T_d(B), "
    "T_d(s) = alpha + d beta s"
)


def predict(
    model: str | None,
    topo: Topology,
    block_bytes: int,
    inter: P2PModel,
    intra: P2PModel | None = None,
    leaders: int | None = None,
) -> float | None:
    """The predicted time (ns) of one Alltoall by ``model`` (None: no model)."""
    if model is None or model not in MODELS:
        return None
    if topo.nprocs < 2:
        return 0.0
    return MODELS[model][1](topo, float(block_bytes), leaders, inter, intra or inter)


def mpich_auto_model(nprocs: int, block_bytes: int) -> str:
    """The model of what MPICH's built-in tree runs (research notes 2.3):
    fewer than 8 ranks: scattered up to 32 KiB, pairwise above; else Bruck
    up to 256 B, scattered up to 32 KiB, pairwise above."""
    if nprocs >= 8 and block_bytes <= 256:
        return "bruck"
    return "linear" if block_bytes <= 32768 else "pairwise"
