#!/usr/bin/env python3
"""Clock sync at scale: linear, ring and tree on p = 2, 4, ..., 1,024
simulated ranks (SimGrid SMPI), each against an injected clock transform
(known per-rank offsets, drift and jitter), one small `mpiscope run` each:

  sync time   the simulated duration of the synchronization (fit gaps included)
  exchanges   ping-pongs of all pairs together
  hops        most pairwise steps from a rank to rank 0 (tree: log2 p)
  bound       the worst per-rank error bound the algorithm reports
  miss        the worst |estimated - injected| offset
  residual    the worst offset left, measured again after the sync
  recovered   every rank's offset and drift within its reported bound

then how the tree's error grows: bound and miss over log2 p (flat if it
grows like log p), and a PNG of sync time and error against p.

    .venv/bin/python bench/sync_scale.py [--nps 2:1024] [--platform flat-1024]
        [--algorithms linear,ring,tree] [--transform SPEC] [--plot sync_scale.png]

Needs the SMPI build (make smpi). Simulated times are exact; the wall
time is this machine's.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import human_ns, parse_nps, run_mpiscope

DEFAULT_TRANSFORM = "random:seed=1,offset=1e6,drift=50;all:jitter=5"


@dataclass(frozen=True)
class Row:
    p: int
    algorithm: str
    sync_ns: float
    exchanges: int
    hops: int
    bound_ns: float
    miss_ns: float
    drift_miss_ppm: float | None
    residual_ns: float
    recovered: bool
    wall_s: float


def measure(p: int, algorithm: str, args: argparse.Namespace, tmp: Path) -> Row:
    """One run: start-up, the sync under the transform, 4 barriers."""
    flags = [
        "barrier", "--launcher", "smpi", "--platform", args.platform, "--np", str(p),
        "--sizes", "0", "--stop", "count", "--max-valid", "4", "--max-launches", "8",
        "--sync", algorithm, "--sync-fitpoints", str(args.fitpoints),
        "--sync-fit-gap-ns", str(args.fit_gap_ns), "--clock-transform", args.transform,
    ]  # fmt: skip
    doc, wall = run_mpiscope(flags, tmp / f"sync-{algorithm}-{p}.json")
    s: dict[str, Any] = doc["environment"]["clock_sync"]
    truth = s.get("clock_transform") or {}
    return Row(
        p, algorithm, s["duration_ns"], s["exchanges"], s["max_hops"], s["max_error_ns"],
        truth.get("max_offset_miss_ns", math.nan), truth.get("max_drift_miss_ppm"),
        s["max_abs_residual_ns"], bool(truth.get("recovered")), wall,
    )  # fmt: skip


def print_head() -> None:
    head = (f"{'p':>5}  {'algorithm':<7} {'sync time':>10} {'exchanges':>10} {'hops':>5} "
            f"{'bound':>9} {'miss':>9} {'drift miss':>11} {'residual':>9} {'recovered':>9} "
            f"{'wall':>7}")  # fmt: skip
    print(head)
    print("-" * len(head), flush=True)


def print_row(r: Row) -> None:
    """One row, as soon as it is measured (a 1,024-rank run takes minutes)."""
    drift = "-" if r.drift_miss_ppm is None else f"{r.drift_miss_ppm:.3g} ppm"
    print(f"{r.p:>5}  {r.algorithm:<7} {human_ns(r.sync_ns):>10} {r.exchanges:>10} {r.hops:>5} "
          f"{human_ns(r.bound_ns):>9} {human_ns(r.miss_ns):>9} {drift:>11} "
          f"{human_ns(r.residual_ns):>9} {'yes' if r.recovered else 'NO':>9} "
          f"{r.wall_s:>6.1f}s", flush=True)  # fmt: skip


def print_growth(rows: list[Row]) -> None:
    """The tree's error over log2 p: constant when it grows like log p."""
    tree = [r for r in rows if r.algorithm == "tree" and r.p > 1]
    if len(tree) < 2:
        return
    print("\ntree: error against log2 p (flat ratios: the error grows like log p)")
    print(f"{'p':>5} {'log2 p':>7} {'hops':>5} {'bound/log2 p':>13} {'miss/log2 p':>12}")
    for r in tree:
        lg = math.log2(r.p)
        print(f"{r.p:>5} {lg:>7.0f} {r.hops:>5} {human_ns(r.bound_ns / lg):>13} "
              f"{human_ns(r.miss_ns / lg):>12}")  # fmt: skip
    ratios = [r.bound_ns / math.log2(r.p) for r in tree]
    print(f"bound/log2 p spans {min(ratios) / 1e3:.3g}..{max(ratios) / 1e3:.3g} us over "
          f"p = {tree[0].p}..{tree[-1].p} (bound grows {tree[-1].bound_ns / tree[0].bound_ns:.3g}x "
          f"while p grows {tree[-1].p // tree[0].p}x)")  # fmt: skip


def plot(rows: list[Row], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for algorithm in dict.fromkeys(r.algorithm for r in rows):
        mine = [r for r in rows if r.algorithm == algorithm]
        ps = [r.p for r in mine]
        left.plot(ps, [r.sync_ns / 1e6 for r in mine], marker="o", label=algorithm)
        (line,) = right.plot(ps, [r.bound_ns / 1e3 for r in mine], marker="o",
                             label=f"{algorithm}: reported bound")  # fmt: skip
        right.plot(ps, [max(r.miss_ns, 1e-3) / 1e3 for r in mine], marker="x", linestyle="--",
                   color=line.get_color(), label=f"{algorithm}: |estimate - truth|")  # fmt: skip
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("simulated ranks p")
        ax.grid(True, which="both", alpha=0.3)
    left.set_ylabel("sync time (simulated, ms)")
    left.set_title("clock sync time")
    right.set_ylabel("worst offset error (us)")
    right.set_title("error bound and true error")
    left.legend()
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nps", default="2:1024", help="LOW:HIGH (doubling) or a list")
    parser.add_argument("--platform", default="flat-1024")
    parser.add_argument("--algorithms", default="linear,ring,tree")
    parser.add_argument("--transform", default=DEFAULT_TRANSFORM, help="--clock-transform SPEC")
    parser.add_argument("--fitpoints", type=int, default=2, help="fit points per pair (drift)")
    parser.add_argument("--fit-gap-ns", type=float, default=1e8, help="wait between fit points")
    parser.add_argument("--plot", type=Path, default=Path("sync_scale.png"), help="PNG to write")
    args = parser.parse_args()
    rows: list[Row] = []
    start = time.monotonic()
    print(f"clock sync on {args.platform} (SMPI), transform '{args.transform}', "
          f"{args.fitpoints} fit points {human_ns(args.fit_gap_ns)} apart\n")  # fmt: skip
    print_head()
    with tempfile.TemporaryDirectory(prefix="sync-scale-") as tmp:
        for p in parse_nps(args.nps):
            for algorithm in args.algorithms.split(","):
                rows.append(measure(p, algorithm, args, Path(tmp)))
                print_row(rows[-1])
    print(f"\n{time.monotonic() - start:.0f} s wall")
    print_growth(rows)
    plot(rows, args.plot)
    print(f"\nplot: {args.plot}")
    if not all(r.recovered for r in rows):
        sys.exit("some estimate missed the injected truth by more than its bound")


if __name__ == "__main__":
    main()
