#!/usr/bin/env python3
"""Do results reproduce from one launch to the next? Runs the default suite
R times (separate launches) and prints, per point, the between-launch
relative spread of the medians and in how many launches the 95% interval
contains the median of all R medians. Honest intervals contain it in most
launches; the seed's tool reported +-1% intervals on launches that
differed 3-4x.

    .venv/bin/python bench/reproducibility.py [--launches 10] [--np 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from _common import DEFAULT_SUITE, human_bytes, human_ns, point_key, run_mpiscope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mpi", default="mpich")
    parser.add_argument("--sizes", default="1:1M:x4")
    parser.add_argument("--ops", default=DEFAULT_SUITE)
    args = parser.parse_args()
    runs: list[dict[tuple[str, int | None, int], dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.launches):
            doc, wall = run_mpiscope(
                [args.ops, "--np", str(args.np), "--mpi", args.mpi, "--sizes", args.sizes],
                Path(tmp) / f"run{i}.json")
            runs.append({point_key(p): p for p in doc["points"]})
            print(f"launch {i + 1}/{args.launches}: {wall:.1f} s", flush=True)
    print(f"\n{'op':17} {'size':>8} {'median of medians':>18} {'min..max of medians':>24} "
          f"{'spread':>8} {'CI holds it':>11} {'mean CI':>8}")
    total_hits = total = 0
    for key in runs[0]:
        points = [r[key] for r in runs if key in r and r[key]["median_ns"] is not None]
        medians = [p["median_ns"] for p in points]
        center = statistics.median(medians)
        spread = (max(medians) - min(medians)) / center
        hits = sum(p["ci_low_ns"] is not None and p["ci_low_ns"] <= center <= p["ci_high_ns"]
                   for p in points)
        half = statistics.mean((p["ci_high_ns"] - p["ci_low_ns"]) / 2 / p["mean_ns"]
                               for p in points if p["ci_low_ns"] is not None)
        total_hits += hits
        total += len(points)
        rng = f"{human_ns(min(medians))}..{human_ns(max(medians))}"
        print(f"{key[0]:17} {human_bytes(key[1]):>8} {human_ns(center):>18} {rng:>24} "
              f"{spread:>7.0%} {hits:>6}/{len(points):<4} {half:>7.1%}")
    print(f"\nintervals containing the median of the {args.launches} launches: "
          f"{total_hits}/{total} ({total_hits / total:.0%})")


if __name__ == "__main__":
    main()
