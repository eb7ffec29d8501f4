#!/usr/bin/env python3
"""Do results reproduce from one run to the next? Runs the default suite
R times (separate runs) and prints, per point, the between-run
relative spread of the medians and in how many runs the 95% interval
contains the center of all R runs. Honest intervals contain it in most
runs; the seed's tool reported +-1% intervals on runs that
differed 3-4x.

A point's interval is the interval of its trimmed mean, so the center it
is held against is the median of the R trimmed means ("CI holds it"); the
older figure held it against the median of the R medians ("holds median"),
another statistic, which a skewed point's interval misses however many
samples it has. Points whose runs fall into separate modes (the
machine changed state between runs: mpiscope.result.modes, the same
rule as `run --runs`) are marked MODES with the modes' values: no
single run's interval can hold their center, and the figure is also
given without them.

Two intervals per run (docs/method.md section 11): the engine's
within-run interval, and the interval of what another run would
read (``run_interval``), which folds in the run-to-run variation
measured BEFORE the R runs by a separate calibration, ``mpiscope run
--runs K`` (K = --calibration, 5 by default) into a private run
profile (never the user's). The calibration's runs are not among the
R runs: the R runs test it, they did not make it.

    .venv/bin/python bench/reproducibility.py [--runs 10] [--calibration 5] [--keep DIR]
    .venv/bin/python bench/reproducibility.py --from DIR   # the documents --keep kept
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import DEFAULT_SUITE, human_bytes, human_ns, point_key, run_mpiscope

from mpiscope.result import load_result
from mpiscope.result.modes import run_modes
from mpiscope.result.stats import RunStats, summarize_runs

HOLDS_E, MEAN_E = "E' holds it", "mean E'"


def _holds(p: dict[str, Any], center: float) -> bool:
    return p["ci_low_ns"] is not None and p["ci_low_ns"] <= center <= p["ci_high_ns"]


def _holds_launch(p: dict[str, Any], center: float) -> bool | None:
    """Whether the point's launch interval holds ``center``; None without one."""
    interval = p.get("run_interval")
    if not interval:
        return None
    return bool(interval["low_ns"] <= center <= interval["high_ns"])


def _modes(points: list[dict[str, Any]]) -> tuple[str, bool]:
    """MODES a (n launches) / b (m) when the launches fall into separate groups,
    and whether they disagree (`run --runs`' DISAGREE)."""
    launches = [RunStats(p["median_ns"], p.get("q25_ns"), p.get("q75_ns")) for p in points]
    summary = summarize_runs(launches, 0.95, resamples=100)
    modes = run_modes([x.median_ns for x in launches], summary.group_members,
                         summary.disagree_reasons)
    return " / ".join(f"{human_ns(m.value_ns)} ({m.count})" for m in modes), summary.disagree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, dest="runs", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)  # the name before mpiscope 1.11
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--calibration", type=int, default=5, metavar="K",
                        help="runs of the calibration before them (0: none; else >= 3)")
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mpi", default="mpich")
    parser.add_argument("--sizes", default="1:1M:x4")
    parser.add_argument("--ops", default=DEFAULT_SUITE)
    parser.add_argument("--keep", type=Path, help="keep the runs' documents in this directory")
    parser.add_argument("--from", dest="source", type=Path,
                        help="measure nothing: read the run*.json a --keep DIR holds")
    args = parser.parse_args()
    if args.calibration and args.calibration < 3:
        sys.exit("reproducibility: error: --calibration takes 0 or 3 and more")
    runs: list[dict[tuple[str, int | None, int], dict[str, Any]]] = []
    if args.source is not None:
        for path in sorted(args.source.glob("run*.json")):
            doc = load_result(path).data  # old documents: their names of before 1.11 read
            if doc.get("status") == "complete":  # not a launch still running
                runs.append({point_key(p): p for p in doc["points"]})
        if len(runs) < 2:
            sys.exit(f"reproducibility: error: {args.source} holds {len(runs)} run*.json, not 2+")
        args.runs = len(runs)
        calibration = args.source / "calibration.json"
        note = _calibration_note(calibration) if calibration.exists() else None
        report(runs, args.runs, note)
        return
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        profile = where / "launch-profile.json"  # private: never the user's profile
        profile.unlink(missing_ok=True)
        common = [args.ops, "--np", str(args.np), "--mpi", args.mpi, "--sizes", args.sizes,
                  "--run-profile", str(profile) if args.calibration else "off"]
        note = None
        if args.calibration:
            _, wall = run_mpiscope([*common, "--runs", str(args.calibration)],
                                   where / "calibration.json")
            note = _calibration_note(where / "calibration.json")
            print(f"calibration (--runs {args.calibration}): {wall:.1f} s", flush=True)
        for i in range(args.runs):
            doc, wall = run_mpiscope(common, where / f"run{i}.json")
            runs.append({point_key(p): p for p in doc["points"]})
            print(f"run {i + 1}/{args.runs}: {wall:.1f} s", flush=True)
    report(runs, args.runs, note)


