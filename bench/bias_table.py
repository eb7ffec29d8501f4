#!/usr/bin/env python3
"""The seed's bias of the classic loop, reproduced on a simulated cluster:
a linear broadcast (op linear_bcast) timed with the IMB/OSU loop (method
barrier, k launches back to back) and with the window method, at n ranks
and k = 1..16. Per rank i (counted from the root) the measured ratio
barrier-loop time / window time is set against the formula
r_i(n,k) = ((n-1)(k-1)+i)/(ik) (measurement.md section 1, point 6), with
its error; printed for a representative set of ranks with the largest
error over all of them, and plotted.

    .venv/bin/python bench/bias_table.py [--nps 4,16,64] [--ks 1:16] \
        [--platform flat-1024] [--size 64K] [--png bias_table.png]

Needs the SMPI build (make smpi). The size must make MPI_Send wait for the
transfer: SMPI sends messages under 64 KiB detached, so the root's sends
then overlap and t_i is no longer i (alpha + m beta).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import run_mpiscope

from mpiscope.reports.method_compare import BiasRow, bias_rows, shown_ranks


def parse_ks(text: str) -> list[int]:
    if ":" in text:
        low, high = (int(part) for part in text.split(":"))
        return list(range(low, high + 1))
    return [int(part) for part in text.split(",")]


def measure(n: int, k: int, args: argparse.Namespace, out: Path) -> tuple[list[BiasRow], float]:
    doc, wall = run_mpiscope(
        ["linear_bcast", "--method", "window,barrier", "--k", str(k), "--np", str(n),
         "--sizes", args.size, "--launcher", "smpi", "--platform", args.platform], out)  # fmt: skip
    return bias_rows(doc["points"], k=int(doc["method"]["k"])), wall


def print_table(n: int, results: dict[int, list[BiasRow]]) -> None:
    shown = sorted(shown_ranks(n) - {n - 1}) + [n - 1]
    print(f"\nn = {n}: measured ratio / formula r_i(n,k) per rank i, and the largest |error| "
          f"over all {n - 1} ranks")  # fmt: skip
    print(f"{'k':>3}  " + "  ".join(f"{f'i={i}':>15}" for i in shown) + "  max |error| (i)")
    for k, rows in results.items():
        by_i = {row.i: row for row in rows}
        cells = [f"{by_i[i].measured:7.3f}/{by_i[i].formula:<7.3f}" for i in shown]
        worst = max(rows, key=lambda row: abs(row.error or 0.0))
        print(f"{k:>3}  " + "  ".join(cells) + f"  {abs(worst.error or 0.0):.3%} ({worst.i})")


def plot(results: dict[int, dict[int, list[BiasRow]]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    fig, axes = plt.subplots(1, len(results), figsize=(5 * len(results), 4.2), squeeze=False)
    for ax, (n, by_k) in zip(axes[0], results.items(), strict=True):
        for i in sorted(shown_ranks(n) & {1, 2, n // 4, n // 2, n - 1}):
            ks = sorted(by_k)
            rows = [next(row for row in by_k[k] if row.i == i) for k in ks]
            line = ax.plot(ks, [row.formula for row in rows], "-", lw=1, label=f"i = {i}")[0]
            ax.plot(ks, [row.measured for row in rows], "o", ms=4, color=line.get_color())
        ax.set_yscale("log")
        top = max(row.formula for rows in by_k.values() for row in rows)
        ax.set_yticks([t for t in (1, 1.25, 1.5, 2, 3, 5, 10, 20, 30, 50) if t <= 1.1 * top])
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(sorted(by_k)[:: max(1, len(by_k) // 8)])
        ax.set_xlabel("k (launches per loop)")
        ax.set_ylabel("barrier-loop time / window time")
        ax.set_title(f"n = {n}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{title}: dots measured, lines r_i(n,k) = ((n-1)(k-1)+i)/(ik)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nps", default="4,16,64", help="rank counts (comma-separated)")
    parser.add_argument("--ks", default="1:16", help="loop lengths: LOW:HIGH or a list")
    parser.add_argument("--platform", default="flat-1024")
    parser.add_argument("--size", default="64K", help="message size (>= 64K, see above)")
    parser.add_argument("--png", type=Path, default=Path("bias_table.png"))
    args = parser.parse_args()
    nps, ks = [int(n) for n in args.nps.split(",")], parse_ks(args.ks)
    results: dict[int, dict[int, list[BiasRow]]] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for n in nps:
            results[n] = {}
            for k in ks:
                rows, wall = measure(n, k, args, Path(tmp) / f"bias-{n}-{k}.json")
                results[n][k] = rows
                print(f"n={n} k={k}: {wall:.1f} s", flush=True)
    print(f"\nlinear_bcast {args.size} on {args.platform} (SimGrid SMPI), window and barrier "
          f"methods; {time.monotonic() - started:.0f} s wall in all")  # fmt: skip
    everything: list[Any] = []
    for n, by_k in results.items():
        print_table(n, by_k)
        everything += [row for rows in by_k.values() for row in rows]
    worst = max(everything, key=lambda row: abs(row.error or 0.0))
    print(f"\nlargest |error| of all {len(everything)} (n, k, i): {abs(worst.error or 0.0):.3%} "
          f"at n={worst.nprocs} k={worst.k} i={worst.i}")  # fmt: skip
    plot(results, args.png, f"linear_bcast {args.size}, {args.platform}")
    print(f"plot: {args.png}")


if __name__ == "__main__":
    main()
