"""LogGP (Alexandrov et al., SPAA 1995) by Netgauge's PRTT procedure
(Hoefler, Lichei and Rehm, IPDPS 2007), from the ``prtt`` op: rank 0 sends
n messages of s bytes (busy-waiting d after each send call but the last)
and receives one empty reply; its time is PRTT(n, d, s).

* g + s*G: the least-squares line (on the relative error, as the Hockney
  fit) of (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1) over the sizes where it is
  positive (the gap between messages of a saturating train);
* o_s(s) = (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d, with d at least
  PRTT(1,0,s) (the sender is then never gap-bound); o_s is o_s at the
  smallest size;
* o_r from ``overhead_recv`` (rank 1's receive call after the message has
  surely arrived, minus its delay) at the smallest size, else o_s;
* L = PRTT(1,0,s0)/2 - 2o with o = (o_s + o_r)/2, s0 the smallest size
  (PRTT(1,0,s0) is one s0-byte message and one empty reply).

T(s) = L + 2o + (s-1) G.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.data import Series, find_series, option_text
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
from mpiscope.models.hockney import fit_line

__all__ = ["LogGP", "Prtt", "fit_loggp_document", "overhead_recv_series", "prtt_series"]

HOW = "mpiscope model measure"


@dataclass(frozen=True)
class LogGP:
    L_ns: float
    o_s_ns: float
    o_r_ns: float
    g_ns: float
    G_ns_per_byte: float
    gamma_ns_per_byte: float = 0.0

    @property
    def o_ns(self) -> float:
        return (self.o_s_ns + self.o_r_ns) / 2

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        return self.L_ns + 2 * self.o_ns + max(nbytes - 1, 0.0) * self.G_ns_per_byte * sharing

    def as_dict(self) -> dict[str, float]:
        return {"L_ns": self.L_ns, "o_s_ns": self.o_s_ns, "o_r_ns": self.o_r_ns,
                "o_ns": self.o_ns, "g_ns": self.g_ns, "G_ns_per_byte": self.G_ns_per_byte}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], gamma: float = 0.0) -> LogGP:
        return cls(data["L_ns"], data["o_s_ns"], data["o_r_ns"], data["g_ns"],
                   data["G_ns_per_byte"], gamma)  # fmt: skip


@dataclass(frozen=True)
class Prtt:
    """The three PRTT series of Netgauge's procedure (rank 0's times)."""

    n: int
    delay_ns: float
    single: Series  # PRTT(1, 0, s)
    train: Series  # PRTT(n, 0, s)
    delayed: Series | None  # PRTT(n, d, s)

    def gap(self, rng: random.Random | None) -> tuple[list[int], list[float]]:
        """(PRTT(n,0,s) - PRTT(1,0,s)) / (n-1) at the sizes of both."""
        sizes = sizes_in_all([self.single, self.train])
        one, many = self.single.values(rng), self.train.values(rng)
        one_at = dict(zip(self.single.sizes, one, strict=True))
        many_at = dict(zip(self.train.sizes, many, strict=True))
        return sizes, [(many_at[s] - one_at[s]) / (self.n - 1) for s in sizes]

    def send_overhead(self, rng: random.Random | None) -> tuple[list[int], list[float]]:
        """o_s(s) = (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d."""
        if self.delayed is None:
            return [], []
        sizes = sizes_in_all([self.single, self.delayed])
        one_at = dict(zip(self.single.sizes, self.single.values(rng), strict=True))
        late_at = dict(zip(self.delayed.sizes, self.delayed.values(rng), strict=True))
        return sizes, [(late_at[s] - one_at[s]) / (self.n - 1) - self.delay_ns for s in sizes]


def _option_values(doc: Mapping[str, Any], op: str, name: str) -> set[str]:
    return {str((p.get("options") or {}).get(name)) for p in doc.get("points") or ()
            if p.get("op") == op and name in (p.get("options") or {})}  # fmt: skip


def prtt_series(doc: Mapping[str, Any], statistic: str = "median") -> Prtt:
    """PRTT(1,0,s), PRTT(n,0,s) and PRTT(n,d,s) from the document's prtt
    points (n: the largest n measured, d: the largest delay_us with it)."""
    counts = sorted(int(v) for v in _option_values(doc, "prtt", "n") if v.isdigit())
    if 1 not in counts or len(counts) < 2:
        raise MpiscopeError(
            f"the document has no prtt points with n=1 and n>1 (measure them with {HOW})"
        )
    n = counts[-1]
    single = require(find_series(doc, "prtt", {"n": "1", "delay_us": "0"}, rank=0,
                                 statistic=statistic),
                     "prtt n=1 delay_us=0", HOW)  # fmt: skip
    train = require(find_series(doc, "prtt", {"n": str(n), "delay_us": "0"}, rank=0,
                                statistic=statistic),
                    f"prtt n={n} delay_us=0", HOW)  # fmt: skip
    delays = [float(v) for v in _option_values(doc, "prtt", "delay_us") if _number(v)]
    delay = max(delays, default=0.0)
    delayed = None
    if delay > 0:
        delayed = find_series(doc, "prtt", {"n": str(n), "delay_us": option_text(delay)},
                              rank=0, statistic=statistic)
    return Prtt(n, delay * 1000.0, single, train, delayed)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def overhead_recv_series(doc: Mapping[str, Any], statistic: str = "median") -> Series | None:
    """o_r(s): rank 1's overhead_recv time minus its delay."""
    delays = [float(v) for v in _option_values(doc, "overhead_recv", "delay_us") if _number(v)]
    if not delays:
        return None
    delay = max(delays)
    return find_series(doc, "overhead_recv", {"delay_us": option_text(delay)}, rank=1,
                       offset_ns=delay * 1000.0, statistic=statistic)  # fmt: skip


def _loggp(prtt: Prtt, recv: Series | None, rng: random.Random | None) -> dict[str, float]:
    sizes, gaps = prtt.gap(rng)
    kept = [(float(s), v) for s, v in zip(sizes, gaps, strict=True) if v > 0]
    if len(kept) < 2:  # a train faster than one message: noise, nothing to fit
        raise MpiscopeError("LogGP needs prtt trains slower than one message at 2 sizes at least")
    g, big_g = fit_line([s for s, _ in kept], [v for _, v in kept])
    o_sizes, o_s_values = prtt.send_overhead(rng)
    o_s = max(o_s_values[0], 0.0) if o_s_values else 0.0
    o_r = max(recv.values(rng)[0], 0.0) if recv is not None else o_s
    if not o_s_values:
        o_s = o_r
    s0 = prtt.single.sizes[0]
    rtt = prtt.single.values(rng)[0]
    latency = rtt / 2 - (o_s + o_r) - max(s0 - 1, 0) * big_g
    return {"L_ns": latency, "o_s_ns": o_s, "o_r_ns": o_r, "g_ns": g, "G_ns_per_byte": big_g}


def fit_loggp_document(doc: Mapping[str, Any], options: FitOptions) -> Fit:
    prtt = prtt_series(doc, options.statistic)
    recv = overhead_recv_series(doc, options.statistic)
    reduce = gamma_series(doc, options.statistic)
    pingpong = pingpong_series(doc, statistic=options.statistic)

    estimates = estimate(lambda rng: _loggp(prtt, recv, rng), reduce, options)
    values = {k: e.value for k, e in estimates.items()}
    model = LogGP.from_dict(values, values.get("gamma_ns_per_byte", 0.0))
    warnings = []
    if prtt.delayed is None:
        warnings.append("no delayed prtt: o_s is taken as o_r")
    if recv is None:
        warnings.append("no overhead_recv: o_r is taken as o_s")
    if model.L_ns < 0:
        warnings.append(f"L came out negative ({model.L_ns:.0f} ns): the overheads exceed "
                        "half the round trip (noise, or overheads that overlap the transfer)")
    structure = {**model.as_dict(), "n": prtt.n, "delay_ns": prtt.delay_ns}
    return make_fit("loggp", model, structure, estimates, pingpong,
                    [prtt.single, prtt.train, prtt.delayed, recv, reduce], warnings)
