"""Chrome trace JSON (chrome://tracing, ui.perfetto.dev): the fallback view.

One process per rank, one thread per thread, an "X" event per MPI call and
a flow per message: "s" at the start of the send call, "f" at the
completion of the receive (in the call that completed it). Times are
microseconds, as the format wants.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mpiscope.trace.merge import Merged
from mpiscope.trace.reader import NONE

__all__ = ["chrome_events", "write_chrome"]


def chrome_events(merged: Merged) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for tl in merged.timelines:
        events.append({"ph": "M", "name": "process_name", "pid": tl.rank,
                       "args": {"name": f"rank {tl.rank}"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": tl.rank,
                       "args": {"sort_index": tl.rank}})
        for i in range(len(tl.records)):
            if not tl.main[i]:
                continue
            r = tl.records[i]
            args = {key: int(r[key]) for key in ("peer", "tag", "root") if int(r[key]) != NONE}
            if int(r["bytes"]) >= 0:
                args["bytes"] = int(r["bytes"])
            if tl.unfinished[i]:
                args["unfinished"] = True
            events.append({"ph": "X", "name": tl.name(i), "cat": tl.cls(i), "pid": tl.rank,
                           "tid": int(r["thread"]), "ts": tl.start_ns[i] / 1e3,
                           "dur": max(tl.end_ns[i] - tl.start_ns[i], 0.0) / 1e3, "args": args})
    by_rank = {tl.rank: tl for tl in merged.timelines}
    for k, m in enumerate(merged.messages, start=1):
        src, dst = by_rank[m.src], by_rank[m.dst]
        common = {"name": "message", "cat": "message", "id": k, "bp": "e"}
        events.append({**common, "ph": "s", "pid": m.src,
                       "tid": int(src.records["thread"][m.send_index]), "ts": m.send_ns / 1e3})
        # the message ends at the receive's completion (the end of the
        # call that completed it), 1 ns inside that call so that the flow
        # binds to it ("bp": "e": the enclosing slice)
        end = max(float(dst.start_ns[m.recv_index]), m.recv_ns - 1.0)
        events.append({**common, "ph": "f", "pid": m.dst,
                       "tid": int(dst.records["thread"][m.recv_index]), "ts": end / 1e3})
    return events


def write_chrome(merged: Merged, out: Path) -> int:
    doc = {"traceEvents": chrome_events(merged), "displayTimeUnit": "ns",
           "otherData": {"producer": "mpiscope trace", "ranks": merged.trace.nprocs}}
    out.write_text(json.dumps(doc), encoding="utf-8")
    return len(merged.messages)
