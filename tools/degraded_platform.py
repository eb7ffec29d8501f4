#!/usr/bin/env python3
"""Write a simulated cluster with known faults (mpiscope.health.platform).

    tools/degraded_platform.py BASE NODES OUT [--slow-link A-B/F]... [--slow-node N/F]...
    tools/degraded_platform.py --shipped [--check]

BASE is a shipped platform with a <cluster> (cluster-8x8, cluster-30x8,
flat-1024) or its file: its network, cores and speed for NODES hosts, every
route written out; ``--slow-link 3-9/4`` divides the bandwidth between
nodes 3 and 9 by 4, ``--slow-node 12/2`` halves node 12's link bandwidth
and doubles its latency. ``--shipped`` writes platforms/faulty-16x8.xml and
faulty-64x8.xml, the ground truth of ``mpiscope health`` (docs/health.md);
with ``--check`` it compares instead of writing (a test runs it).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from mpiscope.errors import MpiscopeError  # noqa: E402
from mpiscope.health.platform import SHIPPED, cluster_spec, degraded_platform  # noqa: E402
from mpiscope.measure.simulation import load_platform  # noqa: E402


def _link(text: str) -> tuple[int, int, float]:
    match = re.fullmatch(r"(\d+)-(\d+)/([0-9.]+)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected A-B/FACTOR, not {text!r}")
    return int(match.group(1)), int(match.group(2)), float(match.group(3))


def _node(text: str) -> tuple[int, float]:
    match = re.fullmatch(r"(\d+)/([0-9.]+)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected N/FACTOR, not {text!r}")
    return int(match.group(1)), float(match.group(2))


def _text(base: str, nodes: int, links: list[tuple[int, int, float]],
          slow: list[tuple[int, float]]) -> str:  # fmt: skip
    return degraded_platform(cluster_spec(load_platform(base).path), nodes, links, slow)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?")
    parser.add_argument("nodes", nargs="?", type=int)
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--slow-link", type=_link, action="append", default=[])
    parser.add_argument("--slow-node", type=_node, action="append", default=[])
    parser.add_argument("--shipped", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    try:
        if not args.shipped:
            if args.out is None:
                parser.error("BASE NODES OUT, or --shipped")
            args.out.write_text(_text(args.base, args.nodes, args.slow_link, args.slow_node))
            return 0
        stale = []
        for name, f in SHIPPED.items():
            path = ROOT / "platforms" / f"{name}.xml"
            text = _text(f.base, f.nodes, list(f.slow_links), list(f.slow_nodes))
            if args.check:
                if not path.is_file() or path.read_text() != text:
                    stale.append(path.name)
            else:
                path.write_text(text)
        if stale:
            print(f"stale: {', '.join(stale)}: run tools/degraded_platform.py --shipped",
                  file=sys.stderr)  # fmt: skip
            return 1
        return 0
    except (MpiscopeError, OSError) as exc:
        print(f"degraded_platform.py: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
