#!/usr/bin/env python3
"""mpiscope measuring itself: every timer's resolution and read overhead,
the ground-truth operations (WaitPatternUp/Down must read n us, Null ~0)
with each timer, and the wall time of the default suite.

    .venv/bin/python bench/bench_engine.py [--np 2] [--mpi mpich]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import DEFAULT_SUITE, human_ns, run_mpiscope

TIMERS = ["tsc", "monotonic", "gettimeofday", "wtime"]
GROUND_TRUTH = "waitpattern_up,waitpattern_down,waitpattern_null"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mpi", default="mpich")
    args = parser.parse_args()
    common = ["--np", str(args.np), "--mpi", args.mpi]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        print(f"ground truth at {args.np} ranks: up/down must read {args.np} us, null ~0")
        print(f"{'timer':13} {'resolution':>10} {'read cost':>10} {'sync resid':>10}  "
              f"{'op':17} {'median':>9} {'95% CI':>21} {'span med':>9} {'skew med':>9}")
        for timer in TIMERS:
            doc, _ = run_mpiscope([GROUND_TRUTH, "--timer", timer, *common], out)
            t = doc["environment"]["timer"]
            sync = doc["environment"]["clock_sync"]
            resid = human_ns(sync["max_abs_residual_ns"])
            head = (f"{timer:13} {human_ns(t['resolution_ns']):>10} "
                    f"{human_ns(t['read_overhead_ns']):>10} {resid:>10}")
            for p in doc["points"]:
                ci = f"[{human_ns(p['ci_low_ns'])}, {human_ns(p['ci_high_ns'])}]"
                print(f"{head}  {p['op']:17} {human_ns(p['median_ns']):>9} {ci:>21} "
                      f"{human_ns(p['global_span']['median_ns']):>9} "
                      f"{human_ns(p['start_skew']['median_ns']):>9}")
                head = " " * len(head)
        doc, wall = run_mpiscope([DEFAULT_SUITE, "--sizes", "1:1M:x4", *common], out)
        unstable = sum(p["unstable"] for p in doc["points"])
        print(f"\ndefault suite ({DEFAULT_SUITE}, 1 B..1 MiB x4, {args.np} ranks): "
              f"{len(doc['points'])} points in {wall:.1f} s wall, {unstable} flagged unstable")


if __name__ == "__main__":
    main()
