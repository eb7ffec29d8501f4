"""Perfetto protobuf (open at https://ui.perfetto.dev, nothing to install).

One process track per rank, one thread track per thread of the rank, a
slice per MPI call (with its peer, tag, root, bytes as arguments) and a
flow, drawn as an arrow, from each send call to the call that completed the
matching receive. Written as the trace streams (:mod:`mpiscope.trace.stream`):
each packet is encoded here (the few fields of perfetto's trace.proto we
use, wire format by hand) and written at once, so memory does not grow with
the trace. The trace processor sorts packets by time itself.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

from mpiscope.trace.reader import NONE
from mpiscope.trace.stream import Call, Stream

__all__ = ["write_perfetto"]

# field numbers of protos/perfetto/trace/ (trace_packet.proto, track_event.proto, ...)
SLICE_BEGIN, SLICE_END = 1, 2


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32/int64: ten bytes, as protobuf does
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _fixed64(field: int, values: list[int]) -> bytes:
    tag = _varint(field << 3 | 1)
    return b"".join(tag + struct.pack("<Q", v) for v in values)


class _Writer:
    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.names: dict[str, bytes] = {}
        self.args = {key: _bytes(10, key.encode()) for key in ("peer", "tag", "root", "bytes")}

    def packet(self, body: bytes) -> None:
        self.f.write(_bytes(1, body))  # Trace.packet

    def track(self, uuid: int, parent: int, process: bytes, thread: bytes) -> None:
        desc = _int(1, uuid) + (_int(5, parent) if parent else b"")
        desc += _bytes(3, process) if process else _bytes(4, thread)
        self.packet(_bytes(60, desc))

    def call(self, call: Call, seq: bytes) -> None:
        track = _int(11, ((call.rank + 1) << 20) + call.thread + 1)
        name = self.names.get(call.name)
        if name is None:
            name = self.names[call.name] = _bytes(23, call.name.encode())
        event = _int(9, SLICE_BEGIN) + track + name
        for key, value in (("peer", call.peer), ("tag", call.tag), ("root", call.root),
                           ("bytes", call.bytes)):
            if value not in (NONE, -1) or (key == "bytes" and value >= 0):
                event += _bytes(4, self.args[key] + _int(4, value))
        if call.flows_out:
            event += _fixed64(47, call.flows_out)
        if call.flows_in:
            event += _fixed64(48, call.flows_in)
        self.packet(_int(8, int(call.start_ns)) + seq + _bytes(11, event))
        self.packet(_int(8, int(call.end_ns)) + seq + _bytes(11, _int(9, SLICE_END) + track))


def write_perfetto(stream: Stream, out: Path) -> int:
    """Write the trace; return the number of flows (message arrows)."""
    with out.open("wb") as f:
        w = _Writer(f)
        for rank in sorted(r.rank for r in stream.trace.ranks):
            pid = rank + 1
            proc = pid << 20
            w.track(proc, 0, _int(1, pid) + _bytes(6, f"rank {rank}".encode()), b"")
            for thread in stream.threads(rank):
                w.track(proc + thread + 1, proc, b"",
                        _int(1, pid) + _int(2, pid * 1000 + thread)
                        + _bytes(5, f"rank {rank} thread {thread}".encode()))
        seqs = {r.rank: _int(10, r.rank + 1) for r in stream.trace.ranks}
        for call in stream.calls():
            w.call(call, seqs[call.rank])
    return stream.messages
