"""Reading a trace: one ``rank-NNNNN.mst`` file per rank (docs/trace-format.md).

A file is a 16-byte preamble (magic ``MPISCTRC``, format version, byte-order
mark) and chunks: a 16-byte header (4-character tag, reserved, payload size)
and the payload padded to 8 bytes. A file cut short (a killed rank) is read
up to its last whole chunk and marked ``complete = False``.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mpiscope.errors import MpiscopeError

__all__ = [
    "CLASS_NAMES",
    "END_STATUS",
    "RECORD_DTYPE",
    "ClockPoint",
    "CommDef",
    "MapEntry",
    "RankTrace",
    "Trace",
    "read_rank_file",
    "read_trace",
]

MAGIC = b"MPISCTRC"
FORMAT_VERSION = 1
BYTE_ORDER_MARK = 0x01020304

RECORD_DTYPE = np.dtype([
    ("t_enter", "<u8"), ("t_exit", "<u8"), ("comm", "<u8"), ("request", "<u8"),
    ("site", "<u8"), ("bytes", "<i8"), ("peer", "<i4"), ("tag", "<i4"), ("root", "<i4"),
    ("func", "<u2"), ("flags", "<u2"),
])
assert RECORD_DTYPE.itemsize == 64

# record flags (src/tracer/trace_record.h)
F_ERROR, F_PART, F_COMPLETED, F_RECV_HALF = 0x1, 0x2, 0x4, 0x8
F_REQUEST_NEW, F_STARTED, F_MESSAGE, F_CANCELLED = 0x10, 0x20, 0x40, 0x80
NONE = -1000001
PEER_PROC_NULL, PEER_ANY_SOURCE, TAG_ANY = -1000002, -1000003, -1000004

CLASS_NAMES = (
    "other", "send", "recv", "sendrecv", "isend", "irecv", "send_init", "recv_init", "start",
    "completion", "collective", "icollective", "collective_init", "probe", "init", "finalize",
    "comm_create", "rma", "file", "isendrecv", "mrecv", "imrecv", "partitioned", "tool", "abort",
)
END_STATUS = {0: "none", 1: "finalized", 2: "signal", 3: "MPI_Abort", 4: "exit without finalize"}
COMM_F_INTER, COMM_F_LOCAL = 1, 2


@dataclass(frozen=True)
class ClockPoint:
    """One clock synchronisation: this rank's offset (global = local + offset)."""

    which: int  # 0 at the start, 1 at the end
    offset_ns: float
    rtt_min_ns: float
    local_ns: float  # local time (timer ns) of the synchronisation
    duration_ns: float
    exchanges: int
    offsets_ns: tuple[float, ...] = ()  # rank 0's file: every rank's
    rtt_all_ns: tuple[float, ...] = ()
    residual_ns: tuple[float, ...] = ()  # left right after the synchronisation
    drift_ns: tuple[float, ...] = ()  # end only: the start's offsets, measured again


@dataclass(frozen=True)
class CommDef:
    handle: int
    id: int
    created: int  # stamp
    flags: int
    members: tuple[int, ...]  # trace rank of each rank of the (remote) group


@dataclass(frozen=True)
class MapEntry:
    start: int
    end: int
    offset: int
    perms: str
    path: str


@dataclass
class RankTrace:
    path: Path
    meta: dict[str, Any]
    functions: list[str]
    classes: list[str]
    clocks: dict[int, ClockPoint]
    comms: list[CommDef]
    records: np.ndarray  # RECORD_DTYPE plus "thread"
    dropped: int
    maps: list[MapEntry]
    end_status: str
    end_code: int
    end_stamp: int
    complete: bool  # every chunk whole and an END chunk present

    @property
    def rank(self) -> int:
        return int(self.meta["rank"])

    def local_ns(self, stamps: np.ndarray) -> np.ndarray:
        """Stamps (ticks or ns) as nanoseconds of this rank's timer."""
        values = np.asarray(stamps, dtype=np.uint64)
        if self.meta.get("stamp") == "ticks":
            origin = np.uint64(int(self.meta["origin_ticks"]))
            delta = (values - origin).astype(np.int64).astype(np.float64)
            return delta * float(self.meta["ns_per_tick"])
        return values.astype(np.float64)


@dataclass
class Trace:
    directory: Path
    ranks: list[RankTrace] = field(default_factory=list)
    missing_ranks: list[int] = field(default_factory=list)

    @property
    def nprocs(self) -> int:
        return int(self.ranks[0].meta["nprocs"]) if self.ranks else 0


def read_trace(path: str | Path) -> Trace:
    """Every rank file of a trace directory."""
    directory = Path(path)
    if not directory.is_dir():
        raise MpiscopeError(f"{directory} is not a trace directory (mpiscope trace -o DIR ...)")
    files = sorted(directory.glob("rank-*.mst"))
    if not files:
        raise MpiscopeError(f"{directory} holds no rank-*.mst file: not a trace, or the "
                            "program never initialised MPI under the tracer")
    trace = Trace(directory, [read_rank_file(f) for f in files])
    trace.ranks.sort(key=lambda r: r.rank)
    have = {r.rank for r in trace.ranks}
    trace.missing_ranks = [r for r in range(trace.nprocs) if r not in have]
    return trace


