"""Exports of large traces: wall time, records per second and peak memory.

Writes a synthetic format-2 trace (docs/trace-format.md: the tracer's file
layout, THRD blocks of 65,536 records as the tracer streams them) of N calls
in all, on RANKS ranks: a ping-pong of MPI_Send / MPI_Recv between rank
pairs, each message matched, every 64th exchange an MPI_Isend / MPI_Irecv /
MPI_Waitall; then runs ``mpiscope trace export`` on it in a child process
and reports the child's wall time and peak resident memory (ru_maxrss from
wait4). The exports stream, so the peak should not grow with N.

    python bench/trace_export_scale.py                     # N = 1e5, 1e6, 1e7
    python bench/trace_export_scale.py --calls 1e5 --format chrome perfetto
    python bench/trace_export_scale.py --calls 1e5 1e6 --format heatmap   # trace heatmap -o PNG
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpiscope.trace.reader import CLASS_NAMES, NONE, RECORD_DTYPE  # noqa: E402

FUNCS = [("", "other"), ("MPI_Init", "init"), ("MPI_Finalize", "finalize"),
         ("MPI_Send", "send"), ("MPI_Recv", "recv"), ("MPI_Isend", "isend"),
         ("MPI_Irecv", "irecv"), ("MPI_Waitall", "completion")]
FN = {name: i for i, (name, _) in enumerate(FUNCS)}
WORLD = 0x44000000
BLOCK = 65536
F_PART, F_COMPLETED, F_REQUEST_NEW = 0x2, 0x4, 0x10


def _chunk(tag: str, payload: bytes) -> bytes:
    return (tag.encode() + b"\0" * 4 + struct.pack("<Q", len(payload)) + payload
            + b"\0" * (-len(payload) % 8))


def _records(rank: int, exchanges: int) -> np.ndarray:
    """A rank's records: Init, `exchanges` ping-pongs with its partner, Finalize.
    Each exchange is 2 calls (send then receive, or receive then send) taking
    1 us each, 0.5 us apart; every 64th is Isend + Irecv + Waitall (2 parts)."""
    peer = rank ^ 1
    first = rank % 2 == 0  # even ranks send first
    per = np.full(exchanges, 2)
    nonblocking = np.arange(exchanges) % 64 == 63
    per[nonblocking] = 5  # Isend, Irecv, Waitall and its two completed parts
    n = int(per.sum()) + 2
    rec = np.zeros(n, RECORD_DTYPE)
    rec["comm"], rec["peer"], rec["tag"], rec["root"] = WORLD, peer, 7, NONE
    rec["bytes"], rec["site"] = 8, 0x401000 + rank
    starts = np.concatenate([[0], np.cumsum(per)])[:-1] + 1
    t = 1000 + np.arange(exchanges, dtype=np.uint64) * 3000  # ns per exchange
    blocking = ~nonblocking
    b = starts[blocking]
    tb = t[blocking]
    rec["func"][b] = FN["MPI_Send"] if first else FN["MPI_Recv"]
    rec["func"][b + 1] = FN["MPI_Recv"] if first else FN["MPI_Send"]
    rec["t_enter"][b], rec["t_exit"][b] = tb, tb + 1000
    rec["t_enter"][b + 1], rec["t_exit"][b + 1] = tb + 1500, tb + 2500
    nb, tn = starts[nonblocking], t[nonblocking]
    handles = 0x90000000 + np.arange(len(nb), dtype=np.uint64) * 2
    rec["func"][nb], rec["func"][nb + 1] = FN["MPI_Isend"], FN["MPI_Irecv"]
    rec["request"][nb], rec["request"][nb + 1] = handles, handles + 1
    rec["flags"][nb], rec["flags"][nb + 1] = F_REQUEST_NEW, F_REQUEST_NEW
    rec["t_enter"][nb], rec["t_exit"][nb] = tn, tn + 200
    rec["t_enter"][nb + 1], rec["t_exit"][nb + 1] = tn + 300, tn + 500
    for k in (2, 3, 4):
        rec["func"][nb + k] = FN["MPI_Waitall"]
        rec["t_enter"][nb + k], rec["t_exit"][nb + k] = tn + 600, tn + 2500
    rec["peer"][nb + 2], rec["tag"][nb + 2], rec["bytes"][nb + 2] = NONE, NONE, -1
    rec["flags"][nb + 3] = F_PART | F_COMPLETED
    rec["flags"][nb + 4] = F_PART | F_COMPLETED
    rec["request"][nb + 3], rec["request"][nb + 4] = handles, handles + 1
    end = 1000 + exchanges * 3000
    rec[0] = (1, 500, 0, 0, 0, -1, NONE, NONE, NONE, FN["MPI_Init"], 0)
    rec[-1] = (end, end + 500, 0, 0, 0, -1, NONE, NONE, NONE, FN["MPI_Finalize"], 0)
    return rec


def write_trace(directory: Path, calls: int, ranks: int) -> int:
    """A trace of about `calls` calls in all; returns the records written."""
    directory.mkdir(parents=True, exist_ok=True)
    exchanges = max(1, calls // ranks // 2)
    total = 0
    names = b"".join(n.encode() + b"\0" for n, _ in FUNCS)
    classes = bytes(CLASS_NAMES.index(c) for _, c in FUNCS)
    for rank in range(ranks):
        meta = {"format": "mpiscope-trace", "version": 2, "rank": rank, "nprocs": ranks,
                "model": "world", "mpi_version": "4.1", "mpi_library": "synthetic",
                "timer": {"name": "monotonic", "source": "bench"}, "stamp": "ns",
                "ns_per_tick": 1.0, "origin_ticks": 0}
        members = list(range(ranks))
        comm = struct.pack("<QQQII", WORLD, 1, 0, 0, ranks) + struct.pack(f"<{ranks}i", *members)
        comm += b"\0" * (-len(comm) % 8)
        rec = _records(rank, exchanges)
        total += len(rec)
        with (directory / f"rank-{rank:05d}.mst").open("wb") as f:
            f.write(b"MPISCTRC" + struct.pack("<II", 2, 0x01020304))
            f.write(_chunk("META", json.dumps(meta).encode()))
            f.write(_chunk("FUNC", struct.pack("<II", len(FUNCS), 0) + classes
                           + b"\0" * (-len(classes) % 8) + names))
            f.write(_chunk("COMM", struct.pack("<II", 1, 0) + comm))
            for first in range(0, len(rec), BLOCK):
                part = rec[first:first + BLOCK]
                f.write(_chunk("THRD", struct.pack("<IIQQ", 0, 0, len(part), first)
                               + part.tobytes()))
            f.write(_chunk("END ", struct.pack("<IiQQQQ", 1, 0, 0, 0, 0, 0)))
    return total


def _write(trace: Path, calls: int, ranks: int) -> int:
    """Write the trace in a child: the exports are children of this process,
    and Linux reports as a child's peak RSS at least the parent's at exec."""
    out = subprocess.run([sys.executable, __file__, "--write-only", str(trace), "--calls",
                          str(calls), "--ranks", str(ranks)], capture_output=True, text=True,
                         check=True)
    return int(out.stdout)


def export(trace: Path, fmt: str, out: Path) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of `mpiscope trace export` in a child."""
    argv = [sys.executable, "-m", "mpiscope", "trace", "export", str(trace), "--format", fmt,
            "-o", str(out)]
    if fmt == "heatmap":  # not an export: the heat map's picture, from the same stream
        argv = [sys.executable, "-m", "mpiscope", "trace", "heatmap", str(trace), "-o", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().strip() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"export failed: {err}")
    return wall, usage.ru_maxrss / 1024.0, err


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=float, nargs="+", default=[1e5, 1e6, 1e7],
                        help="calls in all (records of main calls, about)")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--format", nargs="+", default=["perfetto"],
                        choices=["perfetto", "chrome", "otf2", "heatmap"])
    parser.add_argument("--dir", help="where to write (default: a temporary directory)")
    parser.add_argument("--write-only", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_only:  # the child that writes a trace (see _write)
        print(write_trace(Path(args.write_only), int(args.calls[0]), args.ranks))
        return 0
    base = Path(args.dir or tempfile.mkdtemp(prefix="mpiscope-export-scale-"))
    print(f"{'calls':>10} {'records':>10} {'format':>9} {'trace MB':>9} {'out MB':>8} "
          f"{'wall s':>8} {'records/s':>10} {'peak MB':>8}")
    try:
        for calls in args.calls:
            trace = base / f"n{int(calls)}.trace"
            records = _write(trace, int(calls), args.ranks)
            size = sum(f.stat().st_size for f in trace.iterdir()) / 1e6
            for fmt in args.format:
                out = base / f"n{int(calls)}.{fmt}{'.png' if fmt == 'heatmap' else ''}"
                wall, peak, _ = export(trace, fmt, out)
                out_mb = (sum(f.stat().st_size for f in out.rglob("*")) if out.is_dir()
                          else out.stat().st_size) / 1e6
                print(f"{int(calls):>10} {records:>10} {fmt:>9} {size:>9.1f} {out_mb:>8.1f} "
                      f"{wall:>8.1f} {records / wall:>10.0f} {peak:>8.0f}", flush=True)
                shutil.rmtree(out) if out.is_dir() else out.unlink()
            shutil.rmtree(trace)
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
