#!/usr/bin/env python3
"""What varies from one launch to the next: the point, or the machine?

Runs `mpiscope run OP --np 2 --sizes SIZES` N times (separate launches of
the bench). Each launch measures every point four ways within a few
milliseconds of each other: the point itself (window method, cold
buffers) and the bias ledger's companions (docs/method.md section 12):
the warm window, barrier-each (OSU's collective loop) and back to back
(IMB's loop). Per size the script prints, for each of the four, the
median over launches and the spread (max/min of the launches' medians),
then how the point's and the warm companion's launch medians move
together (the correlation of their logs over launches):

* a spread that the warm companion shares, with a high correlation, is
  the machine's (its state in that launch); one the point has alone
  would be the cold-buffer protocol's, the tool's own;
* the suites' loops measured in the same launches show how steady their
  methods are on the same machine states, without the between-tool
  interleaving that bench/peers.py needs.

Each launch's clock-sync round trip (taken before any point) is printed
too: it moves with the machine's state (docs/method.md section 11).

    .venv/bin/python bench/launch_spread.py [--launches 16] [--op bcast]
        [--sizes 1,1K,64K,1M] [--np 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import bytecode_note, cpu_name, human_bytes, human_ns, load_text, run_mpiscope

from mpiscope.measure.runs import sync_rtt_min

MEASUREMENTS = ("point", "warm", "barrier_each", "loop")
TITLES = {"point": "point (cold)", "warm": "warm", "barrier_each": "barrier-each (OSU)",
          "loop": "back to back (IMB)"}  # fmt: skip


def launch_medians(doc: dict[str, Any]) -> dict[int, dict[str, float]]:
    """Per size: each measurement's median in this launch."""
    out: dict[int, dict[str, float]] = {}
    for p in doc["points"]:
        ledger = p.get("ledger") or {}
        row = {"point": p.get("median_ns")}
        row.update({k: (ledger.get(k) or {}).get("median_ns") for k in MEASUREMENTS[1:]})
        out[int(p["size_bytes"])] = {k: float(v) for k, v in row.items() if v}
    return out


def log_correlation(a: list[float], b: list[float]) -> float | None:
    """Pearson's r of the logs (None: too few launches, or one series constant)."""
    try:
        return statistics.correlation([math.log(x) for x in a], [math.log(y) for y in b])
    except statistics.StatisticsError:
        return None


def table(per_size: dict[int, dict[str, list[float]]]) -> list[str]:
    head = "| size | " + " | ".join(f"{TITLES[k]}: median, spread" for k in MEASUREMENTS)
    lines = [head + " | corr(point, warm) |", "| --- " * (len(MEASUREMENTS) + 2) + "|"]
    for size, series in sorted(per_size.items()):
        cells = []
        for k in MEASUREMENTS:
            v = series.get(k) or []
            cells.append(f"{human_ns(statistics.median(v))}, {max(v) / min(v):.2f}" if v else "-")
        point, warm = series.get("point", []), series.get("warm", [])
        corr = log_correlation(point, warm) if len(point) == len(warm) else None
        corr_text = "-" if corr is None else f"{corr:.2f}"
        lines.append(f"| {human_bytes(size)} | " + " | ".join(cells) + f" | {corr_text} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=16)
    ap.add_argument("--op", default="bcast")
    ap.add_argument("--sizes", default="1,1K,64K,1M")
    ap.add_argument("--np", type=int, default=2)
    args = ap.parse_args()
    if args.launches < 2:
        sys.exit("launch_spread.py: error: --launches must be at least 2 (a spread needs two)")
    note = bytecode_note()
    if note:
        print(note)
    print(f"{cpu_name()}; load before: {load_text()}")
    per_size: dict[int, dict[str, list[float]]] = {}
    trips: list[float | None] = []
    with tempfile.TemporaryDirectory(prefix="launch-spread-") as tmp:
        for i in range(args.launches):
            doc, _ = run_mpiscope([args.op, "--np", str(args.np), "--sizes", args.sizes],
                                  Path(tmp) / f"launch-{i}.json")  # fmt: skip
            trips.append(sync_rtt_min(doc["environment"].get("clock_sync") or {}))
            for size, row in launch_medians(doc).items():
                for k, v in row.items():
                    per_size.setdefault(size, {}).setdefault(k, []).append(v)
    print(f"load after: {load_text()}")
    print(f"\n{args.op} at {args.np} ranks, {args.launches} launches; spread = max/min of the "
          "launches' medians\n")  # fmt: skip
    print("\n".join(table(per_size)))
    shown = ", ".join(human_ns(t) if t else "-" for t in trips)
    print(f"\nclock-sync round trip of each launch: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
