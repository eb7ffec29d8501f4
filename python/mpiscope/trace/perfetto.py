"""Perfetto protobuf (open at https://ui.perfetto.dev, nothing to install).

Built with the ``perfetto`` package's trace builder: one process track per
rank, one thread track per thread of the rank, a slice per MPI call (with
its peer, tag, bytes as arguments) and a flow, drawn as an arrow, from each
send call to the call that completed the matching receive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.trace.merge import Merged
from mpiscope.trace.reader import NONE

__all__ = ["write_perfetto"]


def _builder() -> tuple[Any, Any]:
    try:
        from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TrackEvent
        from perfetto.trace_builder.proto_builder import TraceProtoBuilder
    except ImportError:
        raise MpiscopeError("the perfetto package is needed for --format perfetto "
                            "(pip install perfetto), or use --format chrome") from None
    return TraceProtoBuilder(), TrackEvent


def write_perfetto(merged: Merged, out: Path) -> int:
    """Write the trace; return the number of flows (message arrows)."""
    builder, track_event = _builder()
    flows_out: dict[tuple[int, int], list[int]] = {}
    flows_in: dict[tuple[int, int], list[int]] = {}
    for k, m in enumerate(merged.messages, start=1):
        flows_out.setdefault((m.src, m.send_index), []).append(k)
        flows_in.setdefault((m.dst, m.recv_index), []).append(k)
    for tl in merged.timelines:
        pid = tl.rank + 1
        proc_uuid = pid << 20
        packet = builder.add_packet()
        packet.track_descriptor.uuid = proc_uuid
        packet.track_descriptor.process.pid = pid
        packet.track_descriptor.process.process_name = f"rank {tl.rank}"
        for thread in sorted({int(t) for t in tl.records["thread"]}):
            packet = builder.add_packet()
            packet.track_descriptor.uuid = proc_uuid + thread + 1
            packet.track_descriptor.parent_uuid = proc_uuid
            packet.track_descriptor.thread.pid = pid
            packet.track_descriptor.thread.tid = pid * 1000 + thread
            packet.track_descriptor.thread.thread_name = f"rank {tl.rank} thread {thread}"
        for i in range(len(tl.records)):
            if not tl.main[i]:
                continue
            r = tl.records[i]
            track = proc_uuid + int(r["thread"]) + 1
            begin = builder.add_packet()
            begin.timestamp = int(tl.start_ns[i])
            begin.trusted_packet_sequence_id = pid
            ev = begin.track_event
            ev.type = track_event.TYPE_SLICE_BEGIN
            ev.track_uuid = track
            ev.name = tl.name(i)
            for key in ("peer", "tag", "root", "bytes"):
                if int(r[key]) not in (NONE, -1) or (key == "bytes" and int(r[key]) >= 0):
                    ann = ev.debug_annotations.add()
                    ann.name = key
                    ann.int_value = int(r[key])
            ev.flow_ids.extend(flows_out.get((tl.rank, i), []))
            ev.terminating_flow_ids.extend(flows_in.get((tl.rank, i), []))
            end = builder.add_packet()
            end.timestamp = int(tl.end_ns[i])
            end.trusted_packet_sequence_id = pid
            end.track_event.type = track_event.TYPE_SLICE_END
            end.track_event.track_uuid = track
    out.write_bytes(builder.serialize())
    return len(merged.messages)
