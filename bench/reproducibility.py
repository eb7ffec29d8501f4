#!/usr/bin/env python3
"""Do results reproduce from one launch to the next? Runs the default suite
R times (separate launches) and prints, per point, the between-launch
relative spread of the medians and in how many launches the 95% interval
contains the center of all R launches. Honest intervals contain it in most
launches; the seed's tool reported +-1% intervals on launches that
differed 3-4x.

A point's interval is the interval of its trimmed mean, so the center it
is held against is the median of the R trimmed means ("CI holds it"); the
older figure held it against the median of the R medians ("holds median"),
another statistic, which a skewed point's interval misses however many
samples it has. Points whose launches fall into separate modes (the
machine changed state between launches: mpiscope.result.modes, the same
rule as `run --launches`) are marked MODES with the modes' values: no
single launch's interval can hold their center, and the figure is also
given without them.

    .venv/bin/python bench/reproducibility.py [--launches 10] [--np 2] [--keep DIR]
    .venv/bin/python bench/reproducibility.py --from DIR   # the documents --keep kept
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import DEFAULT_SUITE, human_bytes, human_ns, point_key, run_mpiscope

from mpiscope.result.modes import launch_modes
from mpiscope.result.stats import LaunchStats, summarize_launches


def _holds(p: dict[str, Any], center: float) -> bool:
    return p["ci_low_ns"] is not None and p["ci_low_ns"] <= center <= p["ci_high_ns"]


def _modes(points: list[dict[str, Any]]) -> tuple[str, bool]:
    """MODES a (n launches) / b (m) when the launches fall into separate groups,
    and whether they disagree (`run --launches`' DISAGREE)."""
    launches = [LaunchStats(p["median_ns"], p.get("q25_ns"), p.get("q75_ns")) for p in points]
    summary = summarize_launches(launches, 0.95, resamples=100)
    modes = launch_modes([x.median_ns for x in launches], summary.group_members,
                         summary.disagree_reasons)
    return " / ".join(f"{human_ns(m.value_ns)} ({m.count})" for m in modes), summary.disagree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mpi", default="mpich")
    parser.add_argument("--sizes", default="1:1M:x4")
    parser.add_argument("--ops", default=DEFAULT_SUITE)
    parser.add_argument("--keep", type=Path, help="keep the launches' documents in this directory")
    parser.add_argument("--from", dest="source", type=Path,
                        help="measure nothing: read the run*.json a --keep DIR holds")
    args = parser.parse_args()
    runs: list[dict[tuple[str, int | None, int], dict[str, Any]]] = []
    if args.source is not None:
        for path in sorted(args.source.glob("run*.json")):
            doc = json.loads(path.read_text())
            if doc.get("status") == "complete":  # not a launch still running
                runs.append({point_key(p): p for p in doc["points"]})
        if len(runs) < 2:
            sys.exit(f"reproducibility: error: {args.source} holds {len(runs)} run*.json, not 2+")
        args.launches = len(runs)
        report(runs, args.launches)
        return
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        for i in range(args.launches):
            doc, wall = run_mpiscope(
                [args.ops, "--np", str(args.np), "--mpi", args.mpi, "--sizes", args.sizes],
                where / f"run{i}.json")
            runs.append({point_key(p): p for p in doc["points"]})
            print(f"launch {i + 1}/{args.launches}: {wall:.1f} s", flush=True)
    report(runs, args.launches)


def report(runs: list[dict[tuple[str, int | None, int], dict[str, Any]]], launches: int) -> None:
    """Per point and in all: how often one launch's interval holds the center."""
    print(f"\n{'op':17} {'size':>8} {'median of means':>16} {'min..max of medians':>24} "
          f"{'spread':>8} {'CI holds it':>11} {'holds median':>12} {'mean CI':>8}  modes")
    hits = {"mean": 0, "median": 0, "one state": 0, "agree": 0}
    total = one_state = agree = 0
    for key in runs[0]:
        points = [r[key] for r in runs if key in r and r[key]["median_ns"] is not None]
        medians = [p["median_ns"] for p in points]
        center = statistics.median(p["mean_ns"] for p in points)
        spread = (max(medians) - min(medians)) / statistics.median(medians)
        held = sum(_holds(p, center) for p in points)
        held_median = sum(_holds(p, statistics.median(medians)) for p in points)
        half = statistics.mean((p["ci_high_ns"] - p["ci_low_ns"]) / 2 / p["mean_ns"]
                               for p in points if p["ci_low_ns"] is not None)
        modes, disagree = _modes(points)
        hits["mean"] += held
        hits["median"] += held_median
        total += len(points)
        if not modes:
            hits["one state"] += held
            one_state += len(points)
        if not disagree:
            hits["agree"] += held
            agree += len(points)
        rng = f"{human_ns(min(medians))}..{human_ns(max(medians))}"
        print(f"{key[0]:17} {human_bytes(key[1]):>8} {human_ns(center):>16} {rng:>24} "
              f"{spread:>7.0%} {held:>6}/{len(points):<4} {held_median:>7}/{len(points):<4} "
              f"{half:>7.1%}  {'MODES ' + modes if modes else 'DISAGREE' if disagree else ''}")
    print(f"\nintervals containing the median of the {launches} launches' trimmed means: "
          f"{hits['mean']}/{total} ({hits['mean'] / total:.0%})")
    print(f"intervals containing the median of the {launches} launches' medians (the "
          f"older figure): {hits['median']}/{total} ({hits['median'] / total:.0%})")
    if one_state:
        print(f"... the first, at the points whose launches show one state (no MODES): "
              f"{hits['one state']}/{one_state} ({hits['one state'] / one_state:.0%})")
    if agree:
        print(f"... at the points whose launches agree (no DISAGREE in `run --launches`): "
              f"{hits['agree']}/{agree} ({hits['agree'] / agree:.0%})")


if __name__ == "__main__":
    main()
