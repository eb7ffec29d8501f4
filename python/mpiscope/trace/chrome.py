"""Chrome trace JSON (chrome://tracing, ui.perfetto.dev): the fallback view.

One process per rank, one thread per thread, an "X" event per MPI call and
a flow per message: "s" at the start of the send call, "f" at the
completion of the receive (in the call that completed it); a flow per
other arrow the matcher finds (collective instances, one-sided transfers:
:class:`~mpiscope.trace.calls.Link`), its category the kind. Times are
microseconds, as the format wants. Written as the trace streams
(:mod:`mpiscope.trace.stream`): an event at a time, memory bounded.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.trace.calls import Link, Message
from mpiscope.trace.merge import Merged
from mpiscope.trace.reader import NONE
from mpiscope.trace.stream import Call, Stream, as_stream

__all__ = ["call_event", "chrome_events", "link_events", "write_chrome"]


def call_event(call: Call) -> dict[str, Any]:
    """The "X" event of a call."""
    args = {key: value for key, value in (("peer", call.peer), ("tag", call.tag),
                                          ("root", call.root)) if value != NONE}
    if call.bytes >= 0:
        args["bytes"] = call.bytes
    if call.unfinished:
        args["unfinished"] = True
    return {"ph": "X", "name": call.name, "cat": call.cls, "pid": call.rank, "tid": call.thread,
            "ts": call.start_ns / 1e3, "dur": max(call.end_ns - call.start_ns, 0.0) / 1e3,
            "args": args}


def flow_events(k: int, m: Message, send: Call, recv: Call) -> list[dict[str, Any]]:
    """The two flow events of message `k`: it ends at the receive's completion
    (the end of the call that completed it), 1 ns inside that call so that
    the flow binds to it ("bp": "e": the enclosing slice)."""
    common = {"name": "message", "cat": "message", "id": k, "bp": "e"}
    end = max(recv.start_ns, m.recv_ns - 1.0)
    return [{**common, "ph": "s", "pid": m.src, "tid": send.thread, "ts": m.send_ns / 1e3},
            {**common, "ph": "f", "pid": m.dst, "tid": recv.thread, "ts": end / 1e3}]


def link_events(k: int, link: Link, src: Call, dst: Call | None) -> list[dict[str, Any]]:
    """The flow events of a collective instance's or a one-sided transfer's
    arrow `k`: from the start of `src` to the end of `dst`; with no `dst` (a
    passive-target transfer) to a 1 ns mark on the target at the completion."""
    common = {"name": link.name, "cat": link.kind, "id": k, "bp": "e"}
    label = "epoch" if link.kind == "rma" else "kind"
    out = [{**common, "ph": "s", "pid": src.rank, "tid": src.thread, "ts": src.start_ns / 1e3,
            "args": {"to": link.dst, label: link.detail}}]
    if dst is None:
        out.append({"ph": "X", "name": f"{link.name} from rank {link.src}", "cat": "rma target",
                    "pid": link.dst, "tid": 0, "ts": link.dst_ns / 1e3, "dur": 1e-3,
                    "args": {"epoch": link.detail, "bytes": link.bytes}})
        return out + [{**common, "ph": "f", "pid": link.dst, "tid": 0,
                       "ts": link.dst_ns / 1e3}]
    end = max(dst.start_ns, dst.end_ns - 1.0)
    return out + [{**common, "ph": "f", "pid": dst.rank, "tid": dst.thread, "ts": end / 1e3}]


def _events(stream: Stream) -> Iterator[dict[str, Any]]:
    """Every event: the processes' names, then calls and flows as they stream."""
    for rank in sorted(r.rank for r in stream.trace.ranks):
        yield {"ph": "M", "name": "process_name", "pid": rank, "args": {"name": f"rank {rank}"}}
        yield {"ph": "M", "name": "process_sort_index", "pid": rank,
               "args": {"sort_index": rank}}
    flows: list[dict[str, Any]] = []

    def on_message(k: int, m: Message, send: Call, recv: Call) -> None:
        flows.extend(flow_events(k, m, send, recv))

    def on_link(k: int, link: Link, src: Call, dst: Call | None) -> None:
        flows.extend(link_events(k, link, src, dst))

    for call in stream.calls(on_message=on_message, on_link=on_link):
        yield call_event(call)
        yield from flows
        flows.clear()
    yield from flows


def chrome_events(source: Stream | Merged) -> list[dict[str, Any]]:
    """The events of a (small) trace, as a list."""
    return list(_events(as_stream(source)))


def write_chrome(source: Stream | Merged, out: Path) -> int:
    """Write the trace; return the number of arrows (messages, collective
    instances, one-sided transfers)."""
    stream = as_stream(source)
    with outputs.replacing(out) as raw:
        f = io.TextIOWrapper(raw, encoding="utf-8")
        f.write('{"displayTimeUnit": "ns", "otherData": '
                + json.dumps({"producer": "mpiscope trace", "ranks": stream.trace.nprocs})
                + ', "traceEvents": [\n')
        sep = ""
        for ev in _events(stream):
            f.write(sep + json.dumps(ev))
            sep = ",\n"
        f.write("\n]}\n")
        f.flush()
        f.detach()  # the file itself is closed and renamed by the writer
    return stream.arrows
