#!/usr/bin/env python3
"""What a run costs as the simulated machine grows: for p = 2, 4, ...,
1,024 ranks on a simulated cluster (SimGrid SMPI), the clock sync and a
small default sweep, each as a whole `mpiscope run`:

  sync run   waitpattern_null, one launch: start-up + clock sync (its
             simulated duration and exchanges from the result)
  sweep run  waitpattern_up, barrier, bcast and allreduce at 1 B..64 KiB
             (x16): the wall time, the part beyond the sync run, the
             result file's size, and WaitPatternUp's median against its
             true p us

with the peak memory of each (all simulated ranks live in one process:
per rank it shows whether a rank's memory grows with p).

    .venv/bin/python bench/cost_at_scale.py [--nps 2:1024] [--platform flat-1024]
        [--sync linear] [--ops ...] [--sizes 1:64K:x16]

Needs the SMPI build (make smpi). Wall times are this machine's, under
whatever else runs on it; the simulated times are exact.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import human_ns, parse_nps


@dataclass(frozen=True)
class Run:
    doc: dict[str, Any]
    wall_s: float
    peak_rss_bytes: int
    file_bytes: int


def run_measured(args: list[str], out: Path, log: Path) -> Run:
    """`mpiscope run ARGS`; its wall time and the peak resident memory of
    its largest process (wait4: the child and the descendants it waited for)."""
    command = [sys.executable, "-m", "mpiscope", "run", *args, "--out", str(out), "--force",
               "--quiet"]  # fmt: skip
    start = time.monotonic()
    with log.open("w") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"mpiscope run failed ({' '.join(args)}):\n{log.read_text()[-2000:]}")
    return Run(json.loads(out.read_text()), wall, usage.ru_maxrss * 1024, out.stat().st_size)


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nps", default="2:1024", help="LOW:HIGH (doubling) or a list")
    parser.add_argument("--platform", default="flat-1024")
    parser.add_argument("--sync", default="linear", help="clock sync algorithm (run --sync)")
    parser.add_argument("--ops", default="waitpattern_up,barrier,bcast,allreduce")
    parser.add_argument("--sizes", default="1:64K:x16")
    args = parser.parse_args()
    common = ["--launcher", "smpi", "--platform", args.platform, "--sync", args.sync]
    rows = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for p in parse_nps(args.nps):
            where = Path(tmp)
            sync = run_measured(
                ["waitpattern_null", "--np", str(p), "--max-launches", "1", "--k-init", "1",
                 "--k", "1", *common], where / f"sync-{p}.json", where / "log")  # fmt: skip
            sweep = run_measured(
                [args.ops, "--np", str(p), "--sizes", args.sizes, *common],
                where / f"sweep-{p}.json", where / "log")  # fmt: skip
            rows.append((p, sync, sweep))
            print(f"p={p}: sync run {sync.wall_s:.1f} s, sweep run {sweep.wall_s:.1f} s",
                  flush=True)  # fmt: skip
    print(f"\n{args.platform} (SimGrid SMPI), sync {args.sync}, sweep {args.ops} at {args.sizes}; "
          f"{time.monotonic() - started:.0f} s wall in all\n")  # fmt: skip
    titles = ("p", "sync (sim)", "exchanges", "sync run", "sweep run", "sweep - sync", "points",
              "result file", "per point", "peak memory", "per rank", "waitpattern_up",
              "vs p us")  # fmt: skip
    print("  ".join(f"{t:>12}" for t in titles))
    for p, sync, sweep in rows:
        clock = sync.doc["environment"]["clock_sync"]
        points = sweep.doc["points"]
        up = next((pt for pt in points if pt["op"] == "waitpattern_up"), None)
        up_ns = up["median_ns"] if up else None
        peak = max(sync.peak_rss_bytes, sweep.peak_rss_bytes)
        cells = (
            str(p), human_ns(clock["duration_ns"]), str(clock.get("exchanges", "-")),
            f"{sync.wall_s:.1f} s", f"{sweep.wall_s:.1f} s", f"{sweep.wall_s - sync.wall_s:.1f} s",
            str(len(points)), mib(sweep.file_bytes), mib(sweep.file_bytes / max(1, len(points))),
            mib(peak), mib(peak / p), human_ns(up_ns),
            "-" if up_ns is None else f"{up_ns / (p * 1e3) - 1:+.3%}",
        )  # fmt: skip
        print("  ".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    main()
