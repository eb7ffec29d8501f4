#!/usr/bin/env python3
"""The detection matrix of this machine: detector x agent frequency x burst.

Runs `mpiscope noise calibrate` (layout C, alternating design, plus an A/A
run with a sham agent) for each detector and prints, per cell, which
criteria detected the agent: C = criterion 1 (99% CI gap), I = criterion 2
(IQR outliers), M = Mann-Whitney, '.' = nothing. The A/A row is the false
alarm rate: anything there is noise the detector invents.

    .venv/bin/python bench/noise_matrix.py [--detector barrier,alltoall,stream-ring]
        [--hz 1,10,20,100] [--burst 0.1ms,1ms,10ms] [--packet 0.5s] [--packets 24]
        [--stream-elements 2000000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LETTERS = {"ci_overlap": "C", "iqr_outliers": "I", "mann_whitney": "M"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detector", default="barrier,alltoall,stream-ring")
    parser.add_argument("--hz", default="1,10,20,100")
    parser.add_argument("--burst", default="0.1ms,1ms,10ms")
    parser.add_argument("--packet", default="0.5s")
    parser.add_argument("--packets", default="24")
    parser.add_argument("--block", default="3")
    parser.add_argument("--np", default="2")
    parser.add_argument("--mpi", default="mpich")
    parser.add_argument("--stream-elements", default="2000000",
                        help="stream-ring elements per rank (the 4x LLC rule makes one "
                        "iteration last tens of seconds on VMs that report a huge LLC)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "calibration.json"
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "mpiscope", "noise", "calibrate", "--detector", args.detector,
             "--hz", args.hz, "--burst", args.burst, "--packet", args.packet,
             "--packets", args.packets, "--block", args.block, "--np", args.np,
             "--mpi", args.mpi, "--stream-elements", args.stream_elements, "--out", str(out)],
            text=True, check=False, stdout=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            sys.exit(f"mpiscope noise calibrate failed (exit {proc.returncode})")
        doc = json.loads(out.read_text())
        wall = time.monotonic() - start
    runs = doc["runs"]
    agents = list(dict.fromkeys(r["agent"] for r in runs))
    detectors = list(dict.fromkeys(r["detector"] for r in runs))
    cell = {(r["detector"], r["agent"]): r for r in runs}
    print(f"detection matrix, {args.np} ranks, packets of {args.packet}, {args.packets} "
          f"packets per run, layout C, alternating blocks of {args.block} ({wall:.0f} s)")
    print("C = 99% CI gap, I = IQR outliers, M = Mann-Whitney, . = not detected\n")
    width = max(len(a) for a in agents) + 2
    print(f"{'agent':<{width}}{'load':>7}  " + "".join(f"{d:>14}" for d in detectors))
    for agent in agents:
        load = next(r["load"] for r in runs if r["agent"] == agent)
        marks = []
        for d in detectors:
            r = cell.get((d, agent))
            fired = "".join(LETTERS[c] for c in LETTERS if r and c in r["fired"]) or "."
            marks.append(f"{fired} {r['mean_difference']:+.1%}" if r else "-")
        print(f"{agent:<{width}}{load:>7.2%}  " + "".join(f"{m:>14}" for m in marks))
    print("\nsmallest agent detected, per criterion:")
    for d, found in doc["smallest"].items():
        print(f"  {d}: " + ", ".join(f"{c} {a or 'none'}" for c, a in found.items()))


if __name__ == "__main__":
    main()
