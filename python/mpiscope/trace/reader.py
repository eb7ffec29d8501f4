"""Reading a trace: one ``rank-NNNNN.mst`` file per rank (docs/trace-format.md).

A file is a 16-byte preamble (magic ``MPISCTRC``, format version, byte-order
mark) and chunks: a 16-byte header (4-character tag, reserved, payload size)
and the payload padded to 8 bytes. The tracer streams the file (format 2):
records come in THRD blocks as buffers fill. A file cut short (a killed
rank, a full disk) is read up to the cut, records of a block cut mid-way
included, and says what is missing (``RankTrace.cut``); a corrupt file is
one :class:`MpiscopeError`, never a traceback.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from mpiscope.errors import MpiscopeError
from mpiscope.inputs import check_input

__all__ = [
    "CLASS_NAMES",
    "END_STATUS",
    "RECORD_DTYPE",
    "ClockPoint",
    "CommDef",
    "MapEntry",
    "RankTrace",
    "Trace",
    "check_rank_file",
    "read_rank_file",
    "read_trace",
    "run_records",
]

MAGIC = b"MPISCTRC"
FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
BYTE_ORDER_MARK = 0x01020304

RECORD_DTYPE = np.dtype([
    ("t_enter", "<u8"), ("t_exit", "<u8"), ("comm", "<u8"), ("request", "<u8"),
    ("site", "<u8"), ("bytes", "<i8"), ("peer", "<i4"), ("tag", "<i4"), ("root", "<i4"),
    ("func", "<u2"), ("flags", "<u2"),
])
assert RECORD_DTYPE.itemsize == 64
THREAD_RECORD_DTYPE = np.dtype(RECORD_DTYPE.descr + [("thread", "<u4")])
#: A record after its two stamps: what a THRC block keeps once per distinct value.
TAIL_DTYPE = np.dtype(RECORD_DTYPE.descr[2:])
assert TAIL_DTYPE.itemsize == 48
#: The head of a THRC block's payload: the THRD head's 24 bytes, then these.
PACKED_HEAD = struct.Struct("<IIQQIIIIQ")
ESCAPE = 0xFFFFFFFF
RECORD_BLOCKS = ("THRD", "THRC")
BLOCK_HEAD = struct.Struct("<IIQQ")  # thread index, 0, records, first sequence number

# record flags (src/tracer/trace_record.h, the source: test_trace_constants.py compares)
F_ERROR, F_PART, F_COMPLETED, F_RECV_HALF = 0x1, 0x2, 0x4, 0x8
F_REQUEST_NEW, F_STARTED, F_MESSAGE, F_CANCELLED = 0x10, 0x20, 0x40, 0x80
F_WINDOW, F_WINDOW_NEW, F_GROUP, F_TRUE = 0x100, 0x200, 0x400, 0x800
F_FILE, F_OFFSET = 0x1000, 0x2000
NONE = -1000001
PEER_PROC_NULL, PEER_ANY_SOURCE, TAG_ANY = -1000002, -1000003, -1000004

CLASS_NAMES = (
    "other", "send", "recv", "sendrecv", "isend", "irecv", "send_init", "recv_init", "start",
    "completion", "collective", "icollective", "collective_init", "probe", "init", "finalize",
    "comm_create", "rma", "file", "isendrecv", "mrecv", "imrecv", "partitioned", "tool", "abort",
)
END_STATUS = {0: "none", 1: "finalized", 2: "signal", 3: "MPI_Abort", 4: "exit without finalize"}
CORRUPT = (struct.error, ValueError, IndexError, KeyError, TypeError, OverflowError,
           UnicodeDecodeError)
COMM_F_INTER, COMM_F_LOCAL = 1, 2


@dataclass(frozen=True)
class ClockPoint:
    """One clock synchronization: this rank's offset (global = local + offset)."""

    which: int  # 0 at the start, 1 at the end
    offset_ns: float
    rtt_min_ns: float
    local_ns: float  # local time (timer ns) of the synchronization
    duration_ns: float
    exchanges: int
    offsets_ns: tuple[float, ...] = ()  # rank 0's file: every rank's
    rtt_all_ns: tuple[float, ...] = ()
    residual_ns: tuple[float, ...] = ()  # left right after the synchronization
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
    cut: str = ""  # where and how the file is cut short, "" when it is not
    write_failures: int = 0  # writes the tracer could not make (END chunk)
    lost_records: int = 0  # records of blocks missing from the file (a gap, a hole)
    # read with records=False: per thread, the runs of records to read, in
    # sequence order (sequence number, count, file offset of the first record)
    segments: dict[int, list[tuple[int, int, Where]]] = field(default_factory=dict)

    def short_reason(self) -> str:
        """Why this file lacks data the tracer meant to write ("" when it does not)."""
        reasons = []
        if self.write_failures:
            reasons.append(f"{self.write_failures} write(s) failed")
        if self.cut:
            reasons.append(self.cut)
        elif self.end_status == "none":
            reasons.append("no END chunk")
        if self.lost_records:
            reasons.append(f"{self.lost_records} record(s) missing")
        return "; ".join(reasons)

    @property
    def rank(self) -> int:
        return int(self.meta["rank"])

    def local_ns(self, stamps: np.ndarray) -> np.ndarray:
        """Stamps (ticks or ns) as nanoseconds of this rank's timer."""
        values = np.asarray(stamps, dtype=np.uint64)
        if self.meta.get("stamp") == "ticks":
            origin = np.uint64(self.meta["origin_ticks"])
            delta = (values - origin).astype(np.int64).astype(np.float64)
            return delta * float(self.meta["ns_per_tick"])
        return values.astype(np.float64)


