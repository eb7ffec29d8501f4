"""Streamed exports (issue 15 defect 5): the same calls and messages as the
in-memory merge, and memory that does not grow with the trace."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from mpiscope.trace import matching
from mpiscope.trace import stream as stream_module
from mpiscope.trace.chrome import write_chrome
from mpiscope.trace.merge import Merged, load
from mpiscope.trace.perfetto import write_perfetto
from mpiscope.trace.stream import Stream, open_stream
from trace_helpers import WORLD, rec, write_rank

F_PART, F_COMPLETED, F_REQUEST_NEW = 0x2, 0x4, 0x10


def _ping_pong(n: int, rank: int) -> list[tuple]:
    """`n` exchanges with the other rank: blocking ones, and every 4th an
    Isend + two Irecvs of one tag completed in the REVERSE order of posting
    (so a streamed match must wait for the earlier-posted receive)."""
    peer, out, t = 1 - rank, [rec("MPI_Init", 1, 5)], 10
    for k in range(n):
        if k % 4 == 3:
            h = 0x9000 + 4 * k
            out += [rec("MPI_Irecv", t, t + 10, peer=peer, tag=100, nbytes=8, request=h,
                        flags=F_REQUEST_NEW),
                    rec("MPI_Irecv", t + 20, t + 30, peer=peer, tag=100, nbytes=16, request=h + 1,
                        flags=F_REQUEST_NEW),
                    rec("MPI_Isend", t + 40, t + 50, peer=peer, tag=100, nbytes=8, request=h + 2,
                        flags=F_REQUEST_NEW),
                    rec("MPI_Isend", t + 60, t + 70, peer=peer, tag=100, nbytes=16,
                        request=h + 3, flags=F_REQUEST_NEW),
                    rec("MPI_Wait", t + 80, t + 400, request=h + 1),
                    rec("MPI_Wait", t + 80, t + 400, peer=peer, tag=100, nbytes=16,
                        request=h + 1, flags=F_PART | F_COMPLETED),
                    rec("MPI_Waitall", t + 500, t + 600, request=0),
                    rec("MPI_Waitall", t + 500, t + 600, peer=peer, tag=100, nbytes=8, request=h,
                        flags=F_PART | F_COMPLETED),
                    rec("MPI_Waitall", t + 500, t + 600, request=h + 2,
                        flags=F_PART | F_COMPLETED),
                    rec("MPI_Waitall", t + 500, t + 600, request=h + 3,
                        flags=F_PART | F_COMPLETED)]
        else:
            first, second = ("MPI_Send", "MPI_Recv") if rank == 0 else ("MPI_Recv", "MPI_Send")
            out += [rec(first, t, t + 300, peer=peer, tag=k % 7, nbytes=8),
                    rec(second, t + 350, t + 650, peer=peer, tag=k % 7, nbytes=8)]
        t += 1000
    return out + [rec("MPI_Finalize", t, t + 5, comm=0)]


def _trace(directory: Path, n: int, block: int = 64) -> Path:
    directory.mkdir()
    for rank in (0, 1):
        write_rank(directory, rank, 2, _ping_pong(n, rank), block=block,
                   comms=[(WORLD, 1, [0, 1])])
    return directory


def _expected(merged: Merged) -> tuple[set, set]:
    calls = {(tl.rank, int(tl.records["thread"][i]), i, tl.name(i), float(tl.start_ns[i]),
              float(tl.end_ns[i]))
             for tl in merged.timelines for i in range(len(tl.records)) if tl.main[i]}
    messages = {(m.src, m.send_index, m.dst, m.recv_index, m.send_ns, m.recv_ns, m.bytes)
                for m in merged.messages}
    return calls, messages


def _streamed(stream: Stream, ordered: bool) -> tuple[set, set]:
    calls, messages = set(), set()

    def on_message(k: int, m, send, recv) -> None:  # noqa: ANN001
        messages.add((m.src, m.send_index, m.dst, m.recv_index, m.send_ns, m.recv_ns, m.bytes))
        assert k in send.flows_out and k in recv.flows_in

    last: dict[tuple[int, int], float] = {}
    for c in stream.calls(ordered=ordered, on_message=on_message):
        calls.add((c.rank, c.thread, c.index, c.name, c.start_ns, c.end_ns))
        if ordered:  # each thread's calls in start order (OTF2 needs it)
            assert c.start_ns >= last.get((c.rank, c.thread), 0.0)
            last[(c.rank, c.thread)] = c.start_ns
    return calls, messages


@pytest.mark.parametrize("ordered", [False, True])
def test_streamed_calls_and_messages_equal_the_in_memory_merge(tmp_path: Path,
                                                               ordered: bool) -> None:
    directory = _trace(tmp_path / "t", 40)
    merged = load(directory)
    calls, messages = _expected(merged)
    assert len(messages) == 100 and merged.unmatched_sends == merged.unmatched_recvs == 0
    stream = open_stream(directory)
    assert _streamed(stream, ordered) == (calls, messages)
    assert (stream.messages, stream.unmatched_sends, stream.unmatched_recvs) == (100, 0, 0)
    # the reversed waits: the first-posted Irecv (8 bytes) gets the first Isend (8 bytes)
    assert all(m[6] in (8, 16) for m in messages)
    assert {(m.bytes, merged.timelines[1].name(m.recv_index)) for m in merged.messages
            if m.dst == 1 and m.tag == 100} == {(8, "MPI_Waitall"), (16, "MPI_Wait")}


def test_streamed_exports_hold_every_call_and_arrow(tmp_path: Path) -> None:
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import Trace

    directory = _trace(tmp_path / "t", 40)
    merged = load(directory)
    calls, messages = _expected(merged)
    assert write_perfetto(open_stream(directory), tmp_path / "t.pftrace") == len(messages)
    packets = Trace.FromString((tmp_path / "t.pftrace").read_bytes()).packet
    events = [p.track_event for p in packets if p.HasField("track_event")]
    begins = sorted((e.name, p.timestamp) for p, e in zip(
        [p for p in packets if p.HasField("track_event")], events, strict=True) if e.type == 1)
    assert begins == sorted((c[3], int(c[4])) for c in calls)
    assert sum(e.type == 2 for e in events) == len(calls)
    outs = sorted(f for e in events for f in e.flow_ids)
    ins = sorted(f for e in events for f in e.terminating_flow_ids)
    assert outs == ins == list(range(1, len(messages) + 1))
    write_chrome(open_stream(directory), tmp_path / "t.json")
    doc = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert sorted((e["name"], e["ts"]) for e in doc if e["ph"] == "X") == sorted(
        (c[3], c[4] / 1e3) for c in calls)
    flows = {(e["id"], e["ph"]) for e in doc if e["ph"] in "sf"}
    assert len(flows) == 2 * len(messages)


def _peak(directory: Path) -> tuple[int, int]:
    tracemalloc.start()
    try:
        stream = open_stream(directory)
        n = sum(1 for _ in stream.calls(ordered=True))
        return n, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_stream_memory_does_not_grow_with_the_trace(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A logic bound on what the stream keeps (chunks, open requests, queues),
    not a timing: 10 times the records, about the same peak."""
    monkeypatch.setattr(stream_module, "CHUNK_RECORDS", 256)
    monkeypatch.setattr(matching, "ROWS", 128)
    small = _trace(tmp_path / "small", 600, block=512)
    large = _trace(tmp_path / "large", 6_000, block=512)
    n_small, peak_small = _peak(small)
    n_large, peak_large = _peak(large)
    assert n_large > 9 * n_small
    assert peak_large < 1.5 * peak_small, (peak_small, peak_large)


def test_the_merge_ends_on_chunks_out_of_order() -> None:
    """A corrupt trace's clock can make a rank's times run backwards or NaN:
    the merge must still end, with every record (it looped for ever)."""
    import numpy as np

    def chunks(*times: list[float]) -> list[np.ndarray]:
        return [np.array([(t,) for t in ts], dtype=[("t", "f8")]) for ts in times]

    merged = list(stream_module.merge_sorted(
        [iter(chunks([1.0, 5.0, 0.0], [6.0, float("nan")])), iter(chunks([2.0, 4.0]))], "t"))
    out = np.concatenate(merged)["t"]
    assert len(out) == 7
    assert sorted(out[~np.isnan(out)].tolist()) == [0.0, 1.0, 2.0, 4.0, 5.0, 6.0]
