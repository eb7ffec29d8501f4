"""The tracer's cost per call in OSU's osu_latency (8 bytes, 2 ranks bound to cores).

    python bench/trace_osu.py --osu PATH/osu_latency [--tracer LIB ...] [--rounds 40]

Each round runs osu_latency plain, then traced (LD_PRELOAD) with each --tracer
library in turn, so that a busy moment of a shared machine hits all of them.
Per round and tracer: the one-way latency added to the plain run of the same
round. Per call: that, times 2 (a round trip), divided by the traced calls per
round trip, counted in the trace of the first traced run (osu_latency's rank 0
also reads MPI_Wtime around each round trip, and those calls are traced too).
Prints medians, quartiles and means (osu prints latencies in 10 ns steps,
which a median keeps and a mean of many rounds resolves).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from mpiscope.trace.reader import read_rank_file  # noqa: E402

MPIEXEC = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "mpiexec"


def one_way_ns(mpiexec: str, osu: str, iterations: int, tracer: str | None, trace: Path) -> float:
    """One run: osu_latency's 8-byte one-way latency in ns."""
    argv = [mpiexec, "-n", "2", "-bind-to", "core"]
    if tracer:
        argv += ["-genv", "LD_PRELOAD", tracer, "-genv", "MPISCOPE_TRACE_DIR", str(trace)]
    argv += [osu, "-m", "8:8", "-i", str(iterations), "-x", str(iterations // 10)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "8":
            return float(fields[1]) * 1000.0
    sys.exit(f"trace_osu: error: osu_latency printed no 8-byte line (exit {proc.returncode}): "
             f"{proc.stderr.strip()[:200]}")


def calls_per_round_trip(trace: Path, iterations: int) -> float:
    """Traced calls of both ranks per timed round trip: the sends and receives of every
    round trip (warm-up ones too: iterations + iterations // 10) and the MPI_Wtime calls,
    which osu_latency makes around the timed ones only."""
    p2p = wtime = 0
    for path in sorted(trace.glob("rank-*.mst")):
        rank = read_rank_file(path)
        names = [rank.functions[f] for f in rank.records["func"]]
        p2p += sum(1 for name in names if name in ("MPI_Send", "MPI_Recv"))
        wtime += sum(1 for name in names if name == "MPI_Wtime")
    return p2p / (iterations + iterations // 10) + wtime / iterations


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, median, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return q1, median, q3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--osu", required=True, help="the osu_latency binary")
    parser.add_argument("--tracer", action="append", default=[],
                        help="a libmpiscope-trace.so (repeat to compare builds)")
    parser.add_argument("--mpiexec", default=str(MPIEXEC))
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=100000)
    args = parser.parse_args()
    if not args.tracer:
        args.tracer = [str(Path(__file__).resolve().parents[1] / ".venv" / "lib"
                           / "libmpiscope-trace.so")]
    for path in [args.osu, args.mpiexec, *args.tracer]:
        if not os.path.exists(path):
            sys.exit(f"trace_osu: error: no such file: {path}")
    if args.rounds < 1 or args.iterations < 10:
        sys.exit("trace_osu: error: --rounds must be >= 1 and --iterations >= 10")
    plain: list[float] = []
    added: dict[str, list[float]] = {lib: [] for lib in args.tracer}
    per_trip: dict[str, float] = {}
    loads = []
    with tempfile.TemporaryDirectory(prefix="trace-osu-") as tmp:
        for k in range(args.rounds):
            loads.append(os.getloadavg()[0])
            base = one_way_ns(args.mpiexec, args.osu, args.iterations, None, Path(tmp))
            plain.append(base)
            for i, lib in enumerate(args.tracer):
                trace = Path(tmp) / f"r{k}-t{i}"
                added[lib].append(one_way_ns(args.mpiexec, args.osu, args.iterations, lib, trace)
                                  - base)
                if lib not in per_trip:
                    per_trip[lib] = calls_per_round_trip(trace, args.iterations)
                subprocess.run(["rm", "-rf", str(trace)], check=False)
    print(f"osu_latency 8 B, {args.rounds} interleaved rounds, 1-min load "
          f"{min(loads):.2f}-{max(loads):.2f}")
    q1, med, q3 = quartiles(plain)
    print(f"plain one-way: median {med:.0f} ns (quartiles {q1:.0f}-{q3:.0f})")
    for lib in args.tracer:
        q1, med, q3 = quartiles(added[lib])
        per = 2.0 / per_trip[lib]
        mean = statistics.fmean(added[lib])
        print(f"{lib}: added one-way median {med:.0f} ns ({q1:.0f}-{q3:.0f}), mean {mean:.1f}; "
              f"{per_trip[lib]:.2f} traced calls per round trip; "
              f"per call {med * per:.1f} ns ({q1 * per:.1f}-{q3 * per:.1f}), mean {mean * per:.1f}")


if __name__ == "__main__":
    main()
