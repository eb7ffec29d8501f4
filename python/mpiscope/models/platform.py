"""``mpiscope model platform``: a SimGrid platform (format 4.1, SimGrid
3.32) whose simulated messages take the fitted model's time.

The platform is a cluster of single-core hosts on private links and no
backbone: a message crosses the sender's link and the receiver's, so its
raw time is 2*lat + s/bw. SMPI multiplies the latency by
``smpi/lat-factor`` and the bandwidth by ``smpi/bw-factor``, piecewise by
message size (``S:F;S:F...``; SMPI 3.32 applies F to a message of m bytes
when m + 16 > S, checked on its simulated ping-pong: it counts 16 bytes
more than the payload, so a regime from m0 bytes is written S = m0 + 15,
and the 16 bytes' transfer, 16 beta_k, is taken off alpha_k),
set in the platform's ``<config>``. With one Hockney segment
alpha_k + beta_k*s per protocol regime, lat = alpha_0/2 and bw = 1/max(beta),
the factors are alpha_k/alpha_0 and max(beta)/beta_k: the simulated
one-way time is then alpha_k + beta_k*s in every regime. A model other
than Hockney is first cut into lines between its own measured sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from mpiscope.errors import MpiscopeError
from mpiscope.models.base import P2PModel
from mpiscope.models.hockney import Hockney

__all__ = ["Calibration", "Line", "calibrate", "lines_of", "platform_xml"]

#: A regime's per-byte time is kept within this factor of the largest one
#: (a flat segment, beta = 0, would ask for an infinite bandwidth).
MAX_BW_FACTOR = 1000.0
#: Sizes at which a non-Hockney model is cut into lines when it has no table.
DEFAULT_SIZES = tuple(4**k for k in range(11))


@dataclass(frozen=True)
class Line:
    """alpha + beta*s for messages of ``from_bytes`` or more."""

    from_bytes: int
    alpha_ns: float
    beta_ns_per_byte: float


def lines_of(model: P2PModel, sizes: Sequence[int] | None = None) -> list[Line]:
    """The model as lines: a Hockney model's segments as they are, any other
    model cut between consecutive sizes (its table's, or ``sizes``)."""
    if isinstance(model, Hockney):
        out, start = [], 0
        for seg in model.segments:  # a segment holds the sizes above the last one's end
            out.append(Line(start, seg.alpha_ns, seg.beta_ns_per_byte))
            start = seg.to_bytes + 1 if seg.to_bytes is not None else start
        return out
    points = sorted(set(sizes or getattr(model, "sizes", None) or DEFAULT_SIZES))
    if len(points) < 2:
        points = list(DEFAULT_SIZES)
    out = []
    for index, (a, b) in enumerate(zip(points, points[1:], strict=False)):
        ta, tb = model.time_ns(a), model.time_ns(b)
        beta = max((tb - ta) / (b - a), 0.0)
        out.append(Line(0 if index == 0 else a, max(ta - beta * a, 0.0), beta))
    return out


#: SMPI 3.32 takes a message of m bytes as m + 16 when it picks a factor.
SMPI_EXTRA_BYTES = 16


def _factors(values: Sequence[tuple[int, float]]) -> str:
    """``S:F`` entries whose F applies from ``start`` bytes on (see the module doc)."""
    return ";".join(f"{start + SMPI_EXTRA_BYTES - 1 if start else 0}:{factor:.6g}"
                    for start, factor in values)  # fmt: skip


@dataclass(frozen=True)
class Calibration:
    """The platform's numbers: per-link latency (ns), bandwidth (bytes/ns),
    and per regime (from_bytes, lat factor, bw factor)."""

    lat_ns: float
    bw_bytes_per_ns: float
    factors: tuple[tuple[int, float, float], ...]

    def simulated_ns(self, nbytes: float) -> float:
        """SMPI's one-way time on this platform: 2 links, m + 16 bytes."""
        lat_f, bw_f = 1.0, 1.0
        for start, lf, bf in self.factors:
            if nbytes + SMPI_EXTRA_BYTES > (start + SMPI_EXTRA_BYTES - 1 if start else 0):
                lat_f, bw_f = lf, bf
        return 2 * self.lat_ns * lat_f + (nbytes + SMPI_EXTRA_BYTES) / (self.bw_bytes_per_ns * bw_f)


def calibrate(model: P2PModel) -> Calibration:
    """The latency, bandwidth and factors that make SMPI take the model's time."""
    # SMPI sends m + 16 bytes: the 16 bytes' time comes off each latency (when it can)
    lines = [Line(ln.from_bytes, max(ln.alpha_ns - SMPI_EXTRA_BYTES * ln.beta_ns_per_byte,
                                     1e-3 * ln.alpha_ns), ln.beta_ns_per_byte)
             for ln in lines_of(model)]  # fmt: skip
    base_alpha = next((ln.alpha_ns for ln in lines if ln.alpha_ns > 0), 0.0)
    if base_alpha <= 0:
        raise MpiscopeError("the model has no positive latency: no platform can be made of it")
    top_beta = max(ln.beta_ns_per_byte for ln in lines)
    if top_beta <= 0:
        raise MpiscopeError("the model has no positive time per byte: no bandwidth to simulate")
    factors = tuple(
        (ln.from_bytes, max(ln.alpha_ns, 1e-3) / base_alpha,
         min(top_beta / ln.beta_ns_per_byte, MAX_BW_FACTOR) if ln.beta_ns_per_byte > 0
         else MAX_BW_FACTOR)
        for ln in lines
    )  # fmt: skip
    return Calibration(base_alpha / 2, 1 / top_beta, factors)


def platform_xml(model: P2PModel, hosts: int, source: str, name: str = "calibrated") -> str:
    """The platform file's text: ``hosts`` hosts ``node-0.<name>`` .. ."""
    if hosts < 1:
        raise MpiscopeError(f"a platform needs 1 host at least, not {hosts}")
    cal = calibrate(model)
    lat = _factors([(start, lf) for start, lf, _ in cal.factors])
    bw = _factors([(start, bf) for start, _, bf in cal.factors])
    base_alpha, top_beta = 2 * cal.lat_ns, 1 / cal.bw_bytes_per_ns
    bandwidth = 1e9 / top_beta  # bytes per second
    comment = f"mpiscope model platform: calibrated from {source}".replace("--", "- -")
    return "\n".join([
        "<?xml version='1.0'?>",
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
        '<platform version="4.1">',
        f"  <!-- {comment} -->",
        "  <!-- one-way time alpha_k + beta_k*s per regime: lat = alpha_0/2 per link (two links",
        "       per route), bw = 1/max(beta), SMPI's factors scale them per message size -->",
        "  <config>",
        f'    <prop id="smpi/lat-factor" value={quoteattr(lat)}/>',
        f'    <prop id="smpi/bw-factor" value={quoteattr(bw)}/>',
        "  </config>",
        f'  <cluster id={quoteattr(name)} prefix="node-" suffix={quoteattr("." + name)} '
        f'radical="0-{hosts - 1}" speed="1Gf" bw="{bandwidth:.6g}Bps" '
        f'lat="{base_alpha / 2:.6g}ns"/>',
        "</platform>",
        "",
    ])  # fmt: skip