def _chunks(data: bytes, path: Path) -> tuple[list[tuple[str, bytes]], bool]:
    if len(data) < 16 or data[:8] != MAGIC:
        raise MpiscopeError(f"{path} is not an mpiscope trace file")
    version, bom = struct.unpack_from("<II", data, 8)
    if bom != BYTE_ORDER_MARK:
        raise MpiscopeError(f"{path} was written with another byte order")
    if version != FORMAT_VERSION:
        raise MpiscopeError(f"{path} has trace format version {version}; this mpiscope reads "
                            f"version {FORMAT_VERSION}")
    chunks: list[tuple[str, bytes]] = []
    at, whole = 16, True
    while at + 16 <= len(data):
        tag = data[at:at + 4].decode("ascii", "replace")
        (size,) = struct.unpack_from("<Q", data, at + 8)
        if at + 16 + size > len(data):
            whole = False
            break
        chunks.append((tag, data[at + 16:at + 16 + size]))
        at += 16 + (size + 7) // 8 * 8
    if at < len(data) and whole and at + 16 > len(data):
        whole = False
    return chunks, whole


def _functions(payload: bytes) -> tuple[list[str], list[str]]:
    (count,) = struct.unpack_from("<I", payload, 0)
    classes_at = 8
    names_at = classes_at + (count + 7) // 8 * 8
    codes = payload[classes_at:classes_at + count]
    names = payload[names_at:].split(b"\0")[:count]
    classes = [CLASS_NAMES[c] if c < len(CLASS_NAMES) else "other" for c in codes]
    return [n.decode("ascii", "replace") for n in names], classes


def _clock(payload: bytes) -> ClockPoint:
    which, nprocs, narrays, _ = struct.unpack_from("<IIII", payload, 0)
    offset, rtt, local, duration = struct.unpack_from("<dddd", payload, 16)
    (exchanges,) = struct.unpack_from("<Q", payload, 48)
    arrays = []
    for i in range(narrays):
        start = 56 + i * nprocs * 8
        arrays.append(tuple(struct.unpack_from(f"<{nprocs}d", payload, start)))
    while len(arrays) < 4:
        arrays.append(())
    return ClockPoint(which, offset, rtt, local, duration, exchanges, *arrays)


def _comms(payload: bytes) -> list[CommDef]:
    (count,) = struct.unpack_from("<I", payload, 0)
    at, comms = 8, []
    for _ in range(count):
        handle, cid, created, flags, size = struct.unpack_from("<QQQII", payload, at)
        at += 32
        members = struct.unpack_from(f"<{size}i", payload, at)
        at += (size * 4 + 7) // 8 * 8
        comms.append(CommDef(handle, cid, created, flags, tuple(members)))
    return comms


def _maps(payload: bytes) -> list[MapEntry]:
    entries = []
    for line in payload.decode("utf-8", "replace").splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6 or "x" not in parts[1] or not parts[5].startswith("/"):
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        entries.append(MapEntry(start, end, int(parts[2], 16), parts[1], parts[5]))
    return entries


def read_rank_file(path: str | Path) -> RankTrace:
    """One rank's file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MpiscopeError(f"cannot read {path}: {exc.strerror or exc}") from None
    chunks, whole = _chunks(data, path)
    meta: dict[str, Any] | None = None
    functions: list[str] = []
    classes: list[str] = []
    clocks: dict[int, ClockPoint] = {}
    comms: list[CommDef] = []
    threads: list[np.ndarray] = []
    dropped = 0
    maps: list[MapEntry] = []
    end: tuple[int, int, int, int, int] | None = None
    for tag, payload in chunks:
        if tag == "META":
            try:
                meta = json.loads(payload.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise MpiscopeError(f"{path}: unreadable header: {exc}") from None
        elif tag == "FUNC":
            functions, classes = _functions(payload)
        elif tag == "CLOK":
            point = _clock(payload)
            clocks[point.which] = point
        elif tag == "COMM":
            comms = _comms(payload)
        elif tag == "THRD":
            index, _, count, lost = struct.unpack_from("<IIQQ", payload, 0)
            records = np.frombuffer(payload, RECORD_DTYPE, count=count, offset=24)
            with_thread = np.empty(count, dtype=RECORD_DTYPE.descr + [("thread", "<u4")])
            for name in RECORD_DTYPE.names or ():
                with_thread[name] = records[name]
            with_thread["thread"] = index
            threads.append(with_thread)
            dropped += lost
        elif tag == "MAPS":
            maps = _maps(payload)
        elif tag == "END ":
            end = struct.unpack_from("<IiQQQ", payload, 0)
    if meta is None or not functions:
        raise MpiscopeError(f"{path} is cut short before its header: no readable trace")
    records = (np.concatenate(threads) if threads
               else np.empty(0, dtype=RECORD_DTYPE.descr + [("thread", "<u4")]))
    records = records[records["t_enter"] != 0]  # a slot taken but never stamped
    order = np.argsort(records["t_enter"], kind="stable")
    status, code, stamp = "none", 0, 0
    if end:
        status, code, stamp = END_STATUS.get(end[0], "none"), end[1], end[2]
        dropped += end[4]
    return RankTrace(path, meta, functions, classes, clocks, comms, records[order], dropped, maps,
                     status, code, stamp, whole and end is not None)
