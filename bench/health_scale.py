#!/usr/bin/env python3
"""What ``mpiscope health`` costs as the simulated cluster grows, and whether
it still names exactly the faults: for 16, 32, 64 and 128 nodes of 8 ranks
(128 to 1,024 ranks) on a platform with the network of cluster-8x8, one
link at a quarter of its bandwidth and one node at half its bandwidth and
twice its latency (mpiscope.health.platform; the 16- and 64-node ones are
the shipped faulty-16x8 and faulty-64x8), one whole check each:

  wall        the check's wall time, and each phase's (collectives on every
              rank, the latency and bandwidth matrices on one rank a node)
  peak RSS    the largest resident memory of any of its processes (wait4:
              SMPI runs every simulated rank in one process)
  document    the health document's size, and its launches' (the raw dir)
  named       the suspects, against the faults put in ("exact" when they
              are the two faults and nothing else)

    .venv/bin/python bench/health_scale.py [--nodes 16,32,64,128] [--samples 10]

Needs the SMPI build (make smpi). Wall times are this machine's, under
whatever else runs on it (the load is printed before and after each run);
the simulated times, and so the verdicts, are exact.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from _common import cpu_name, load_text  # noqa: E402

from mpiscope.health.platform import SHIPPED, Faults, write_degraded_platform  # noqa: E402


def faults_for(nodes: int) -> Faults:
    """The shipped faults at 16 and 64 nodes; elsewhere the same kind at
    the same relative places (a link a fifth and four fifths in, a node
    three fifths in)."""
    for faults in SHIPPED.values():
        if faults.nodes == nodes:
            return faults
    a, b, n = nodes // 5, 4 * nodes // 5, 3 * nodes // 5
    return Faults("cluster-8x8", nodes, ((a, b, 4.0),), ((n, 2.0),))


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_health(platform: Path, ranks: int, samples: int, where: Path) -> dict[str, Any]:
    out = where / f"h{ranks}.json"
    command = [sys.executable, "-m", "mpiscope", "health", "--launcher", "smpi", "--platform",
               str(platform), "--np", str(ranks), "--samples", str(samples), "--out", str(out),
               "--force", "--quiet"]  # fmt: skip
    before = load_text()
    start = time.monotonic()
    with (where / f"h{ranks}.log").open("w") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1) or not out.exists():
        sys.exit(f"mpiscope health failed (exit {code}):\n"
                 f"{(where / f'h{ranks}.log').read_text()[-2000:]}")  # fmt: skip
    doc = json.loads(out.read_text())
    return {
        "doc": doc,
        "code": code,
        "wall_s": wall,
        "peak_rss": usage.ru_maxrss * 1024,
        "doc_bytes": out.stat().st_size,
        "raw_bytes": tree_bytes(Path(doc["raw_dir"])),
        "load": f"{before} -> {load_text()}",
    }


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def expected(faults: Faults) -> list[tuple[str, str]]:
    (a, b, _), = faults.slow_links
    (n, _), = faults.slow_nodes
    return sorted([("link", f"node-{a}.c8x8 - node-{b}.c8x8"), ("node", f"node-{n}.c8x8")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="16,32,64,128", help="node counts (8 ranks each)")
    parser.add_argument("--samples", type=int, default=10, help="health --samples")
    args = parser.parse_args()
    print(f"processor: {cpu_name()}; {os.cpu_count()} CPUs; load {load_text()}")
    header = (f"{'nodes':>5} {'ranks':>5}  {'wall':>7}  {'collect':>7} {'latency':>7} "
              f"{'bandw':>7}  {'peak RSS':>9}  {'document':>9}  {'raw dir':>9}  "
              f"{'exit':>4}  named")  # fmt: skip
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        for nodes in (int(n) for n in args.nodes.split(",")):
            faults = faults_for(nodes)
            platform = write_degraded_platform(faults.base, nodes, where / f"p{nodes}.xml",
                                               faults.slow_links, faults.slow_nodes)  # fmt: skip
            r = run_health(platform, 8 * nodes, args.samples, where)
            doc = r["doc"]
            phases = {p["name"]: p.get("seconds") for p in doc["phases"]}
            named = sorted((s["kind"], s["name"]) for s in doc["suspects"])
            verdict = "exact" if named == expected(faults) else f"WRONG: {named}"
            print(f"{nodes:>5} {8 * nodes:>5}  {r['wall_s']:>6.1f}s  "
                  f"{phases['collectives'] or 0:>6.1f}s {phases['links-latency'] or 0:>6.1f}s "
                  f"{phases['links-bandwidth'] or 0:>6.1f}s  {mib(r['peak_rss']):>9}  "
                  f"{mib(r['doc_bytes']):>9}  {mib(r['raw_bytes']):>9}  {r['code']:>4}  "
                  f"{verdict}   (load {r['load']})", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
