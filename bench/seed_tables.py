#!/usr/bin/env python3
"""The seeds' tables repeated on a simulated cluster (SimGrid SMPI), each
printed next to the figures the seed published:

  a     the Alltoall seed's configuration A: 160 processes, 20 nodes x 8,
        One-leader, M-leader and PLP at 16 B..4 KiB (its Fig. 11)
  b     configuration B: 240 processes, One-leader, M-leader and PLP at
        16 B..4 KiB (its Fig. 12), as 30 nodes x 8 of cluster-30x8
  b12   configuration B in the seed's own layout, 20 nodes x 12 (its section
        4.1): cluster-30x8's network with 20 hosts of 12 cores, a platform
        file written for the run from the shipped one
  bias  the MPIPerf seed's bias of the IMB/OSU loop, r_i(n,k), measured as
        bench/bias_table.py does (linear_bcast 64 KiB, barrier loop / window
        method, rank by rank) at n = 4..64

The Alltoall seed ran on real hardware (20 nodes of 2 x 6-core Xeon X5650,
40 Gb/s InfiniBand QDR, MVAPICH 1.2rc1): its times are not ours to match,
so the tables set its published speed-ups (the only figures its text
gives: the bars of Figs. 11-12 carry no numbers) against the same ratios of
the simulated times. The MPIPerf seed's r_i(n,k) is a formula (Hockney's
model, any platform): the measured ratio is printed next to its value.

    .venv/bin/python bench/seed_tables.py [--tables a,b,b12,bias] [--sizes 16:4K:x2]
        [--nps 4,8,16,32,64] [--ks 1,2,3,4,8,16] [--keep DIR]

Each table reports its wall time, the load average and the processor; the
simulated times are exact (the deterministic rule: one measurement per
point, docs/simulation.md). Needs the SMPI build (make smpi).
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import cpu_name, human_bytes, human_ns, load_text
from bias_table import measure as measure_bias
from bias_table import parse_ks
from bias_table import print_table as print_bias_table
from cost_at_scale import Run, run_measured, seconds

from mpiscope.alltoall.plp import DEFAULT_SIZE_CRIT, plp_rule
from mpiscope.reports.method_compare import BiasRow

#: The Alltoall seed: Li Qiang, Sun Ninghui, Huo Zhigang, Ma Jie, "Optimizing
#: MPI Alltoall Communications in Multicore Clusters", J. Computer Research
#: and Development 50(8):1744-1754, 2013 (spec/alltoall.md). Its platform
#: (section 4): 20 nodes of 2 x 6-core Intel Xeon X5650 2.66 GHz, one 40 Gb/s
#: Mellanox ConnectX MT26428 HCA per node (QDR switch), MVAPICH 1.2rc1,
#: Size_crit 8192 B.
ALLTOALL_SEED_PLATFORM = ("20 nodes of 2 x 6-core Xeon X5650, 40 Gb/s InfiniBand QDR, "
                          "MVAPICH 1.2rc1 (real)")  # fmt: skip

#: The seed's published speed-ups (time of the slower / time of the faster),
#: with where it says so: (config, size, faster, slower) -> (ratio, source).
ALLTOALL_SEED_RATIOS: dict[tuple[str, int, str, str], tuple[float, str]] = {
    ("A", 64, "plp", "one_leader"): (1.8, "section 4.1, Fig. 11"),
    ("A", 1024, "plp", "m_leader"): (2.0, "section 4.1, Fig. 11"),
    ("B", 32, "plp", "one_leader"): (1.9, "section 4.1, Fig. 12"),
    ("B", 512, "plp", "m_leader"): (2.4, "section 4.1, Fig. 12"),
    # The introduction, citing section 4.1 (configuration not named; its
    # sizes differ from section 4.1's: 512 B vs 1024 B, 32 B vs 64 B).
    ("A", 512, "one_leader", "m_leader"): (2.0, "introduction, citing section 4.1"),
    ("A", 32, "m_leader", "one_leader"): (1.8, "introduction, citing section 4.1"),
}

#: What the seed says of each configuration's figure beyond those ratios.
ALLTOALL_SEED_CLAIMS = {
    "A": "PLP always the fastest of the three; One-leader far behind at <= 128 B, "
         "M-leader far behind from 256 B to 1 KiB (section 4.1, Fig. 11)",
    "B": "PLP always the fastest of the three, with leaders from {1, 2, 3, 4, 6, 12} "
         "(section 4.1, Fig. 12)",
}  # fmt: skip

#: The MPIPerf seed: M. G. Kurnosov, MPIPerf (mpiperf-kurnosov.ru.txt),
#: section 3: r_i(n,k) = ((n-1)(k-1)+i)/(ik) for a linear Bcast timed by the
#: loop of its Fig. 1, and its Fig. 5: n = 4, k = 4, rank 1 reads 2.5x.
MPIPERF_SEED_EXAMPLE = (4, 4, 1, 2.5)

OPS = ("one_leader", "m_leader", "plp")
LABEL = {"one_leader": "One-leader", "m_leader": "M-leader", "plp": "PLP"}


@dataclass(frozen=True)
class Config:
    name: str  # A or B
    nprocs: int
    nodes: int
    per_node: int
    platform: str  # a shipped name or a file


def write_seed_layout(base: str, nodes: int, cores: int, path: Path) -> Path:
    """The shipped platform ``base`` (one <cluster>) with ``nodes`` hosts of
    ``cores`` cores each and the same network, written to ``path``."""
    import xml.etree.ElementTree as ET

    from mpiscope.measure.simulation import load_platform

    tree = ET.parse(load_platform(base).path)
    cluster = tree.getroot().find("cluster")
    if cluster is None:
        raise SystemExit(f"platform {base} has no <cluster> element")
    name = f"c{nodes}x{cores}"
    cluster.set("id", name)
    cluster.set("suffix", f".{name}")
    cluster.set("radical", f"0-{nodes - 1}")
    cluster.set("core", str(cores))
    header = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    path.write_text(header + ET.tostring(tree.getroot(), encoding="unicode") + "\n")
    return path


def configs(tmp: Path) -> dict[str, Config]:
    platform = write_seed_layout("cluster-30x8", 20, 12, tmp / "cluster-20x12.xml")
    return {"a": Config("A", 160, 20, 8, "cluster-30x8"),
            "b": Config("B", 240, 30, 8, "cluster-30x8"),
            "b12": Config("B", 240, 20, 12, str(platform))}  # fmt: skip


def run_alltoall(config: Config, args: argparse.Namespace, where: Path) -> Run:
    where.mkdir(parents=True, exist_ok=True)
    ops = ",".join(f"alltoall_{op}" for op in OPS)
    return run_measured("run", [ops, "--np", str(config.nprocs), "--sizes", args.sizes,
                                "--launcher", "smpi", "--platform", config.platform],
                        where)  # fmt: skip


def times_by_size(doc: dict[str, Any]) -> dict[int, dict[str, float]]:
    """Median ns per size and algorithm (op name without `alltoall_`)."""
    table: dict[int, dict[str, float]] = {}
    for point in doc["points"]:
        if point.get("kind", "measure") == "measure" and point.get("median_ns") is not None:
            op = point["op"].removeprefix("alltoall_")
            table.setdefault(int(point["size_bytes"]), {})[op] = float(point["median_ns"])
    return table


def print_alltoall(config: Config, run: Run, started_load: str) -> None:
    doc = run.doc
    env = doc["environment"]
    reasons = sorted({str(p.get("stop_reason")) for p in doc["points"]})
    print(f"\nConfiguration {config.name}: {config.nprocs} processes = {config.nodes} nodes x "
          f"{config.per_node}, SIMULATED on {env.get('platform')} ({env.get('simulator')}); "
          f"{len(doc['points'])} points, stop reasons {', '.join(reasons)}")  # fmt: skip
    print(f"wall {run.wall_s:.0f} s on {cpu_name()}, load before {started_load}, after "
          f"{load_text()}; simulator's peak PSS {run.peak_pss_bytes / 2**20:.0f} MiB")  # fmt: skip
    print(f"seed: {ALLTOALL_SEED_PLATFORM}; {ALLTOALL_SEED_CLAIMS[config.name]}")
    print("performance = 1 / time, relative to PLP (the seed's figures' axis); "
          f"PLP's d by the seed's rule (M = {config.per_node}, Size_crit {DEFAULT_SIZE_CRIT} B)")
    titles = ("size", "One-leader", "M-leader", "PLP", "d", "perf 1L", "perf ML", "best")
    rows = []
    for size, times in sorted(times_by_size(doc).items()):
        fastest = min(times.values())
        tied = [op for op in OPS if times.get(op, math.inf) <= fastest * (1 + 1e-9)]
        best = " = ".join(LABEL[op] for op in tied)
        plp = times.get("plp", math.nan)
        rows.append([human_bytes(size), *(human_ns(times.get(op)) for op in OPS),
                     str(plp_rule(config.per_node, size)),
                     f"{plp / times['one_leader']:.2f}", f"{plp / times['m_leader']:.2f}",
                     best])  # fmt: skip
    widths = [max(len(t), *(len(r[i]) for r in rows)) for i, t in enumerate(titles)]
    for row in (list(titles), *rows):
        print("  ".join(f"{c:>{w}}" for c, w in zip(row, widths, strict=True)))
    print_seed_ratios(config, doc)


def print_seed_ratios(config: Config, doc: dict[str, Any]) -> None:
    times = times_by_size(doc)
    print("the seed's published speed-ups (time of the slower / of the faster) next to the "
          "simulated ones:")  # fmt: skip
    for (name, size, fast, slow), (ratio, source) in ALLTOALL_SEED_RATIOS.items():
        at = times.get(size, {})
        if name != config.name or fast not in at or slow not in at:
            continue
        print(f"  {human_bytes(size):>6}  {LABEL[fast]} vs {LABEL[slow]}: seed {ratio:.1f}x "
              f"({source}), simulated {at[slow] / at[fast]:.2f}x")  # fmt: skip


def bias_table(args: argparse.Namespace, tmp: Path) -> None:
    nps, ks = [int(n) for n in args.nps.split(",")], parse_ks(args.ks)
    load_before, started = load_text(), time.monotonic()
    results: dict[int, dict[int, list[BiasRow]]] = {}
    for n in nps:
        results[n] = {}
        for k in ks:
            rows, wall = measure_bias(n, k, args, tmp / f"bias-{n}-{k}.json")
            results[n][k] = rows
            print(f"n={n} k={k}: {wall:.1f} s", flush=True)
    en, ek, ei, ratio = MPIPERF_SEED_EXAMPLE
    print(f"\nThe MPIPerf seed's r_i(n,k) = ((n-1)(k-1)+i)/(ik) (section 3; its Fig. 5: "
          f"n={en}, k={ek}, i={ei} reads {ratio}x), as simulated / seed: linear_bcast "
          f"{args.size}, SIMULATED on "
          f"{args.platform} (SimGrid SMPI), barrier loop / window method per rank; "
          f"{len(nps) * len(ks)} runs, {time.monotonic() - started:.0f} s wall on {cpu_name()}, "
          f"load before {load_before}, after {load_text()}")  # fmt: skip
    everything = []
    for n, by_k in results.items():
        print_bias_table(n, by_k)
        everything += [row for rows in by_k.values() for row in rows]
    worst = max(everything, key=lambda row: abs(row.error or 0.0))
    example = next((row for row in results.get(en, {}).get(ek, []) if row.i == ei), None)
    if example is not None:
        print(f"\nthe seed's Fig. 5 example: simulated {example.measured:.3f}x, seed {ratio}x")
    print(f"largest |simulated / seed - 1| of all {len(everything)} (n, k, i): "
          f"{abs(worst.error or 0.0):.3%} at n={worst.nprocs} k={worst.k} i={worst.i}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="a,b,b12,bias",
                        help="which: a, b, b12, bias (comma-separated)")  # fmt: skip
    parser.add_argument("--sizes", default="16:4K:x2", help="the Alltoall tables' sizes")
    parser.add_argument("--nps", default="4,8,16,32,64", help="the bias table's n")
    parser.add_argument("--ks", default="1,2,3,4,8,16", help="the bias table's k (LOW:HIGH, list)")
    parser.add_argument("--platform", default="flat-1024", help="the bias table's platform")
    parser.add_argument("--size", default="64K", help="the bias table's message size")
    parser.add_argument("--keep", type=Path, help="keep the result documents in this directory")
    args = parser.parse_args()
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        known = configs(tmp)
        for table in tables:
            if table == "bias":
                bias_table(args, tmp)
                continue
            if table not in known:
                parser.error(f"unknown table {table!r} (a, b, b12, bias)")
            config, load_before = known[table], load_text()
            run = run_alltoall(config, args, tmp / f"alltoall-{table}")
            print_alltoall(config, run, load_before)
            print(f"({seconds(run.wall_s)} wall for {len(run.doc['points'])} points)", flush=True)


if __name__ == "__main__":
    main()