@dataclass
class Trace:
    directory: Path
    ranks: list[RankTrace] = field(default_factory=list)
    missing_ranks: list[int] = field(default_factory=list)
    worlds: list[Path] = field(default_factory=list)  # other_worlds(directory)

    @property
    def nprocs(self) -> int:
        return int(self.ranks[0].meta["nprocs"]) if self.ranks else 0


def read_trace(path: str | Path, records: bool = True) -> Trace:
    """Every rank file of a trace directory (``records``: see read_rank_file)."""
    directory = Path(path)
    if not directory.is_dir():
        raise MpiscopeError(f"{directory} is not a trace directory (mpiscope trace -o DIR ...)")
    files = sorted(directory.glob("rank-*.mst"))
    if not files:
        raise MpiscopeError(f"{directory} holds no rank-*.mst file: not a trace, or the "
                            "program never initialized MPI under the tracer")
    trace = Trace(directory, [read_rank_file(f, records) for f in files])
    trace.ranks.sort(key=lambda r: r.rank)
    have = [r.rank for r in trace.ranks]
    if len(set(have)) != len(have) or any(r.meta["nprocs"] != trace.nprocs for r in trace.ranks):
        raise MpiscopeError(f"{directory}: its rank files disagree (two files of one rank, or "
                            "different numbers of ranks): not one trace")
    trace.missing_ranks = [r for r in range(trace.nprocs) if r not in have]
    trace.worlds = other_worlds(directory)
    return trace


def other_worlds(directory: Path) -> list[Path]:
    """The traces of the MPI worlds after the first in a trace directory, in
    the order they started: DIR/world-K (K from 1), each a trace of its own
    (jobs the program started with MPI_Comm_spawn, or another run into DIR)."""
    found = [(int(d.name[6:]), d) for d in directory.glob("world-*")
             if d.name[6:].isdigit() and d.is_dir()]
    return [d for _, d in sorted(found)]


@dataclass
class _Chunk:
    tag: str
    payload: bytes  # shorter than size for a chunk cut by the end of the file
    size: int  # declared payload size
    at: int  # file offset of the header
    available: int = -1  # lazy THRD/THRC: payload bytes in the file (payload holds its head)


