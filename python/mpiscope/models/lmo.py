"""LMO, the heterogeneous model of Lastovetsky, Mkwawa and O'Flynn (2006;
Lastovetsky, Rychkov and O'Flynn 2008), estimated as MPIBlib/CPM do from
ping-pongs and one-to-two experiments (it needs 3 ranks at least).

One message of m bytes from i to j takes
    T_ij(m) = C_i + L_ij + C_j + m (t_i + 1/beta_ij + t_j)
(C: a processor's fixed delay, t: its per-byte delay, L_ij and beta_ij the
link's latency and bandwidth). A ping-pong gives only the sums: its
one-way time H_ij(m) = a_ij + b_ij m, a line per pair. The one-to-two
experiment of root i (sends m bytes to j = i+1 and k = i+2, each answers
empty) serializes the root's two sends; modeled as
    T_i(m) = C_i + m t_i + max_{x in j,k} (H_ix(m) + H_ix(0))
it gives C_i + m t_i, a line in m, and then
    L_ij = a_ij - C_i - C_j,   1/beta_ij = b_ij - t_i - t_j.
For collective predictions T(m) is the mean over the measured links.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.data import Series, find_series
from mpiscope.models.fit import (
    Fit,
    FitOptions,
    estimate,
    gamma_series,
    make_fit,
    pairs_measured,
    pingpong_series,
)
from mpiscope.models.hockney import fit_line

__all__ = ["LMO", "fit_lmo_document"]

HOW = "mpiscope model measure --np 3 (or more) --lmo"


@dataclass(frozen=True)
class LMO:
    nprocs: int
    C_ns: tuple[float, ...]
    t_ns_per_byte: tuple[float, ...]
    links: tuple[tuple[int, int, float, float], ...]  # i, j, L_ns, inverse beta (ns/byte)
    gamma_ns_per_byte: float = 0.0

    def link_time_ns(self, i: int, j: int, nbytes: float) -> float:
        for a, b, latency, inv_beta in self.links:
            if {a, b} == {i, j}:
                return (self.C_ns[i] + latency + self.C_ns[j]
                        + nbytes * (self.t_ns_per_byte[i] + inv_beta + self.t_ns_per_byte[j]))
        raise MpiscopeError(f"the LMO model has no link {i}-{j}")

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        """The mean over the links (``sharing``: the per-byte part counted so often)."""
        total = 0.0
        for i, j, latency, inv_beta in self.links:
            per_byte = self.t_ns_per_byte[i] + inv_beta + self.t_ns_per_byte[j]
            total += self.C_ns[i] + latency + self.C_ns[j] + sharing * nbytes * per_byte
        return total / len(self.links)

    def as_dict(self) -> dict[str, Any]:
        return {
            "processors": [{"rank": r, "C_ns": c, "t_ns_per_byte": t}
                           for r, (c, t) in enumerate(zip(self.C_ns, self.t_ns_per_byte,
                                                          strict=True))],
            "links": [{"ranks": [i, j], "L_ns": lat, "inv_beta_ns_per_byte": ib}
                      for i, j, lat, ib in self.links],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], gamma: float = 0.0) -> LMO:
        procs = sorted(data["processors"], key=lambda p: p["rank"])
        links = tuple((lk["ranks"][0], lk["ranks"][1], lk["L_ns"], lk["inv_beta_ns_per_byte"])
                      for lk in data["links"])  # fmt: skip
        return cls(len(procs), tuple(p["C_ns"] for p in procs),
                   tuple(p["t_ns_per_byte"] for p in procs), links, gamma)  # fmt: skip


def _ols(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Ordinary least squares (intercept, slope); the terms may be negative."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return my - slope * mx, slope


def _nprocs(doc: Mapping[str, Any]) -> int:
    return max((int(p.get("nprocs") or 0) for p in doc.get("points") or ()), default=0)


def fit_lmo_document(doc: Mapping[str, Any], options: FitOptions) -> Fit:
    p = _nprocs(doc)
    if p < 3:
        raise MpiscopeError(
            f"LMO needs one-to-two experiments on 3 ranks at least; this document was measured "
            f"on {p} (run {HOW})"
        )
    pings: dict[tuple[int, int], Series] = {}
    for pair in pairs_measured(doc):
        series = pingpong_series(doc, pair, options.statistic)
        if series is not None:
            pings[(min(pair), max(pair))] = series
    roots: dict[int, Series] = {}
    for root in range(p):
        series = find_series(doc, "one_to_two", root=root, rank=root,
                             statistic=options.statistic)
        if series is not None:
            roots[root] = series
    needed = {(min(r, (r + s) % p), max(r, (r + s) % p)) for r in roots for s in (1, 2)}
    missing = sorted(needed - set(pings))
    if not roots or missing:
        what = "one_to_two points" if not roots else \
            "ping-pongs of pairs " + ", ".join(f"{i}-{j}" for i, j in missing)
        measured = set(pairs_measured(doc))
        if roots and all(pair in measured for pair in missing):
            raise MpiscopeError(f"LMO: the {what} have no valid launch (measured on a loaded or "
                                "oversubscribed machine?): measure again")  # fmt: skip
        raise MpiscopeError(f"LMO: the document has no {what} (measure them with {HOW})")
    if set(roots) != set(range(p)):
        raise MpiscopeError(f"LMO needs one_to_two with every root 0..{p - 1} ({HOW})")
    reduce = gamma_series(doc, options.statistic)

    def fit(rng: random.Random | None) -> dict[str, float]:
        lines = {pair: fit_line([float(s) for s in series.sizes], series.values(rng))
                 for pair, series in pings.items()}  # fmt: skip

        def h(i: int, j: int, m: float) -> float:
            a, b = lines[(min(i, j), max(i, j))]
            return a + b * m

        out: dict[str, float] = {}
        for root, series in roots.items():
            ys = [t - max(h(root, (root + s) % p, m) + h(root, (root + s) % p, 0) for s in (1, 2))
                  for m, t in zip(series.sizes, series.values(rng), strict=True)]  # fmt: skip
            c, t = _ols([float(m) for m in series.sizes], ys)
            out[f"C[{root}]_ns"], out[f"t[{root}]_ns_per_byte"] = c, t
        for (i, j), (a, b) in sorted(lines.items()):
            out[f"L[{i}-{j}]_ns"] = a - out[f"C[{i}]_ns"] - out[f"C[{j}]_ns"]
            out[f"inv_beta[{i}-{j}]_ns_per_byte"] = (b - out[f"t[{i}]_ns_per_byte"]
                                                     - out[f"t[{j}]_ns_per_byte"])  # fmt: skip
        return out

    estimates = estimate(fit, reduce, options)
    v = {k: e.value for k, e in estimates.items()}
    model = LMO(
        p, tuple(v[f"C[{r}]_ns"] for r in range(p)),
        tuple(v[f"t[{r}]_ns_per_byte"] for r in range(p)),
        tuple((i, j, v[f"L[{i}-{j}]_ns"], v[f"inv_beta[{i}-{j}]_ns_per_byte"])
              for i, j in sorted(pings)),
        v.get("gamma_ns_per_byte", 0.0),
    )  # fmt: skip
    warnings = [f"{name} came out negative ({value:.3g}): the processor and link terms are not "
                "separable in this noise" for name, value in v.items() if value < 0][:3]
    return make_fit("lmo", model, model.as_dict(), estimates, pings.get((0, 1)),
                    [*pings.values(), *roots.values(), reduce], warnings)