def _calibration_note(path: Path) -> str:
    """When and how the calibration measured the run-to-run part."""
    doc = load_result(path).data
    env = doc["environment"]
    recorded = (doc.get("run_profile") or {}).get("points", 0)
    return (f"calibration: `mpiscope run --runs {len(doc.get('runs') or ())}` "
            f"{env.get('start_time_utc')} .. {env.get('end_time_utc')}, before the launches "
            f"below and independent of them; run-to-run part recorded for {recorded} "
            "point(s)")


def report(runs: list[dict[tuple[str, int | None, int], dict[str, Any]]], launches: int,
           calibration: str | None = None) -> None:
    """Per point and in all: how often one launch's interval (within-launch
    CI, and E' with the calibration's run-to-run part) holds the center."""
    if calibration:
        print(f"\n{calibration}")
    print(f"\n{'op':17} {'size':>8} {'median of means':>16} {'min..max of medians':>24} "
          f"{'spread':>8} {'CI holds it':>11} {'holds median':>12} {'mean CI':>8} "
          f"{HOLDS_E:>11} {MEAN_E:>7}  modes")
    hits = {"mean": 0, "median": 0, "one state": 0, "agree": 0, "launch": 0,
            "launch one state": 0}
    total = one_state = agree = with_launch = with_launch_one_state = 0
    for key in runs[0]:
        points = [r[key] for r in runs if key in r and r[key]["median_ns"] is not None]
        medians = [p["median_ns"] for p in points]
        center = statistics.median(p["mean_ns"] for p in points)
        spread = (max(medians) - min(medians)) / statistics.median(medians)
        held = sum(_holds(p, center) for p in points)
        held_median = sum(_holds(p, statistics.median(medians)) for p in points)
        half = statistics.mean((p["ci_high_ns"] - p["ci_low_ns"]) / 2 / p["mean_ns"]
                               for p in points if p["ci_low_ns"] is not None)
        launch = [h for h in (_holds_launch(p, center) for p in points) if h is not None]
        halves = [p["run_interval"]["error_ns"] / p["mean_ns"]
                  for p in points if p.get("run_interval")]
        modes, disagree = _modes(points)
        hits["mean"] += held
        hits["median"] += held_median
        hits["launch"] += sum(launch)
        total += len(points)
        with_launch += len(launch)
        if not modes:
            hits["one state"] += held
            one_state += len(points)
            hits["launch one state"] += sum(launch)
            with_launch_one_state += len(launch)
        if not disagree:
            hits["agree"] += held
            agree += len(points)
        rng = f"{human_ns(min(medians))}..{human_ns(max(medians))}"
        e_held = f"{sum(launch):>6}/{len(launch):<4}" if launch else f"{'-':>11}"
        e_half = f"{statistics.mean(halves):>7.1%}" if halves else f"{'-':>7}"
        print(f"{key[0]:17} {human_bytes(key[1]):>8} {human_ns(center):>16} {rng:>24} "
              f"{spread:>7.0%} {held:>6}/{len(points):<4} {held_median:>7}/{len(points):<4} "
              f"{half:>7.1%} {e_held} {e_half}  "
              f"{'MODES ' + modes if modes else 'DISAGREE' if disagree else ''}")
    print(f"\nCI (within-launch): intervals containing the median of the {launches} launches' "
          f"trimmed means: {hits['mean']}/{total} ({hits['mean'] / total:.0%})")
    if with_launch:
        print(f"E' (another launch: within-launch error and the calibration's run-to-run "
              f"part): {hits['launch']}/{with_launch} ({hits['launch'] / with_launch:.0%})"
              + ("" if with_launch == total else
                 f"; {total - with_launch} point-launches had no calibrated part"))
    print(f"intervals containing the median of the {launches} launches' medians (the "
          f"older figure): {hits['median']}/{total} ({hits['median'] / total:.0%})")
    if one_state:
        print(f"... CI at the points whose launches show one state (no MODES): "
              f"{hits['one state']}/{one_state} ({hits['one state'] / one_state:.0%})")
    if with_launch_one_state:
        print(f"... E' at the points whose launches show one state (no MODES): "
              f"{hits['launch one state']}/{with_launch_one_state} "
              f"({hits['launch one state'] / with_launch_one_state:.0%})")
    if agree:
        print(f"... CI at the points whose launches agree (no DISAGREE in `run --runs`): "
              f"{hits['agree']}/{agree} ({hits['agree'] / agree:.0%})")

if __name__ == "__main__":
    main()
