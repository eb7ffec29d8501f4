#!/usr/bin/env python3
"""Wall of one 1 B..1 MiB Bcast sweep at 2 ranks: the bench alone (cold
buffers flushed per stage, and the old region mode, MPISCOPE_COLD_REGION=1),
`mpiscope run`, osu_bcast when OSU_BCAST names its binary, and the floor
every MPI program pays (mpiexec, MPI_Init, MPI_Finalize: a program doing
nothing else, built here with mpicc); the start-up the bench adds is its
wall minus the floor minus its points' elapsed time. Then, for
the last bench run, each point's elapsed time, launches, and the RSE of
its median and trimmed mean; and the cold vs warm medians at 64 KiB in
both cold modes (cold must stay cold).

    .venv/bin/python bench/sweep_wall.py [--repeat 5] [--bench PATH] [--mpiexec PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import bytecode_note, human_bytes, human_ns, user_env

SIZES = ",".join(str(1 << i) for i in range(21))


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """Wall seconds of one command; exits with its error if it fails."""
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=user_env(env), check=False)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"sweep_wall: error: {' '.join(cmd[:4])}... failed:\n{proc.stderr[-2000:]}")
    return wall


def bench_cmd(args: argparse.Namespace, out: Path, *extra: str) -> list[str]:
    return [args.mpiexec, "-n", "2", args.bench, "--ops", "bcast", "--sizes", SIZES,
            "--out", str(out), "--force", *extra]  # fmt: skip


def with_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def walls(args: argparse.Namespace, tmp: Path) -> dict[str, list[float]]:
    """Every variant `repeat` times, interleaved in a random order."""
    out = tmp / "sweep.json"
    variants: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "bench (flush)": (bench_cmd(args, out), None),
        "bench (region)": (
            bench_cmd(args, tmp / "region.json"), with_env(MPISCOPE_COLD_REGION="1")),
        "mpiscope run": (
            [sys.executable, "-m", "mpiscope", "run", "bcast", "--np", "2", "--sizes", "1:1M:x2",
             "--out", str(tmp / "run.json"), "--force", "--quiet"],
            with_env(MPISCOPE_BENCH=args.bench),
        ),
    }  # fmt: skip
    floor = _floor_program(args, tmp)
    if floor is not None:
        variants["MPI floor"] = ([args.mpiexec, "-n", "2", str(floor)], None)
    if os.environ.get("OSU_BCAST"):
        variants["osu_bcast"] = (
            [args.mpiexec, "-n", "2", os.environ["OSU_BCAST"], "-m", "1:1048576"], None)
    order = [name for name in variants for _ in range(args.repeat)]
    random.Random(args.seed).shuffle(order)
    result: dict[str, list[float]] = {name: [] for name in variants}
    for name in order:
        cmd, env = variants[name]
        result[name].append(timed(cmd, env))
    return result


def _floor_program(args: argparse.Namespace, tmp: Path) -> Path | None:
    """MPI_Init and MPI_Finalize alone, built with the MPI's mpicc (None without one)."""
    mpicc = args.mpicc or str(Path(args.mpiexec).with_name("mpicc"))
    if not Path(mpicc).exists() and not shutil.which(mpicc):
        return None
    source = tmp / "floor.c"
    source.write_text("#include <mpi.h>\nint main(int c, char **v) "
                      "{ MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n")
    program = tmp / "floor"
    subprocess.run([mpicc, "-O2", str(source), "-o", str(program)], check=True)
    return program


def print_points(doc: dict[str, Any]) -> None:
    print(f"\nper point (last bench run, flush mode, min_point_seconds "
          f"{doc['method'].get('min_point_seconds')} s):")
    print(f"{'size':>8} {'launches':>8} {'kept':>5} {'elapsed':>9} {'median':>9} "
          f"{'RSE med':>8} {'RSE mean':>8}  stop")
    for p in doc["points"]:
        med_rse, rse = p.get("median_rse"), p.get("rse")
        print(f"{human_bytes(p['size_bytes']):>8} {p['launches_total']:>8} {p['samples']:>5} "
              f"{human_ns(p['elapsed_ns']):>9} {human_ns(p['median_ns']):>9} "
              f"{'-' if med_rse is None else f'{med_rse:.4f}':>8} "
              f"{'-' if rse is None else f'{rse:.4f}':>8}  {p['stop_reason']}")
    total = sum(p["elapsed_ns"] for p in doc["points"])
    print(f"sum of elapsed_ns: {human_ns(total)}")


def cold_check(args: argparse.Namespace, tmp: Path) -> None:
    """Cold and warm medians at 64 KiB, both cold modes, interleaved."""
    print("\n64 KiB Bcast, median over points (each a separate 2-rank run):")
    runs: dict[str, list[float]] = {}
    pairs = [(mode, cache) for mode in ("flush", "region") for cache in ("cold", "warm")]
    order = pairs * args.repeat
    random.Random(args.seed + 1).shuffle(order)
    for mode, cache in order:
        out = tmp / f"c-{mode}-{cache}.json"
        env = with_env(MPISCOPE_COLD_REGION="1" if mode == "region" else "0")
        timed([args.mpiexec, "-n", "2", args.bench, "--ops", "bcast", "--sizes", "65536",
               "--cache", cache, "--out", str(out), "--force"], env)  # fmt: skip
        median = json.loads(out.read_text())["points"][0]["median_ns"]
        runs.setdefault(f"{cache} ({mode})", []).append(median)
    for name, values in sorted(runs.items()):
        print(f"  {name:15} median {human_ns(statistics.median(values)):>9}  "
              f"runs {' '.join(human_ns(v) for v in values)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    bench = os.environ.get("MPISCOPE_BENCH") or shutil.which("mpiscope-bench")
    parser.add_argument("--bench", default=bench)
    parser.add_argument("--mpiexec", default=shutil.which("mpiexec") or "mpiexec")
    parser.add_argument("--mpicc", help="for the floor program (default: next to mpiexec)")
    args = parser.parse_args()
    if not args.bench:
        sys.exit("sweep_wall: error: no mpiscope-bench (give --bench or MPISCOPE_BENCH)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if note := bytecode_note():
        print(note)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        result = walls(args, tmp)
        print(f"wall of one 1 B..1 MiB Bcast sweep, 2 ranks, {args.repeat} runs each (s):")
        for name, values in result.items():
            print(f"  {name:15} min {min(values):.3f}  median {statistics.median(values):.3f}  "
                  f"max {max(values):.3f}")
        doc = json.loads((tmp / "sweep.json").read_text())
        print_points(doc)
        if "MPI floor" in result:
            points = sum(p["elapsed_ns"] for p in doc["points"]) * 1e-9
            bench, floor = (statistics.median(result[k]) for k in ("bench (flush)", "MPI floor"))
            print(f"bench start-up beyond MPI's floor (median bench - median floor - points): "
                  f"{bench - floor - points:.3f} s (floor {floor:.3f} s, points {points:.3f} s)")
        cold_check(args, tmp)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