def _chunks(data: bytes | _FileBytes, path: Path,
            lazy: bool = False) -> tuple[list[_Chunk], str, int]:
    """The chunks, how the file is cut ("" when it is not) and bytes of holes skipped.

    A hole (zero bytes where a chunk should start) is a range the tracer
    reserved and could not write (a full disk that later had room again).
    """
    if len(data) < 16 or data[:8] != MAGIC:
        raise MpiscopeError(f"{path} is not an mpiscope trace file")
    version, bom = struct.unpack("<II", data[8:16])
    if bom != BYTE_ORDER_MARK:
        raise MpiscopeError(f"{path} was written with another byte order")
    if version not in READABLE_VERSIONS:
        raise MpiscopeError(f"{path} has trace format version {version}; this mpiscope reads "
                            f"versions {', '.join(map(str, READABLE_VERSIONS))}")
    chunks: list[_Chunk] = []
    at, cut, holes = 16, "", 0
    zeros = bytes(8)
    while at < len(data):
        if version >= 2 and data[at:at + 8] == zeros:
            at, holes = at + 8, holes + 8
            continue
        if at + 16 > len(data):
            cut = f"cut at byte {len(data)} inside a chunk header"
            break
        tag = _tag(data[at:at + 4])
        if not tag:
            cut = _not_a_chunk(at)
            break
        (size,) = struct.unpack("<Q", data[at + 8:at + 16])
        if lazy and tag in RECORD_BLOCKS:  # its head only: records are read later
            head = data[at + 16:at + 16 + min(size, PACKED_HEAD.size)]
            chunks.append(_Chunk(tag, bytes(head), size, at))
            if at + 16 + size > len(data):
                cut = f"cut at byte {len(data)} inside its {tag} chunk"
                chunks[-1].available = len(data) - at - 16
                break
            chunks[-1].available = size
            at += 16 + _padded(size)
            continue
        if at + 16 + size > len(data):
            chunks.append(_Chunk(tag, bytes(data[at + 16:]), size, at))
            cut = f"cut at byte {len(data)} inside its {tag.strip()} chunk"
            break
        chunks.append(_Chunk(tag, bytes(data[at + 16:at + 16 + size]), size, at))
        at += 16 + _padded(size)
    return chunks, cut, holes


def _padded(size: int) -> int:
    """Bytes of a payload or column of `size` bytes padded to 8, as the file has them."""
    return (size + 7) // 8 * 8


def _tag(raw: bytes) -> str:
    """A chunk's tag, "" when the 4 bytes are not one (not printable ASCII)."""
    return raw.decode("ascii") if len(raw) == 4 and all(32 <= b < 127 for b in raw) else ""


def _not_a_chunk(at: int) -> str:
    return (f"corrupt from byte {at} (no chunk header there: the file was overwritten, "
            "e.g. by another process writing the same rank file)")


def check_rank_file(path: Path) -> str:
    """Why a rank file lacks data the tracer meant to write ("" when it does
    not): a cut, a hole of a failed write, no END chunk, failed writes the
    END chunk counts. Reads the chunk headers only (a trace may be large)."""
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(16)
        if len(head) < 16 or head[:8] != MAGIC:
            return "not an mpiscope trace file"
        (version,) = struct.unpack_from("<I", head, 8)
        at, end, holes = 16, b"", 0
        while at < size:
            f.seek(at)
            header = f.read(16)
            if version >= 2 and header[:8] == bytes(8):
                at, holes = at + 8, holes + 8
                continue
            if len(header) < 16:
                return f"cut at byte {size} inside a chunk header"
            (length,) = struct.unpack_from("<Q", header, 8)
            tag = _tag(header[:4])
            if not tag:
                return _not_a_chunk(at)
            if at + 16 + length > size:
                return f"cut at byte {size} inside its {tag} chunk"
            if header[:4] == b"END ":
                end = f.read(min(length, 40))
            at += 16 + _padded(length)
    if holes:
        return f"{holes} bytes were never written (a write failed)"
    if not end:
        return "no END chunk (the rank was killed, or the file could not be written)"
    failures = struct.unpack_from("<Q", end, 32)[0] if version >= 2 and len(end) >= 40 else 0
    return f"{failures} write(s) failed" if failures else ""


