"""Perfetto protobuf (open at https://ui.perfetto.dev, nothing to install).

One process track per rank, one thread track per thread of the rank, a
slice per MPI call (with its peer, tag, root, bytes as arguments) and a
flow, drawn as an arrow, from each send call to the call that completed the
matching receive, and from each collective instance's last arrival and
each one-sided operation to where they complete (:mod:`mpiscope.trace.matching`).
Written as the trace streams (:mod:`mpiscope.trace.stream`):
each packet is encoded here (the few fields of perfetto's trace.proto we
use, wire format by hand) and written at once, so memory does not grow with
the trace. The trace processor sorts packets by time itself.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import IO

from mpiscope import outputs
from mpiscope.trace.calls import Link
from mpiscope.trace.merge import Merged
from mpiscope.trace.reader import NONE
from mpiscope.trace.stream import Call, Stream, as_stream

__all__ = ["write_perfetto"]

# field numbers of protos/perfetto/trace/ (trace_packet.proto, track_event.proto, ...)
SLICE_BEGIN, SLICE_END, SLICE_INSTANT = 1, 2, 3


_SMALL = [bytes([v]) for v in range(128)]


def _varint(value: int) -> bytes:
    if 0 <= value < 128:
        return _SMALL[value]
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


# tags of the fields written for every call
PACKET, TIMESTAMP, TRACK_EVENT = _varint(1 << 3 | 2), _varint(8 << 3), _varint(11 << 3 | 2)
BEGIN, END = _int(9, SLICE_BEGIN), _int(9, SLICE_END)
FLOW_OUT, FLOW_IN = _varint(47 << 3 | 1), _varint(48 << 3 | 1)


class _Writer:
    def __init__(self, f: IO[bytes]) -> None:
        self.f = f
        self.names: dict[str, bytes] = {}
        self.tracks: dict[tuple[int, int], bytes] = {}
        self.args: dict[tuple[str, int], bytes] = {}  # annotations seen (bounded)
        self.keys = {key: _bytes(10, key.encode()) for key in ("peer", "tag", "root", "bytes")}

    def packet(self, body: bytes) -> None:
        self.f.write(PACKET + _varint(len(body)) + body)  # Trace.packet

    def track(self, uuid: int, parent: int, process: bytes, thread: bytes) -> None:
        desc = _int(1, uuid) + (_int(5, parent) if parent else b"")
        desc += _bytes(3, process) if process else _bytes(4, thread)
        self.packet(_bytes(60, desc))

    def mark(self, rank: int, ns: float, name: str, flow: int) -> None:
        """An instant on `rank`'s first thread where arrow `flow` ends (a
        passive-target transfer: the target makes no call)."""
        event = b"".join((_int(9, SLICE_INSTANT), _int(11, ((rank + 1) << 20) + 1),
                          _bytes(23, name.encode()), FLOW_IN + struct.pack("<Q", flow)))
        self.packet(b"".join((TIMESTAMP, _varint(int(ns)), _int(10, rank + 1), TRACK_EVENT,
                              _varint(len(event)), event)))

    def _arg(self, key: str, value: int) -> bytes:
        found = self.args.get((key, value))
        if found is None:
            if len(self.args) > 1 << 14:
                self.args.clear()
            found = self.args[(key, value)] = _bytes(4, self.keys[key] + _int(4, value))
        return found

    def call(self, call: Call, seq: bytes) -> None:
        where = (call.rank, call.thread)
        track = self.tracks.get(where)
        if track is None:
            track = self.tracks[where] = _int(11, ((call.rank + 1) << 20) + call.thread + 1)
        name = self.names.get(call.name)
        if name is None:
            name = self.names[call.name] = _bytes(23, call.name.encode())
        parts = [BEGIN, track, name]
        if call.peer != NONE and call.peer != -1:
            parts.append(self._arg("peer", call.peer))
        if call.tag != NONE and call.tag != -1:
            parts.append(self._arg("tag", call.tag))
        if call.root != NONE and call.root != -1:
            parts.append(self._arg("root", call.root))
        if call.bytes >= 0:
            parts.append(self._arg("bytes", call.bytes))
        for k in call.flows_out:
            parts.append(FLOW_OUT + struct.pack("<Q", k))
        for k in call.flows_in:
            parts.append(FLOW_IN + struct.pack("<Q", k))
        if call.links_out or call.links_in:
            parts += [FLOW_OUT + struct.pack("<Q", k) for k in call.links_out]
            parts += [FLOW_IN + struct.pack("<Q", k) for k in call.links_in]
        event = b"".join(parts)
        begin = b"".join((TIMESTAMP, _varint(int(call.start_ns)), seq, TRACK_EVENT,
                          _varint(len(event)), event))
        end = END + track
        end = b"".join((TIMESTAMP, _varint(int(call.end_ns)), seq, TRACK_EVENT,
                        _varint(len(end)), end))
        self.f.write(b"".join((PACKET, _varint(len(begin)), begin, PACKET, _varint(len(end)),
                               end)))


def write_perfetto(source: Stream | Merged, out: Path) -> int:
    """Write the trace; return the number of arrows (messages, collective
    instances, one-sided transfers)."""
    stream = as_stream(source)
    with outputs.replacing(out) as f:
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

        def on_link(k: int, link: Link, src: Call, dst: Call | None) -> None:
            if dst is None:
                w.mark(link.dst, link.dst_ns, f"{link.name} from rank {link.src}", k)

        for call in stream.calls(on_link=on_link):
            w.call(call, seqs[call.rank])
    return stream.arrows
