"""PLogP (Kielmann, Bal and Verstoep, IPDPS workshops 2000): the latency
L and, as functions of the message size m, the send overhead o_s(m), the
receive overhead o_r(m) and the gap g(m), tabulated at the measured sizes
and linearly interpolated between them (beyond the last: the last segment
extended). From the experiments of the published procedure:

* o_s(m): rank 0's time of one ``overhead_send`` (the MPI_Send call);
* o_r(m): rank 1's ``overhead_recv`` time (the receive is called once the
  message has surely arrived) minus the delay;
* g(m): the gap of a saturating train, (PRTT(n,0,m) - PRTT(1,0,m)) / (n-1)
  from the ``prtt`` op (the same trains Netgauge uses);
* L = RTT(m0)/2 - g(m0), RTT the ping-pong round trip at the smallest size.

The end-to-end time of one message is T(m) = L + g(m).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Mapping, Sequence
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
    pingpong_series,
    require,
    sizes_in_all,
)
from mpiscope.models.loggp import overhead_recv_series, prtt_series

__all__ = ["PLogP", "fit_plogp_document", "interpolate"]

HOW = "mpiscope model measure"


def interpolate(sizes: Sequence[float], values: Sequence[float], x: float) -> float:
    """Linear interpolation in the table; outside it, its end segments extended."""
    if len(sizes) == 1:
        return values[0]
    i = min(max(bisect.bisect_right(sizes, x) - 1, 0), len(sizes) - 2)
    x0, x1 = sizes[i], sizes[i + 1]
    return values[i] + (values[i + 1] - values[i]) * (x - x0) / (x1 - x0)


@dataclass(frozen=True)
class PLogP:
    L_ns: float
    sizes: tuple[int, ...]
    o_s_ns: tuple[float, ...]
    o_r_ns: tuple[float, ...]
    g_ns: tuple[float, ...]
    gamma_ns_per_byte: float = 0.0

    def g(self, nbytes: float) -> float:
        return max(interpolate(self.sizes, self.g_ns, nbytes), 0.0)

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        """L + g(m); ``sharing`` senders: the gap of sharing*m bytes, less
        that of (sharing-1) empty messages (g grows with the bytes only)."""
        if sharing == 1:
            return self.L_ns + self.g(nbytes)
        return self.L_ns + self.g(sharing * nbytes) - (sharing - 1) * self.g(0.0)

    def as_dict(self) -> dict[str, Any]:
        return {"L_ns": self.L_ns, "table": [
            {"size_bytes": s, "o_s_ns": a, "o_r_ns": b, "g_ns": c}
            for s, a, b, c in zip(self.sizes, self.o_s_ns, self.o_r_ns, self.g_ns, strict=True)]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], gamma: float = 0.0) -> PLogP:
        rows = data["table"]
        return cls(data["L_ns"], tuple(r["size_bytes"] for r in rows),
                   tuple(r["o_s_ns"] for r in rows), tuple(r["o_r_ns"] for r in rows),
                   tuple(r["g_ns"] for r in rows), gamma)  # fmt: skip


def fit_plogp_document(doc: Mapping[str, Any], options: FitOptions) -> Fit:
    stat = options.statistic
    prtt = prtt_series(doc, stat)
    send = require(find_series(doc, "overhead_send", rank=0, statistic=stat), "overhead_send",
                   HOW)  # fmt: skip
    recv = require(overhead_recv_series(doc, stat), "overhead_recv", HOW)
    pingpong = require(pingpong_series(doc, statistic=stat), "ping-pong between ranks 0 and 1",
                       HOW)  # fmt: skip
    reduce = gamma_series(doc, stat)
    sizes = sizes_in_all([prtt.single, prtt.train, send, recv])
    if len(sizes) < 2:
        raise MpiscopeError(
            "PLogP needs prtt, overhead_send and overhead_recv at 2 common sizes at least"
        )

    def fit(rng: random.Random | None) -> dict[str, float]:
        gap_sizes, gaps = prtt.gap(rng)
        g_at = dict(zip(gap_sizes, gaps, strict=True))
        s_at = _at(send, rng)
        r_at = _at(recv, rng)
        out: dict[str, float] = {}
        rtt0 = pingpong.values(rng)[0] * 2
        g0 = interpolate(sizes, [g_at[s] for s in sizes], pingpong.sizes[0])
        out["L_ns"] = rtt0 / 2 - g0
        for s in sizes:
            out[f"o_s[{s}]_ns"] = s_at[s]
            out[f"o_r[{s}]_ns"] = r_at[s]
            out[f"g[{s}]_ns"] = g_at[s]
        return out

    estimates = estimate(fit, reduce, options)
    v = {k: e.value for k, e in estimates.items()}
    model = PLogP(v["L_ns"], tuple(sizes), tuple(v[f"o_s[{s}]_ns"] for s in sizes),
                  tuple(v[f"o_r[{s}]_ns"] for s in sizes), tuple(v[f"g[{s}]_ns"] for s in sizes),
                  v.get("gamma_ns_per_byte", 0.0))  # fmt: skip
    warnings = []
    if model.L_ns < 0:
        warnings.append(f"L came out negative ({model.L_ns:.0f} ns): g(m0) exceeds half the "
                        "round trip")  # fmt: skip
    # the ping-pong's smallest size gives L: the fit reads it too
    return make_fit("plogp", model, model.as_dict() | {"n": prtt.n}, estimates, pingpong,
                    [prtt.single, prtt.train, send, recv, pingpong, reduce], warnings)


def _at(series: Series, rng: random.Random | None) -> dict[int, float]:
    return dict(zip(series.sizes, series.values(rng), strict=True))
