"""Hockney models (spec/models.md, research notes 5.2): a piecewise
alpha + beta*s fitted from a ping-pong, one segment per protocol regime with
the breakpoints found from the data, and the cost of each Alltoall
algorithm built on it.

Notation: N processes, m bytes per destination, K nodes of M ranks, d
leaders per node, T(s) the fitted time of one message of s bytes. Leader
schemes are an intra-node copy in and out (T_intra of the bytes one
leader handles) plus the inter-node exchange of the aggregated block
B = M*M*m/d among K leaders, d of them per node at once sharing the node's
link (a message of s bytes costs alpha + d*beta*s), in Bruck when B <=
size_crit and in the ring otherwise (the lab's ``inter=auto``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mpiscope.alltoall.plp import plp_rule
from mpiscope.errors import MpiscopeError

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
class Segment:
    """alpha + beta*s for sizes up to ``to_bytes`` (None: and beyond)."""

    from_bytes: int
    to_bytes: int | None
    alpha_ns: float
    beta_ns_per_byte: float
    points: int
    max_rel_error: float

    def as_dict(self) -> dict[str, object]:
        return {
            "from_bytes": self.from_bytes, "to_bytes": self.to_bytes, "alpha_ns": self.alpha_ns,
            "beta_ns_per_byte": self.beta_ns_per_byte, "points": self.points,
            "max_rel_error": self.max_rel_error,
        }  # fmt: skip


@dataclass(frozen=True)
class Hockney:
    """A piecewise Hockney model: the segment whose range holds s applies
    (below the first: the first; above the last: the last)."""

    segments: tuple[Segment, ...]

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        """One message of ``nbytes``; ``sharing`` senders share the link (beta x sharing)."""
        seg = next(
            (s for s in self.segments if s.to_bytes is None or nbytes <= s.to_bytes),
            self.segments[-1],
        )
        return seg.alpha_ns + sharing * seg.beta_ns_per_byte * nbytes

    @classmethod
    def from_dicts(cls, segments: Sequence[dict[str, object]]) -> Hockney:
        return cls(tuple(Segment(**s) for s in segments))  # type: ignore[arg-type]


def _line(xs: Sequence[float], ts: Sequence[float]) -> tuple[float, float]:
    """alpha, beta minimising the squared relative error sum(((a + b x - t)/t)^2),
    both kept >= 0 (a fit below zero is refitted with that term at 0)."""
    w = [1.0 / (t * t) for t in ts]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs, strict=True))
    st = sum(wi * t for wi, t in zip(w, ts, strict=True))
    sxx = sum(wi * x * x for wi, x in zip(w, xs, strict=True))
    sxt = sum(wi * x * t for wi, x, t in zip(w, xs, ts, strict=True))
    det = sw * sxx - sx * sx
    if det <= 0:
        return st / sw, 0.0
    alpha = (st * sxx - sx * sxt) / det
    beta = (sw * sxt - sx * st) / det
    if beta < 0:
        return st / sw, 0.0
    if alpha < 0:
        return 0.0, (sxt / sxx if sxx > 0 else 0.0)
    return alpha, beta


def _cost(xs: Sequence[float], ts: Sequence[float]) -> tuple[float, float, float, float]:
    a, b = _line(xs, ts)
    rel = [abs(a + b * x - t) / t for x, t in zip(xs, ts, strict=True)]
    return sum(r * r for r in rel), a, b, max(rel)


def fit_hockney(
    sizes: Sequence[int], times_ns: Sequence[float], segments: int = 2, min_points: int = 2
) -> Hockney:
    """A piecewise fit of one-way message times: exactly ``segments``
    contiguous segments (fewer only when there are not ``min_points`` points
    for each), the breakpoints those that minimise the total squared
    relative error (dynamic programming over every split of the sorted
    sizes). Each segment is ``alpha + beta*s`` with alpha, beta >= 0."""
    pairs = sorted((int(s), float(t)) for s, t in zip(sizes, times_ns, strict=True) if t > 0)
    if len(pairs) < 2:
        raise MpiscopeError(f"a Hockney fit needs 2 sizes with a positive time, not {len(pairs)}")
    xs = [float(s) for s, _ in pairs]
    ts = [t for _, t in pairs]
    n = len(pairs)
    k = max(1, min(segments, n // min_points))
    memo: dict[tuple[int, int], tuple[float, float, float, float]] = {}

    def cost(i: int, j: int) -> tuple[float, float, float, float]:
        if (i, j) not in memo:
            memo[(i, j)] = _cost(xs[i:j], ts[i:j])
        return memo[(i, j)]

    # best[c][j]: the least error of the first j points in c segments, and the split
    best: list[dict[int, tuple[float, int]]] = [{0: (0.0, -1)}]
    for c in range(1, k + 1):
        row: dict[int, tuple[float, int]] = {}
        for j in range(c * min_points, n + 1):
            options = [
                (best[c - 1][i][0] + cost(i, j)[0], i)
                for i in range((c - 1) * min_points, j - min_points + 1)
                if i in best[c - 1]
            ]
            if options:
                row[j] = min(options)
        best.append(row)
    bounds = [n]
    for c in range(k, 0, -1):
        bounds.append(best[c][bounds[-1]][1])
    bounds.reverse()
    segs = []
    for index, (i, j) in enumerate(zip(bounds, bounds[1:], strict=False)):
        _, a, b, worst = cost(i, j)
        last = index == len(bounds) - 2
        segs.append(Segment(pairs[i][0], None if last else pairs[j - 1][0], a, b, j - i, worst))
    return Hockney(tuple(segs))


@dataclass(frozen=True)
class Topology:
    """The run's shape: N processes in K nodes of (at most) M ranks."""

    nprocs: int
    nodes: int
    ranks_per_node: int
    size_crit: int


