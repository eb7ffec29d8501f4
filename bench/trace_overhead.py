#!/usr/bin/env python3
"""The tracer's cost: nanoseconds added per MPI call.

Two loops (bench/trace_overhead_app.c), each run with and without the
tracer (LD_PRELOAD), the best of --repeats inside a run and the best of
--runs runs (a shared machine only ever adds time):
  * a call-heavy loop: MPI_Comm_rank --calls times, one call per iteration;
  * a 2-rank 8-byte ping-pong: four calls on the critical path of a round trip.
The added time per call is the difference divided by the calls per
iteration; it includes writing the records to the trace file as the
tracer's half buffers fill (default size, or --records). Target: under 30
ns per call. Where the time goes, part by part: bench/trace_parts.c.

    .venv/bin/python bench/trace_overhead.py [--mpi mpich] [--calls 1000000] [--records N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from mpiscope.launcher import build_env, mpiexec_command  # noqa: E402
from mpiscope.trace.record import tracer_library  # noqa: E402

HERE = Path(__file__).resolve().parent
TARGET_NS = 30.0


def run_loop(argv: list[str], env: dict[str, str]) -> float:
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False,
                          timeout=600)
    if proc.returncode != 0:
        sys.exit(f"trace_overhead: {' '.join(argv)} failed:\n{proc.stderr}")
    return float(proc.stdout.strip().splitlines()[-1])


def best_of(runs: int, argv: list[str], env: dict[str, str]) -> float:
    return min(run_loop(argv, env) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpi", default=None, help="MPI profile (default: MPISCOPE_MPI)")
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--pingpongs", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--loops", default="calls,pingpong",
                        help="which loops: calls, pingpong or both (comma-separated)")
    parser.add_argument("--records", type=int, default=None,
                        help="records per half buffer (MPISCOPE_TRACE_RECORDS; default: the "
                             "tracer's)")
    args = parser.parse_args()
    profile, lib = tracer_library(args.mpi)
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "trace_overhead_app"
        subprocess.run([profile.mpicc, "-O2", str(HERE / "trace_overhead_app.c"), "-o",
                        str(app)], check=True)
        plain = build_env(profile)
        # the default buffers: the records stream to the file as halves fill,
        # and the writes are part of the cost
        traced = dict(plain, LD_PRELOAD=lib, MPISCOPE_TRACE_DIR=os.path.join(tmp, "trace"))
        if args.records is not None:
            traced["MPISCOPE_TRACE_RECORDS"] = str(args.records)
        rows = []
        loops = set(args.loops.split(","))
        for mode, n, calls_per_iter in (("calls", args.calls, 1),
                                        ("pingpong", args.pingpongs, 4)):
            if mode not in loops:
                continue
            argv = mpiexec_command(profile, 2) + [str(app), "--mode", mode, "--n", str(n),
                                                  "--repeats", str(args.repeats)]
            base = best_of(args.runs, argv, plain)
            with_tracer = best_of(args.runs, argv, traced)
            rows.append((mode, base, with_tracer, (with_tracer - base) / calls_per_iter))
    half = f", {args.records} records per half" if args.records is not None else ""
    print(f"tracer overhead, MPI {profile.name}, 2 ranks ({lib}{half})")
    print(f"{'loop':34} {'plain':>10} {'traced':>10} {'added per call':>15}")
    names = {"calls": f"MPI_Comm_rank x {args.calls}", "pingpong": "8-byte ping-pong round trip"}
    for mode, base, with_tracer, added in rows:
        print(f"{names[mode]:34} {base:8.1f} ns {with_tracer:8.1f} ns {added:12.1f} ns")
    worst = max(r[3] for r in rows)
    print(f"target: under {TARGET_NS:.0f} ns per call: {'met' if worst < TARGET_NS else 'MISSED'}")


if __name__ == "__main__":
    main()
