"""OTF2 (Vampir, Scalasca, the otf2 tools) through the ``otf2`` package.

One location group per rank and a location per thread; every MPI call is a
region entered and left; each matched message is an MpiSend event in the
send call and an MpiRecv event at the end of the call that completed the
receive, on one communicator of all ranks (ranks are trace ranks).
Timestamps are global nanoseconds (timer resolution 1e9).
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.trace.merge import Merged

__all__ = ["write_otf2"]


def _otf2() -> Any:
    try:
        import otf2
    except ImportError:
        raise MpiscopeError("the otf2 package is needed for --format otf2 (pip install otf2)"
                            ) from None
    return otf2


def write_otf2(merged: Merged, out: Path) -> Path:
    """Write the archive into directory `out`; return the anchor file (traces.otf2)."""
    otf2 = _otf2()
    if out.exists():
        shutil.rmtree(out)
    # the OTF2 library prints its own errors and raises its own type: say
    # first, as an OSError, why the archive's directory cannot be made
    out.parent.mkdir(parents=True, exist_ok=True)
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(out.parent))
    sends: dict[tuple[int, int], list] = {}
    recvs: dict[tuple[int, int], list] = {}
    for m in merged.messages:
        sends.setdefault((m.src, m.send_index), []).append(m)
        recvs.setdefault((m.dst, m.recv_index), []).append(m)
    with otf2.writer.open(str(out), timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("machine")
        regions: dict[str, Any] = {}
        groups, writers = {}, {}
        for tl in merged.timelines:
            groups[tl.rank] = defs.location_group(f"rank {tl.rank}", system_tree_parent=root)
        mpi_locations = []
        for tl in merged.timelines:
            for thread in sorted({int(t) for t in tl.records["thread"]} | {0}):
                loc = defs.location(f"rank {tl.rank} thread {thread}", group=groups[tl.rank])
                writers[(tl.rank, thread)] = trace.event_writer_from_location(loc)
                if thread == 0:
                    mpi_locations.append(loc)
        locations = defs.group("MPI ranks", group_type=otf2.GroupType.COMM_LOCATIONS,
                               paradigm=otf2.Paradigm.MPI, members=mpi_locations)
        everyone = defs.group("all ranks", group_type=otf2.GroupType.COMM_GROUP,
                              paradigm=otf2.Paradigm.MPI, members=list(range(len(mpi_locations))))
        del locations
        comm = defs.comm("all ranks", group=everyone)
        for tl in merged.timelines:
            for i in range(len(tl.records)):
                if not tl.main[i]:
                    continue
                name = tl.name(i)
                region = regions.get(name)
                if region is None:
                    region = regions[name] = defs.region(
                        name, paradigm=otf2.Paradigm.MPI, region_role=otf2.RegionRole.FUNCTION)
                w = writers[(tl.rank, int(tl.records["thread"][i]))]
                t0, t1 = int(tl.start_ns[i]), int(tl.end_ns[i])
                w.enter(t0, region)
                for m in sends.get((tl.rank, i), ()):
                    w.mpi_send(t0, m.dst, comm, m.tag & 0xFFFFFFFF, max(m.bytes, 0))
                for m in recvs.get((tl.rank, i), ()):
                    w.mpi_recv(max(t1, t0), m.src, comm, m.tag & 0xFFFFFFFF, max(m.bytes, 0))
                w.leave(max(t1, t0), region)
    return out / "traces.otf2"