def _functions(payload: bytes) -> tuple[list[str], list[str]]:
    (count,) = struct.unpack_from("<I", payload, 0)
    classes_at = 8
    names_at = classes_at + _padded(count)
    codes = payload[classes_at:classes_at + count]
    names = payload[names_at:].split(b"\0")[:count]
    if len(codes) != count or len(names) != count:
        raise ValueError(f"a function table of {count} holds {len(names)} names")
    classes = [CLASS_NAMES[c] if c < len(CLASS_NAMES) else "other" for c in codes]
    return [n.decode("ascii", "replace") for n in names], classes


def _clock(payload: bytes) -> ClockPoint:
    which, nprocs, narrays, _ = struct.unpack_from("<IIII", payload, 0)
    if which > 1 or narrays > 4 or 56 + narrays * nprocs * 8 > len(payload):
        raise ValueError(f"clock {which} of {narrays} arrays of {nprocs}")
    offset, rtt, local, duration = struct.unpack_from("<dddd", payload, 16)
    if not all(math.isfinite(x) for x in (offset, rtt, local, duration)):
        raise ValueError("a clock value is not a number")
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
    if count > len(payload) // 32:
        raise ValueError(f"{count} communicators in {len(payload)} bytes")
    for _ in range(count):
        handle, cid, created, flags, size = struct.unpack_from("<QQQII", payload, at)
        at += 32
        members = struct.unpack_from(f"<{size}i", payload, at)
        at += _padded(size * 4)
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


