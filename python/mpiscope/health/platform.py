"""Simulated clusters with known faults, made from a shipped platform.

``degraded_platform("cluster-8x8", nodes=64, slow_links=[(3, 7, 4.0)],
slow_nodes=[(5, 2.0)])`` writes the network of the shipped cluster (its
per-node link, backbone and loopback, latencies, bandwidths, cores and
speed; platforms/README.md) for ``nodes`` hosts as explicit routes, then
degrades it: a slow link (a, b, f) divides the bandwidth between hosts a
and b by f (one more link on their route alone, f times narrower than the
node links, no latency), a slow node (n, f) divides the bandwidth of its
own node link by f and multiplies its latency by f, so every route of the
node is slower. The ground truth of ``mpiscope health`` (docs/health.md)
and its bench are such platforms: two are shipped (:data:`SHIPPED`,
platforms/faulty-16x8.xml and faulty-64x8.xml), and
``tools/degraded_platform.py`` writes them again (a test compares) or any
other from the command line.

SimGrid's ``<cluster>`` routes every pair through the same two node links
and the backbone, so one pair cannot be made slower there: the routes are
written out in a ``Full`` zone (n (n - 1) / 2 routes, symmetric, and one
loopback per host), which SimGrid 3.32 reads for a few hundred hosts in
well under a second.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mpiscope.errors import MpiscopeError

__all__ = [
    "SHIPPED",
    "ClusterSpec",
    "Faults",
    "cluster_spec",
    "degraded_platform",
    "write_degraded_platform",
]

_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


@dataclass(frozen=True)
class ClusterSpec:
    """The network of a shipped ``<cluster>``, in base units (B/s, s)."""

    name: str
    prefix: str
    suffix: str
    cores: int
    speed: str
    bw: float
    lat: float
    bb_bw: float
    bb_lat: float
    lo_bw: float
    lo_lat: float


@dataclass(frozen=True)
class Faults:
    """A degraded platform: the base cluster, its nodes, the slow links
    (a, b, bandwidth divisor) and the slow nodes (n, factor)."""

    base: str
    nodes: int
    slow_links: tuple[tuple[int, int, float], ...] = ()
    slow_nodes: tuple[tuple[int, float], ...] = ()


#: The shipped degraded platforms (platforms/NAME.xml): 8 cores a node as
#: cluster-8x8, one link at a quarter of its bandwidth, one node at half
#: its bandwidth and twice its latency on every link.
SHIPPED: dict[str, Faults] = {
    "faulty-16x8": Faults("cluster-8x8", 16, ((3, 9, 4.0),), ((12, 2.0),)),
    "faulty-64x8": Faults("cluster-8x8", 64, ((21, 50, 4.0),), ((37, 2.0),)),
}


def _rate(text: str, where: str) -> float:
    """``12.5GBps`` -> 12.5e9 (bytes/s)."""
    value = text.strip()
    if not value.lower().endswith("bps"):
        raise MpiscopeError(f"{where}: bandwidth {text!r} is not in Bps")
    return _number(value[:-3], where)


def _seconds(text: str, where: str) -> float:
    """``1us`` -> 1e-6, ``0.5ms`` -> 5e-4, ``2s`` -> 2."""
    value = text.strip()
    for suffix, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if value.endswith(suffix):
            return float(_number(value[: -len(suffix)], where, plain=True)) * scale
    raise MpiscopeError(f"{where}: latency {text!r} has no unit (ns, us, ms, s)")


def _number(text: str, where: str, plain: bool = False) -> float:
    scale = 1.0
    if not plain and text and text[-1].lower() in _UNITS:
        scale, text = _UNITS[text[-1].lower()], text[:-1]
    try:
        return float(text) * scale
    except ValueError:
        raise MpiscopeError(f"{where}: {text!r} is not a number") from None


def cluster_spec(path: Path) -> ClusterSpec:
    """The first ``<cluster>`` of a platform file (a shipped one: platforms/)."""
    try:
        root = ET.fromstring(path.read_bytes())
    except (OSError, ET.ParseError) as exc:
        raise MpiscopeError(f"cannot read platform {path}: {exc}") from None
    cluster = next(root.iter("cluster"), None)
    if cluster is None:
        raise MpiscopeError(f"platform {path} has no <cluster> to take the network from")
    get = cluster.get
    where = f"platform {path.name}"
    return ClusterSpec(
        name=get("id", "c"),
        prefix=get("prefix", "node-"),
        suffix=get("suffix", ""),
        cores=int(get("core", "1")),
        speed=get("speed", "1Gf"),
        bw=_rate(get("bw", ""), where),
        lat=_seconds(get("lat", "0s"), where),
        bb_bw=_rate(get("bb_bw", get("bw", "")), where),
        bb_lat=_seconds(get("bb_lat", "0s"), where),
        lo_bw=_rate(get("loopback_bw", "10GBps"), where),
        lo_lat=_seconds(get("loopback_lat", "0s"), where),
    )


def _bps(value: float) -> str:
    return f"{value:.6g}Bps"


def _s(value: float) -> str:
    return f"{value:.6g}s"


def degraded_platform(
    base: ClusterSpec,
    nodes: int,
    slow_links: Sequence[tuple[int, int, float]] = (),
    slow_nodes: Sequence[tuple[int, float]] = (),
) -> str:
    """The platform XML (see the module docstring); hosts are named as the
    base cluster's (``node-<i><suffix>``) with its cores."""
    if nodes < 2:
        raise MpiscopeError(f"a degraded platform needs 2 nodes at least, not {nodes}")
    for a, b, factor in slow_links:
        if not (0 <= a < nodes and 0 <= b < nodes and a != b) or factor <= 0:
            raise MpiscopeError(f"slow link {a}-{b}/{factor:g}: needs two nodes of 0..{nodes - 1}")
    for n, factor in slow_nodes:
        if not 0 <= n < nodes or factor <= 0:
            raise MpiscopeError(f"slow node {n}/{factor:g}: needs a node of 0..{nodes - 1}")
    node_factor = dict(slow_nodes)
    link_factor = {(min(a, b), max(a, b)): f for a, b, f in slow_links}
    zone = f"{base.name}-{nodes}"
    host = [f"{base.prefix}{i}{base.suffix}" for i in range(nodes)]
    lines = [
        "<?xml version='1.0'?>",
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
        f"<!-- mpiscope health: {nodes} nodes with the network of cluster {base.name}"
        + "".join(f"; link {a}-{b} bandwidth / {f:g}" for (a, b), f in sorted(link_factor.items()))
        + "".join(
            f"; node {n} bandwidth / {f:g}, latency x {f:g}" for n, f in sorted(node_factor.items())
        )
        + " (mpiscope.health.platform) -->",
        '<platform version="4.1">',
        f'  <zone id="{zone}" routing="Full">',
    ]
    for i in range(nodes):
        lines.append(f'    <host id="{host[i]}" speed="{base.speed}" core="{base.cores}"/>')
    lines.append(
        f'    <link id="backbone" bandwidth="{_bps(base.bb_bw)}" latency="{_s(base.bb_lat)}"/>'
    )
    for i in range(nodes):
        f = node_factor.get(i, 1.0)
        lines.append(
            f'    <link id="up-{i}" bandwidth="{_bps(base.bw / f)}" latency="{_s(base.lat * f)}"/>'
        )
        lines.append(
            f'    <link id="lo-{i}" bandwidth="{_bps(base.lo_bw)}" latency="{_s(base.lo_lat)}"/>'
        )
    for (a, b), f in sorted(link_factor.items()):
        lines.append(f'    <link id="slow-{a}-{b}" bandwidth="{_bps(base.bw / f)}" latency="0s"/>')
    for i in range(nodes):
        lines.append(f'    <route src="{host[i]}" dst="{host[i]}"><link_ctn id="lo-{i}"/></route>')
        for j in range(i + 1, nodes):
            extra = f'<link_ctn id="slow-{i}-{j}"/>' if (i, j) in link_factor else ""
            lines.append(
                f'    <route src="{host[i]}" dst="{host[j]}"><link_ctn id="up-{i}"/>'
                f'<link_ctn id="backbone"/>{extra}<link_ctn id="up-{j}"/></route>'
            )
    lines += ["  </zone>", "</platform>", ""]
    return "\n".join(lines)


def write_degraded_platform(
    base: str,
    nodes: int,
    out: Path,
    slow_links: Sequence[tuple[int, int, float]] = (),
    slow_nodes: Sequence[tuple[int, float]] = (),
) -> Path:
    """Write :func:`degraded_platform` of the shipped (or given) platform
    ``base`` to ``out``."""
    from mpiscope.measure.simulation import load_platform

    spec = cluster_spec(load_platform(base).path)
    text = degraded_platform(spec, nodes, slow_links, slow_nodes)
    from mpiscope import outputs

    outputs.write_text(out, text)
    return out
