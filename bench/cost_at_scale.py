#!/usr/bin/env python3
"""What a simulated run costs as the simulated machine grows, part by part:
for each rank count p, one `mpiscope run` of a sweep on a simulated
cluster (SimGrid SMPI), with the wall time of each part as rank 0 of the
bench logged it (MPISCOPE_WALL_LOG, docs/simulation.md):

  simulator  the simulator's start-up: from its process start to the bench's
             plan on rank 0 (loading a copy of the program per rank, MPI_Init)
  sync       the measurement context: timer, clock sync, t_bcast
  open       the result file created (the environment gathered)
  floor      the measurement floor (waitpattern_null), before every point
  launches   the points measured (sum over points; then per point)
  ledger     each point's bias-ledger companions (run --ledger on)
  writing    the result written after each point, and at the end (close:
             the end-of-run clock check and the final write)
  other      the rest: the CLI, smpirun, MPI_Finalize and the simulator's exit

with the peak memory of the simulator process (all simulated ranks live
in one): its proportional set size (PSS, sampled every half second from
/proc/PID/smaps_rollup four times a second: the memory it really holds) and its peak resident
set (ru_maxrss, which counts a page once per mapping: SMPI's shared
buffers map one page at every rank's address, so it reads gigabytes that
are a few MiB), the result file's size, the clock sync's simulated duration and
exchanges, and the points' stop reasons. With --firstcall, also the peak
memory and wall time of `mpiscope firstcall` of the same ops at each p
(its default size, 8 KiB).

    .venv/bin/python bench/cost_at_scale.py [--nps 64,256,1024] [--platform flat-1024]
        [--ops bcast] [--sizes 1:4M:x4] [--sync linear] [--firstcall] [-- RUN ARGS...]

Arguments after `--` go to every `mpiscope run` (e.g. `-- --stop error` for
statistics on every point). Needs the SMPI build (make smpi). Wall times are
this machine's, under whatever else runs on it (the load average is printed
before and after); the simulated times are exact.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import cpu_name, human_ns, load_text, parse_nps

#: The columns of the parts table: the wall log's parts each one sums.
PARTS = {
    "simulator": ("startup",),
    "sync": ("sync",),
    "open": ("open",),
    "floor": ("floor",),
    "launches": ("launches", "resync"),
    "ledger": ("ledger",),
    "writing": ("write", "close"),
}


@dataclass(frozen=True)
class Run:
    doc: dict[str, Any]
    wall_s: float
    peak_rss_bytes: int
    peak_pss_bytes: int
    file_bytes: int
    parts: dict[str, float]  # the wall log's parts, summed
    counts: Counter[str]  # how many times each was logged


def read_wall_log(path: Path) -> tuple[dict[str, float], Counter[str]]:
    """The wall log's seconds per part, summed, and the count of each."""
    parts: dict[str, float] = {}
    counts: Counter[str] = Counter()
    if path.exists():
        for line in path.read_text().splitlines():
            name, seconds = line.split()
            parts[name] = parts.get(name, 0.0) + float(seconds)
            counts[name] += 1
    return parts, counts


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (from /proc/*/stat's parent ids)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def pss_bytes(pid: int) -> int:
    """The proportional set size of ``pid`` (0 once it has gone)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


class PeakPss(threading.Thread):
    """The largest PSS of any process below ``pid``, four times a second."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.25):
            for child in descendants(self.pid):
                self.peak = max(self.peak, pss_bytes(child))


def run_measured(command: str, args: list[str], where: Path) -> Run:
    """`mpiscope COMMAND ARGS`; its wall time, the peak resident memory of
    its largest process (wait4: the child and the descendants it waited
    for) and its wall log."""
    out, log, wall_log = where / f"{command}.json", where / "log", where / "wall.log"
    wall_log.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "mpiscope", command, *args, "--out", str(out), "--force",
            "--quiet"]  # fmt: skip
    env = {**os.environ, "MPISCOPE_WALL_LOG": str(wall_log)}
    start = time.monotonic()
    with log.open("w") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, env=env)
        sampler = PeakPss(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        sampler.done.set()
        sampler.join()
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"mpiscope {command} failed ({' '.join(args)}):\n{log.read_text()[-2000:]}")
    parts, counts = read_wall_log(wall_log)
    return Run(json.loads(out.read_text()), wall, usage.ru_maxrss * 1024, sampler.peak,
               out.stat().st_size, parts, counts)  # fmt: skip


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def seconds(x: float) -> str:
    return f"{x:.1f} s" if x >= 0.95 else f"{x:.2f} s"


def parts_row(p: int, run: Run) -> list[str]:
    """One row of the parts table."""
    cells = [str(p), seconds(run.wall_s)]
    summed = {col: sum(run.parts.get(name, 0.0) for name in names)
              for col, names in PARTS.items()}  # fmt: skip
    cells += [seconds(summed[col]) for col in PARTS]
    cells.append(seconds(run.wall_s - sum(summed.values())))
    points = max(1, len(run.doc["points"]))
    per_point = (summed["launches"] + summed["ledger"] + run.parts.get("write", 0.0)) / points
    cells += [str(len(run.doc["points"])), seconds(per_point), mib(run.peak_pss_bytes),
              mib(run.peak_rss_bytes)]  # fmt: skip
    return cells


def detail_row(p: int, run: Run, firstcall: Run | None) -> list[str]:
    """One row of the details table: the sync, the points, the file."""
    clock = run.doc["environment"]["clock_sync"]
    points = run.doc["points"]
    launches = sum(pt.get("launches_total") or 0 for pt in points)
    reasons = Counter(pt.get("stop_reason") or "-" for pt in points)
    up = next((pt for pt in points if pt["op"] == "waitpattern_up"), None)
    up_ns = up["median_ns"] if up else None
    return [
        str(p), human_ns(clock["duration_ns"]), str(clock.get("exchanges", "-")),
        str(clock.get("resyncs", 0)), str(launches), mib(run.file_bytes),
        ", ".join(f"{name} {n}" for name, n in sorted(reasons.items())),
        "-" if up_ns is None else f"{up_ns / (p * 1e3) - 1:+.3%}",
        "-" if firstcall is None or not firstcall.peak_pss_bytes else mib(firstcall.peak_pss_bytes),
        "-" if firstcall is None else seconds(firstcall.wall_s),
    ]  # fmt: skip


def table(titles: tuple[str, ...], rows: list[list[str]]) -> None:
    widths = [max(len(t), *(len(r[i]) for r in rows)) for i, t in enumerate(titles)]
    print("  ".join(f"{t:>{w}}" for t, w in zip(titles, widths, strict=True)))
    for row in rows:
        print("  ".join(f"{c:>{w}}" for c, w in zip(row, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nps", default="64,256,1024", help="LOW:HIGH (doubling) or a list")
    parser.add_argument("--platform", default="flat-1024")
    parser.add_argument("--sync", default="linear", help="clock sync algorithm (run --sync)")
    parser.add_argument("--ops", default="bcast")
    parser.add_argument("--sizes", default="1:4M:x4")
    parser.add_argument("--firstcall", action="store_true",
                        help="also measure `mpiscope firstcall` of the ops at each p")  # fmt: skip
    parser.add_argument("extra", nargs="*", help="after --: more arguments of every run")
    args = parser.parse_args()
    common = ["--launcher", "smpi", "--platform", args.platform, "--sync", args.sync]
    rows, details = [], []
    load_before = load_text()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for p in parse_nps(args.nps):
            sweep = run_measured("run", [args.ops, "--np", str(p), "--sizes", args.sizes,
                                         *common, *args.extra], Path(tmp))  # fmt: skip
            first = None
            if args.firstcall:
                first = run_measured("firstcall", [args.ops, "--np", str(p), *common],
                                     Path(tmp))  # fmt: skip
            rows.append(parts_row(p, sweep))
            details.append(detail_row(p, sweep, first))
            print(f"p={p}: {sweep.wall_s:.1f} s (load {load_text()}): "
                  f"{' '.join(rows[-1])} | {' '.join(details[-1])}", flush=True)  # fmt: skip
    print(f"\n{args.platform} (SimGrid SMPI), {args.ops} at {args.sizes}, sync {args.sync}"
          f"{' ' + ' '.join(args.extra) if args.extra else ''}; {cpu_name()}; "
          f"{time.monotonic() - started:.0f} s wall in all; load before {load_before}, "
          f"after {load_text()}\n")  # fmt: skip
    table(("p", "wall", *PARTS, "other", "points", "per point", "peak PSS", "peak RSS"), rows)
    print()
    table(("p", "sync (sim)", "exchanges", "resyncs", "launches", "result file", "stop reasons",
           "waitpattern_up vs p us", "firstcall PSS", "firstcall wall"), details)  # fmt: skip


if __name__ == "__main__":
    main()
