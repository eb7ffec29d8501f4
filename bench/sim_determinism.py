#!/usr/bin/env python3
"""Are a simulated point's launches identical? For each operation and size
on a simulated cluster (SimGrid SMPI), 24 valid launches by the count rule
with every launch kept (--raw), and how far their times spread: the
evidence behind the deterministic stopping rule (docs/simulation.md,
"Deterministic points"). Then the same points under the default rule
(deterministic): its value next to the 24 launches' median.

    .venv/bin/python bench/sim_determinism.py [--platform cluster-8x8] [--np 16]
        [--ops bcast,allreduce,alltoall,barrier,waitpattern_up] [--sizes 1,1K,64K,1M]
        [-- RUN ARGS...]

Arguments after `--` go to both runs (e.g. `-- --arrival random:20`, where
launches differ by the simulated clock's read steps). Needs the SMPI build
(make smpi). The times are simulated: exact, whatever the machine's load.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from _common import human_bytes, human_ns, run_mpiscope

from mpiscope.result.document import kept_times


def key(point: dict[str, Any]) -> tuple[str, int | None]:
    return point["op"], point.get("size_bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="cluster-8x8")
    parser.add_argument("--np", default="16")
    parser.add_argument("--ops", default="bcast,allreduce,alltoall,barrier,waitpattern_up")
    parser.add_argument("--sizes", default="1,1K,64K,1M")
    parser.add_argument("extra", nargs="*", help="after --: more arguments of both runs")
    args = parser.parse_args()
    common = [args.ops, "--launcher", "smpi", "--platform", args.platform, "--np", args.np,
              "--sizes", args.sizes, "--ledger", "off", *args.extra]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        counted, _ = run_mpiscope([*common, "--stop", "count", "--max-valid", "24", "--raw"],
                                  Path(tmp) / "count.json")  # fmt: skip
        exact, _ = run_mpiscope(common, Path(tmp) / "exact.json")
    by_key = {key(p): p for p in exact["points"]}
    extra = f" {' '.join(args.extra)}" if args.extra else ""
    print(f"{args.platform}, {args.np} ranks (SimGrid SMPI){extra}: 24 valid launches by the "
          "count rule, then the deterministic rule\n")  # fmt: skip
    titles = ("op", "size", "valid", "median", "max - min", "of median", "deterministic rule",
              "its launches", "vs median")  # fmt: skip
    rows = []
    for point in counted["points"]:
        times = kept_times(point) or []
        spread = max(times) - min(times) if times else float("nan")
        median = point["median_ns"]
        other = by_key.get(key(point), {})
        value = other.get("median_ns")
        rule = other.get("stop_reason", "-")
        rows.append([
            point["op"], human_bytes(point.get("size_bytes")), str(len(times)), human_ns(median),
            f"{spread:.2g} ns", f"{spread / median:.1e}" if median else "-",
            f"{human_ns(value)} ({rule})", str(other.get("launches_total", "-")),
            "-" if value is None or not median else f"{value / median - 1:+.1e}",
        ])  # fmt: skip
    widths = [max(len(t), *(len(r[i]) for r in rows)) for i, t in enumerate(titles)]
    print("  ".join(f"{t:>{w}}" for t, w in zip(titles, widths, strict=True)))
    for row in rows:
        print("  ".join(f"{c:>{w}}" for c, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
