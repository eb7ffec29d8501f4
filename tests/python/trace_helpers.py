"""Helpers of the trace tests: synthetic trace files (format 2, or 1, written
here from docs/trace-format.md) and real traced runs of the examples."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

from mpiscope.mpi_profile import find_profiles
from mpiscope.trace.reader import CLASS_NAMES, NONE, RECORD_DTYPE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "trace"

# A small function table: id -> (name, class)
FUNCS = [("", "other"), ("MPI_Init", "init"), ("MPI_Finalize", "finalize"),
         ("MPI_Send", "send"), ("MPI_Recv", "recv"), ("MPI_Isend", "isend"),
         ("MPI_Irecv", "irecv"), ("MPI_Waitall", "completion"), ("MPI_Barrier", "collective"),
         ("MPI_Comm_rank", "other"), ("MPI_Isendrecv", "isendrecv"), ("MPI_Wait", "completion")]
FN = {name: i for i, (name, _) in enumerate(FUNCS)}
WORLD = 0x44000000


def rec(func: str, t0: int, t1: int, *, comm: int = WORLD, peer: int = NONE, tag: int = NONE,
        nbytes: int = -1, request: int = 0, flags: int = 0, root: int = NONE,
        site: int = 0x1234) -> tuple:
    return (t0, t1, comm, request, site, nbytes, peer, tag, root, FN[func], flags)


def _chunk(tag: str, payload: bytes) -> bytes:
    pad = b"\0" * (-len(payload) % 8)
    return tag.encode() + b"\0" * 4 + struct.pack("<Q", len(payload)) + payload + pad


def write_rank(directory: Path, rank: int, nprocs: int, records: list[tuple], *,
               clocks: list[tuple[int, float, float]] | None = None,
               end: int | None = 1, comms: list[tuple[int, int, list[int]]] | None = None,
               truncate: int = 0, version: int = 2, block: int = 0,
               write_failures: int = 0, meta_extra: dict[str, Any] | None = None,
               clock_arrays: list[list[float]] | None = None) -> Path:
    """One rank file; clocks: (which, offset_ns, local_ns); comms: (handle, id, members);
    block: records per THRD block (format 2), 0 for one block."""
    meta = {"format": "mpiscope-trace", "version": version, "rank": rank, "nprocs": nprocs,
            "model": "world", "mpi_version": "4.1", "mpi_library": "synthetic",
            "timer": {"name": "monotonic", "source": "test"}, "stamp": "ns",
            "ns_per_tick": 1.0, "origin_ticks": 0, **(meta_extra or {})}
    body = _chunk("META", json.dumps(meta).encode())
    names = b"".join(n.encode() + b"\0" for n, _ in FUNCS)
    classes = bytes(CLASS_NAMES.index(c) for _, c in FUNCS)
    body += _chunk("FUNC", struct.pack("<II", len(FUNCS), 0) + classes
                   + b"\0" * (-len(classes) % 8) + names)
    arrays = clock_arrays or []  # offsets, rtt, residual (rank 0's file)
    for which, offset, local in clocks or []:
        body += _chunk("CLOK", struct.pack("<IIIIddddQ", which, nprocs, len(arrays), 0, offset,
                                            100.0, local, 1e6, 10)
                       + b"".join(struct.pack(f"<{nprocs}d", *a) for a in arrays))
    comm_payload = b""
    all_comms = comms or [(WORLD, 1, list(range(nprocs)))]
    for handle, cid, members in all_comms:
        comm_payload += struct.pack("<QQQII", handle, cid, 0, 0, len(members))
        comm_payload += struct.pack(f"<{len(members)}i", *members)
        comm_payload += b"\0" * (-len(comm_payload) % 8)
    body += _chunk("COMM", struct.pack("<II", len(all_comms), 0) + comm_payload)
    import numpy as np

    array = np.array(records, dtype=RECORD_DTYPE)
    step = block or max(1, len(array))
    for first in range(0, max(1, len(array)), step):
        part = array[first:first + step]
        body += _chunk("THRD", struct.pack("<IIQQ", 0, 0, len(part), first if version >= 2 else 0)
                       + part.tobytes())
    if end is not None:
        tail = struct.pack("<Q", write_failures) if version >= 2 else b""
        body += _chunk("END ", struct.pack("<IiQQQ", end, 0, 0, 0, 0) + tail)
    data = b"MPISCTRC" + struct.pack("<II", version, 0x01020304) + body
    path = directory / f"rank-{rank:05d}.mst"
    path.write_bytes(data[:len(data) - truncate] if truncate else data)
    return path


# --- real runs ---------------------------------------------------------------

def two_rank_trace(directory: Path) -> Path:
    """A synthetic trace in ``directory``: rank 0 sends rank 1 one 8-byte message."""
    directory.mkdir()
    write_rank(directory, 0, 2, [rec("MPI_Send", 100, 150, peer=1, tag=5, nbytes=8)])
    write_rank(directory, 1, 2, [rec("MPI_Recv", 90, 160, peer=0, tag=5, nbytes=8)])
    return directory


def profile_or_fail(name: str) -> Any:
    profiles = find_profiles()
    assert name in profiles, f"MPI '{name}' is not built: run `make MPI={name}`"
    return profiles[name]


def tracer_lib(name: str) -> str:
    """MPISCOPE_TRACE_LIB_<NAME> (a development build), else the profile's prefix."""
    override = os.environ.get(f"MPISCOPE_TRACE_LIB_{name.upper()}")
    lib = override or os.path.join(profile_or_fail(name).prefix, "lib", "libmpiscope-trace.so")
    assert os.path.isfile(lib), f"no tracer library for {name} at {lib}: run `make MPI={name}`"
    return lib


def build_example(name: str, mpi: str, out_dir: Path, source: Path | None = None) -> Path:
    """Compile examples/trace/<name>.c (or `source`) with the MPI's mpicc."""
    profile = profile_or_fail(mpi)
    exe = out_dir / f"{name}-{mpi}"
    if not exe.exists():
        src = source or EXAMPLES / f"{name}.c"
        subprocess.run([profile.mpicc, "-O1", "-g", str(src), "-o", str(exe), "-lm"], check=True,
                       capture_output=True)
    return exe


def mpiscope(*args: str, mpi: str, cwd: Path, timeout: float = 240,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ if env is None else env)
    full["MPISCOPE_TRACE_LIB"] = tracer_lib(mpi)
    return subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=full, check=False)


def plain_run(mpi: str, argv: list[str], cwd: Path,
              np_: int = 2) -> subprocess.CompletedProcess[str]:
    """The program without the tracer, launched the same way."""
    from mpiscope.launcher import build_env, mpiexec_command

    profile = profile_or_fail(mpi)
    return subprocess.run(mpiexec_command(profile, np_, oversubscribe=np_ > 2) + argv, cwd=cwd,
                          env=build_env(profile), capture_output=True, text=True, timeout=240,
                          check=False)