def _meta(payload: bytes, path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MpiscopeError(f"{path}: unreadable header: {exc}") from None
    if not isinstance(meta, dict):
        raise MpiscopeError(f"{path}: its header is not a JSON object")
    needed: dict[str, type | tuple[type, ...]] = {"rank": int, "nprocs": int}
    if meta.get("stamp") == "ticks":
        needed.update(origin_ticks=int, ns_per_tick=(int, float))
    for key, kind in needed.items():
        value = meta.get(key)
        if (not isinstance(value, (int, float)) or not isinstance(value, kind)
                or isinstance(value, bool) or value < 0):
            raise MpiscopeError(f"{path}: its header has no valid {key!r}")
    if (meta["rank"] >= meta["nprocs"] or meta["nprocs"] > 1 << 24
            or meta.get("origin_ticks", 0) >= 1 << 64):
        raise MpiscopeError(f"{path}: its header's rank, nprocs or origin_ticks is impossible")
    return meta


@dataclass(frozen=True)
class Packed:
    """Where a THRC block's records are: its payload's offset and size in the
    file, and how many of its records come before the run."""

    offset: int
    size: int
    start: int = 0

    def skip(self, k: int) -> Packed:
        return Packed(self.offset, self.size, self.start + k)


#: Where a run of records is in a file: a raw run's offset, or a packed block.
Where = int | Packed


def unpack_block(payload: bytes) -> np.ndarray:
    """A THRC block's records (RECORD_DTYPE), from its payload: the 48 bytes
    after the stamps of each distinct record once (a table), then per record
    a 16-bit code into it, the 32-bit step from the previous record's enter
    stamp and the 32-bit duration, each ``ESCAPE`` when it is one of the
    exceptions kept whole after them (steps: the step; durations: the exit
    stamp). docs/trace-format.md."""
    (_, _, n, _, ntemplates, nenter, nexit, _, base) = PACKED_HEAD.unpack_from(payload, 0)
    at = PACKED_HEAD.size
    need = at + ntemplates * 48 + _padded(2 * n) + 2 * _padded(4 * n) + 8 * (nenter + nexit)
    if n > 1 << 40 or ntemplates > n or need != len(payload):
        raise ValueError(f"a THRC block of {n} records and {ntemplates} kinds in "
                         f"{len(payload)} bytes")
    templates = np.frombuffer(payload, TAIL_DTYPE, ntemplates, at)
    at += ntemplates * 48
    codes = np.frombuffer(payload, "<u2", n, at)
    at += _padded(2 * n)
    steps = np.frombuffer(payload, "<u4", n, at).astype(np.uint64)
    at += _padded(4 * n)
    spans = np.frombuffer(payload, "<u4", n, at).astype(np.uint64)
    at += _padded(4 * n)
    enter_exc = np.frombuffer(payload, "<u8", nenter, at)
    exit_exc = np.frombuffer(payload, "<u8", nexit, at + 8 * nenter)
    if n and int(codes.max()) >= ntemplates:
        raise ValueError(f"a THRC record names kind {int(codes.max())} of {ntemplates}")
    out = np.empty(n, RECORD_DTYPE)
    tails = templates[codes]
    for name in TAIL_DTYPE.names or ():
        out[name] = tails[name]
    enter_escaped, exit_escaped = steps == ESCAPE, spans == ESCAPE
    if int(enter_escaped.sum()) != nenter or int(exit_escaped.sum()) != nexit:
        raise ValueError("a THRC block's exceptions do not match its escapes")
    steps[enter_escaped] = enter_exc
    with np.errstate(over="ignore"):  # stamps are modulo 2**64, as the tracer wrote them
        out["t_enter"] = np.uint64(base) + np.cumsum(steps, dtype=np.uint64)
        exits = out["t_enter"] + spans
    exits[exit_escaped] = exit_exc  # the exit stamp itself (0: the call had not returned)
    out["t_exit"] = exits
    return out


def run_records(f: BinaryIO, where: Where, count: int, chunk: int) -> Iterator[np.ndarray]:
    """The ``count`` records of a run of a rank file open as ``f`` (RECORD_DTYPE,
    at most ``chunk`` at a time), where :meth:`RankTrace.segments` says they are."""
    if isinstance(where, Packed):
        f.seek(where.offset)
        try:
            records = unpack_block(f.read(where.size))[where.start:where.start + count]
        except CORRUPT as exc:
            raise MpiscopeError(f"{f.name}: corrupt trace file ({exc})") from None
        for k in range(0, count, chunk):
            yield records[k:k + chunk]
        return
    for k in range(0, count, chunk):
        f.seek(where + k * RECORD_DTYPE.itemsize)
        yield np.fromfile(f, RECORD_DTYPE, min(chunk, count - k))


class _Threads:
    """A thread's THRD blocks: each record once, by its sequence number; a
    record written twice (the current records before the final clock
    synchronization, a block cut by a signal) is taken from its last copy."""

    def __init__(self) -> None:
        self.blocks: dict[int, list[tuple[int, Any]]] = {}  # (records or offset, count)
        self.next_first: dict[int, int] = {}  # format 1: blocks follow each other
        self.missing = 0  # records a cut block announced but the file lacks

    def add(self, chunk: _Chunk, version: int) -> int:
        """Add a THRD or THRC chunk; returns records the writer counted as dropped (format 1)."""
        if len(chunk.payload) < BLOCK_HEAD.size:
            return 0  # cut before it says what it holds (a full disk): the file is partial
        index, _, count, fourth = BLOCK_HEAD.unpack_from(chunk.payload, 0)
        length = chunk.available if chunk.available >= 0 else len(chunk.payload)
        records: np.ndarray | int | Packed
        if chunk.tag == "THRC":  # packed: whole, or of no use
            n = count if length >= chunk.size else 0
            records = (Packed(chunk.at + 16, chunk.size) if chunk.available >= 0 else
                       unpack_block(chunk.payload[:chunk.size]) if n else np.empty(0, RECORD_DTYPE))
        else:
            n = min(count, max(0, length - BLOCK_HEAD.size) // RECORD_DTYPE.itemsize)
            records = (chunk.at + 16 + BLOCK_HEAD.size if chunk.available >= 0 else
                       np.frombuffer(chunk.payload, RECORD_DTYPE, count=n, offset=BLOCK_HEAD.size))
        self.missing += count - n
        first = fourth if version >= 2 else self.next_first.get(index, 0)
        if first > 1 << 62:
            raise ValueError(f"a {chunk.tag} block starts at record {first}")
        self.next_first[index] = first + n
        self.blocks.setdefault(index, []).append((first, (records, n)))
        return 0 if version >= 2 else fourth

    def _runs(self, advance: Callable[[Any, int], Any]) -> Iterator[tuple[int, list, int]]:
        """Per thread: (index, runs, gaps). Runs are (first sequence number,
        count, where) covering each record once, from its last copy, in
        sequence order; `advance(where, k)` is where the k-th record of a run
        is; gaps: how many sequence numbers no block holds."""
        for index, blocks in sorted(self.blocks.items()):
            runs: list[tuple[int, int, Any]] = []  # disjoint, painted in file order
            for first, (where, n) in blocks:
                if not n:
                    continue
                end, kept = first + n, []
                for s, c, w in runs:
                    if s < first:
                        kept.append((s, min(c, first - s), w))
                    if s + c > end:
                        cut = max(end - s, 0)
                        kept.append((s + cut, c - cut, advance(w, cut)))
                runs = kept + [(first, n, where)]
            runs.sort(key=lambda run: run[0])
            if runs:
                yield index, runs, runs[-1][0] + runs[-1][1] - sum(c for _, c, _ in runs)

    def segments(self) -> tuple[dict[int, list[tuple[int, int, Where]]], int]:
        """Lazy blocks: per thread, (first sequence number, count, where in the
        file: :func:`run_records`) runs (:meth:`_runs`); and how many sequence
        numbers no block holds."""
        size = RECORD_DTYPE.itemsize
        out, gaps = {}, 0
        for index, runs, missing in self._runs(
                lambda w, k: w + k * size if isinstance(w, int) else w.skip(k)):
            out[index] = runs
            gaps += missing
        return out, gaps

    def records(self, path: Path, nfunc: int) -> tuple[np.ndarray, int]:
        """All records (:func:`thread_records`) and how many are missing between blocks."""
        parts, gaps = [], 0
        for index, runs, missing in self._runs(lambda records, k: records[k:]):
            raw = np.concatenate([r[:c] for _, c, r in runs])
            parts.append(thread_records(raw, index, path, nfunc))
            gaps += missing
        return (np.concatenate(parts) if parts else np.empty(0, THREAD_RECORD_DTYPE)), gaps


def thread_records(raw: np.ndarray, thread: int, path: Path, nfunc: int) -> np.ndarray:
    """A thread's records (RECORD_DTYPE) with its "thread" field, less the
    slots taken but never stamped; a function beyond the table of `nfunc` is
    a corrupt file."""
    raw = raw[raw["t_enter"] != 0]
    if len(raw) and int(raw["func"].max()) >= nfunc:
        raise MpiscopeError(f"{path}: corrupt trace file (a record names function "
                            f"{int(raw['func'].max())} of a table of {nfunc})")
    out = np.empty(len(raw), THREAD_RECORD_DTYPE)
    for name in RECORD_DTYPE.names or ():
        out[name] = raw[name]
    out["thread"] = thread
    # MPI_ANY_TAG is the MPI's own negative constant (-1 in MPICH and Open MPI),
    # which the tracer writes as given in a posted receive: any negative tag not
    # one of the tracer's codes is it (a real tag is >= 0).
    tags = out["tag"]
    out["tag"] = np.where((tags < 0) & (tags > NONE), TAG_ANY, tags)
    return out


class _FileBytes:
    """A file read as bytes only where sliced (pread): the chunk headers of a
    large trace without its records. A mapping of the file cost a third of
    the file's size in resident pages (the kernel maps the pages around each
    header it touches): 0.7-1.2 GB for a rank file of 2.3 GB."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDONLY)
        self.size = os.fstat(self.fd).st_size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, span: slice) -> bytes:
        start, stop, _ = span.indices(self.size)
        return os.pread(self.fd, max(0, stop - start), start)

    def close(self) -> None:
        os.close(self.fd)


def read_rank_file(path: str | Path, records: bool = True) -> RankTrace:
    """One rank's file; without ``records`` its records are not read, only where
    they are (``RankTrace.segments``, for :mod:`mpiscope.trace.stream`)."""
    path = check_input(path)  # a named pipe would block, a device never end
    try:
        data: bytes | _FileBytes = path.read_bytes() if records else _FileBytes(path)
        try:
            chunks, cut, holes = _chunks(data, path, lazy=not records)
            (version,) = struct.unpack("<I", data[8:12])
        finally:
            if isinstance(data, _FileBytes):
                data.close()
    except (OSError, ValueError) as exc:
        raise MpiscopeError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
                            ) from None
    try:
        return _rank_trace(path, version, chunks, cut, holes, records)
    except CORRUPT as exc:
        raise MpiscopeError(f"{path}: corrupt trace file ({type(exc).__name__}: {exc})") from None


def _rank_trace(path: Path, version: int, chunks: list[_Chunk], cut: str,
                holes: int, with_records: bool = True) -> RankTrace:
    meta: dict[str, Any] | None = None
    functions: list[str] = []
    classes: list[str] = []
    clocks: dict[int, ClockPoint] = {}
    comms: list[CommDef] = []
    threads = _Threads()
    dropped = 0
    maps: list[MapEntry] = []
    end: tuple[int, ...] | None = None
    for chunk in chunks:
        tag, payload = chunk.tag, chunk.payload
        if tag in RECORD_BLOCKS:
            dropped += threads.add(chunk, version)
            continue
        if len(payload) < chunk.size:
            continue  # any other chunk cut short is of no use
        if tag == "META":
            meta = _meta(payload, path)
        elif tag == "FUNC":
            functions, classes = _functions(payload)
        elif tag == "CLOK":
            point = _clock(payload)
            clocks[point.which] = point
        elif tag == "COMM":
            comms.extend(_comms(payload))
        elif tag == "MAPS":
            maps = _maps(payload)
        elif tag == "END ":
            end = struct.unpack_from("<IiQQQQ" if version >= 2 else "<IiQQQ", payload, 0)
    if meta is None or not functions:
        raise MpiscopeError(f"{path} is cut short before its header: no readable trace")
    nprocs = meta["nprocs"]
    if any(m < 0 or m >= nprocs for c in comms for m in c.members):
        raise MpiscopeError(f"{path}: corrupt trace file (a communicator names a rank beyond "
                            f"its {nprocs})")
    segments: dict[int, list[tuple[int, int, Where]]] = {}
    if with_records:
        records, gaps = threads.records(path, len(functions))
    else:
        segments, gaps = threads.segments()
        records = np.empty(0, THREAD_RECORD_DTYPE)
    order = np.argsort(records["t_enter"], kind="stable")
    status, code, stamp, failures = "none", 0, 0, 0
    if end:
        status, code, stamp = END_STATUS.get(end[0], "none"), end[1], end[2]
        dropped += end[4] + (end[3] if version >= 2 else 0)  # format 1: THRD counted them
        failures = end[5] if len(end) > 5 else 0
    if cut and threads.missing:
        cut += f" ({threads.missing} record(s) of its last block are not there)"
    lost = gaps + (holes // RECORD_DTYPE.itemsize)
    return RankTrace(path, meta, functions, classes, clocks, comms, records[order], dropped, maps,
                     status, code, stamp, not cut and not holes and end is not None, cut=cut,
                     write_failures=failures + (1 if holes else 0), lost_records=lost,
                     segments=segments)