def _log2(n: int) -> int:
    return math.ceil(math.log2(n)) if n > 1 else 0


def _bruck(n: int, m: float, t: Callable[[float], float]) -> float:
    return _log2(n) * t(math.ceil(n / 2) * m) if n > 1 else 0.0


def _ring(n: int, m: float, t: Callable[[float], float]) -> float:
    return (n - 1) * t(m)


def _leaders(topo: Topology, m: float, d: int, inter: Hockney, intra: Hockney) -> float:
    """Copy in, inter-node exchange of B = M*M*m/d among K leaders (d per node
    at once), copy out."""
    big_m, k = topo.ranks_per_node, topo.nodes
    block = big_m * big_m * m / d
    copy = intra.time_ns(big_m / d * topo.nprocs * m)

    def shared(s: float) -> float:
        return inter.time_ns(s, sharing=d)

    exchange = _bruck(k, block, shared) if block <= topo.size_crit else _ring(k, block, shared)
    return 2 * copy + exchange


def _plain(kind: str) -> Callable[[Topology, float, int | None, Hockney, Hockney], float]:
    def model(topo: Topology, m: float, _d: int | None, inter: Hockney, _i: Hockney) -> float:
        return (_bruck if kind == "bruck" else _ring)(topo.nprocs, m, inter.time_ns)

    return model


def _leader_model(
    which: str,
) -> Callable[[Topology, float, int | None, Hockney, Hockney], float]:
    def model(topo: Topology, m: float, d: int | None, inter: Hockney, intra: Hockney) -> float:
        if which == "one":
            d = 1
        elif which == "m":
            d = topo.ranks_per_node
        elif d is None:
            d = plp_rule(topo.ranks_per_node, int(m), topo.size_crit)
        return _leaders(topo, m, d, inter, intra)

    return model


#: Model name -> (formula as text, cost function(topology, m, d, inter, intra)).
MODELS: dict[str, tuple[str, Callable[[Topology, float, int | None, Hockney, Hockney], float]]] = {
    "bruck": ("ceil(log2 N) * T(ceil(N/2) m)", _plain("bruck")),
    "pairwise": ("(N-1) * T(m)", _plain("ring")),
    "linear": ("(N-1) * T(m)  (single-port Hockney: as pairwise; overlap is not modelled)",
               _plain("ring")),
    "lss": ("(N-1) * T(m)  (Hockney has no rendezvous sync messages: as pairwise)",
            _plain("ring")),
    "one_leader": ("2 T_intra(N M m) + X(K, M M m, 1)  {1, K, M M m}", _leader_model("one")),
    "m_leader": ("2 T_intra(N m) + X(K, M m, M)  {M, K, M m}", _leader_model("m")),
    "plp": ("2 T_intra(N M m / d) + X(K, M M m / d, d)  {d, K, M M m / d}",
            _leader_model("plp")),
}  # fmt: skip
#: X(K, B, d): the inter-node exchange of blocks B among K leaders, d per node at once.
EXCHANGE_TEXT = (
    "X(K, B, d) = ceil(log2 K) T_d(ceil(K/2) B) if B <= size_crit else (K-1) T_d(B), "
    "T_d(s) = alpha + d beta s"
)


def predict(
    model: str | None,
    topo: Topology,
    block_bytes: int,
    inter: Hockney,
    intra: Hockney | None = None,
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
