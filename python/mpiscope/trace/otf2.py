"""OTF2 (Vampir, Scalasca, the otf2 tools) through the ``otf2`` package.

One location group per rank and a location per thread; every MPI call is a
region entered and left; each matched message is an MpiSend event in the
send call and an MpiRecv event at the end of the call that completed the
receive, on one communicator of all ranks (ranks are trace ranks); each
member's part of a blocking collective instance is an MpiCollectiveBegin
and MpiCollectiveEnd in its call, on a communicator of its members; of a
nonblocking or persistent one, a NonBlockingCollectiveRequest in the call
that started it (MPI_Ibcast, MPI_Start) and a NonBlockingCollectiveComplete
in the call that completed it (MPI_Wait...). Large-count (``_c``) calls
are the collectives they count for; OTF2 has no neighborhood collectives.
A one-sided transfer is an RmaPut, RmaGet or RmaAtomic in the origin's
operation and an RmaOpCompleteBlocking in the origin's call that completed
it (the fence, MPI_Win_complete, unlock or flush closing its epoch), on one
OTF2 window of all ranks standing for every MPI window (remote: the
target's trace rank).
Timestamps are global nanoseconds (timer resolution 1e9).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.outputs import check_parent
from mpiscope.trace.calls import Link, Message
from mpiscope.trace.collective import Instance
from mpiscope.trace.merge import Merged
from mpiscope.trace.stream import Call, Stream, as_stream

__all__ = ["write_otf2"]


def _otf2() -> Any:
    try:
        import otf2
    except ImportError:
        raise MpiscopeError("the otf2 package is needed for --format otf2 (pip install otf2)"
                            ) from None
    return otf2


def write_otf2(source: Stream | Merged, out: Path) -> int:
    """Write the archive into directory `out` (its anchor file: traces.otf2);
    return the number of arrows (messages, collective instances' links,
    one-sided transfers), as the other exports do."""
    otf2 = _otf2()
    stream = as_stream(source)
    if out.is_symlink() or (out.exists() and not (out / "traces.otf2").is_file()):
        raise MpiscopeError(f"{out} exists and is not an OTF2 archive: not replaced")
    # the OTF2 library prints its own errors and raises its own type: say
    # first why the archive's directory cannot be made
    check_parent(out)
    if out.exists():
        shutil.rmtree(out)
    messages: dict[int, list] = {}  # id -> [message, ends still to write]

    def on_message(k: int, m: Message, send: Call, recv: Call) -> None:
        messages[k] = [m, 2]

    def take(k: int) -> Message:
        entry = messages[k]
        entry[1] -= 1
        if not entry[1]:
            del messages[k]
        return entry[0]

    with otf2.writer.open(str(out), timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("machine")
        regions: dict[str, Any] = {}
        groups, writers = {}, {}
        ranks = sorted(r.rank for r in stream.trace.ranks)
        for rank in ranks:
            groups[rank] = defs.location_group(f"rank {rank}", system_tree_parent=root)
        mpi_locations = []
        for rank in ranks:
            for thread in stream.threads(rank):
                loc = defs.location(f"rank {rank} thread {thread}", group=groups[rank])
                writers[(rank, thread)] = trace.event_writer_from_location(loc)
                if thread == 0:
                    mpi_locations.append(loc)
        defs.group("MPI ranks", group_type=otf2.GroupType.COMM_LOCATIONS,
                   paradigm=otf2.Paradigm.MPI, members=mpi_locations)
        everyone = defs.group("all ranks", group_type=otf2.GroupType.COMM_GROUP,
                              paradigm=otf2.Paradigm.MPI, members=list(range(len(mpi_locations))))
        comm = defs.comm("all ranks", group=everyone)
        collectives = _Collectives(otf2, defs, {r: i for i, r in enumerate(ranks)})
        one_sided = _OneSided(otf2, defs.rma_win("MPI windows", comm),
                              {r: i for i, r in enumerate(ranks)})
        for call in stream.calls(ordered=True, on_message=on_message,
                                 on_instance=collectives.instance,
                                 on_transfer=one_sided.transfer):
            region = regions.get(call.name)
            if region is None:
                region = regions[call.name] = defs.region(
                    call.name, paradigm=otf2.Paradigm.MPI, region_role=otf2.RegionRole.FUNCTION)
            w = writers[(call.rank, call.thread)]
            t0, t1 = int(call.start_ns), int(call.end_ns)
            t1 = max(t1, t0)
            w.enter(t0, region)
            events = collectives.of(call)
            for what, args in events:
                if what == "begin":
                    w.mpi_collective_begin(t0)
                elif what == "request":
                    w.non_blocking_collective_request(t0, *args)
            for k in call.flows_out:
                m = take(k)
                w.mpi_send(t0, m.dst, comm, m.tag & 0xFFFFFFFF, max(m.bytes, 0))
            one_sided.operations(call, w, t0)
            for k in call.flows_in:
                m = take(k)
                w.mpi_recv(t1, m.src, comm, m.tag & 0xFFFFFFFF, max(m.bytes, 0))
            one_sided.completions(call, w, t1)
            for what, args in events:
                if what == "end":
                    w.mpi_collective_end(t1, *args)
                elif what == "complete":
                    w.non_blocking_collective_complete(t1, *args)
            w.leave(t1, region)
    return stream.arrows


def collective_op(otf2: Any, name: str, kind: str) -> Any:
    """OTF2's CollectiveOp of an instance named ``name`` (MPI_Ibcast_c: BCAST),
    None for one OTF2 has not (the neighborhood collectives)."""
    base = name[len("MPI_"):].upper()
    base = base.removesuffix("_C").removesuffix("_INIT")
    if kind == "nonblocking" and base.startswith("I"):
        base = base[1:]
    return getattr(otf2.CollectiveOp, base, None)


class _Collectives:
    """The collective events of each member's calls: MpiCollectiveBegin/End of
    a blocking instance, NonBlockingCollectiveRequest/Complete of a
    nonblocking or persistent one (a request id per member's part), on a
    communicator defined per communicator id (its members' locations)."""

    def __init__(self, otf2: Any, defs: Any, location: dict[int, int]) -> None:
        self.otf2, self.defs, self.location = otf2, defs, location
        self.comms: dict[int, Any] = {}
        self.events: dict[int, list[tuple[str, Any]]] = {}  # id of a call -> its events
        self.requests = 0

    def instance(self, inst: Instance) -> None:
        op = collective_op(self.otf2, inst.name, inst.kind)
        if op is None:
            return
        comm = self._comm(inst)
        for p in inst.parts:
            root = p.start.root  # the starting call names it (MPI_Ibcast, MPI_Bcast_init)
            end = (op, comm, root if root >= 0 else int(self.otf2.Undefined.UINT32.value),
                   max(p.start.bytes, 0), max(p.start.bytes, 0))
            if inst.kind == "blocking":
                self.events.setdefault(id(p.start), []).append(("begin", ()))
                self.events.setdefault(id(p.start), []).append(("end", end))
                continue
            self.requests += 1
            self.events.setdefault(id(p.start), []).append(("request", (self.requests,)))
            assert p.done is not None  # an instance is made of completed parts
            self.events.setdefault(id(p.done), []).append(("complete", (*end, self.requests)))

    def of(self, call: Call) -> list[tuple[str, Any]]:
        """The collective events of a call, in the order they happen in it."""
        return self.events.pop(id(call), [])

    def _comm(self, inst: Instance) -> Any:
        comm = self.comms.get(inst.comm_id)
        if comm is None:
            name = f"communicator {len(self.comms) + 1}"
            group = self.defs.group(name, group_type=self.otf2.GroupType.COMM_GROUP,
                                    paradigm=self.otf2.Paradigm.MPI,
                                    members=[self.location[p.rank] for p in inst.parts])
            comm = self.comms[inst.comm_id] = self.defs.comm(name, group=group)
        return comm


class _OneSided:
    """The RMA events of the one-sided transfers, in the calls the matcher
    found for them: the operation and the origin's call that completed it."""

    ATOMIC = {"MPI_Fetch_and_op": "FETCH_AND_ACCUMULATE",
              "MPI_Compare_and_swap": "COMPARE_AND_SWAP",
              "MPI_Get_accumulate": "FETCH_AND_ACCUMULATE",
              "MPI_Rget_accumulate": "FETCH_AND_ACCUMULATE"}

    def __init__(self, otf2: Any, win: Any, location: dict[int, int]) -> None:
        self.otf2, self.win, self.location = otf2, win, location
        self.ops: dict[int, list[tuple[Link, int]]] = {}  # id of an operation's call -> ...
        self.completed: dict[int, list[int]] = {}  # id of a completing call -> matching ids
        self.next_id = 0

    def transfer(self, link: Link, op: Call, done: Call) -> None:
        self.next_id += 1
        self.ops.setdefault(id(op), []).append((link, self.next_id))
        self.completed.setdefault(id(done), []).append(self.next_id)

    def operations(self, call: Call, w: Any, t0: int) -> None:
        for link, mid in self.ops.pop(id(call), []):
            remote, size = self.location[link.dst], max(link.bytes, 0)
            if link.name in ("MPI_Put", "MPI_Rput"):
                w.rma_put(t0, self.win, remote, size, mid)
            elif link.name in ("MPI_Get", "MPI_Rget"):
                w.rma_get(t0, self.win, remote, size, mid)
            else:
                kind = getattr(self.otf2.RmaAtomicType, self.ATOMIC.get(link.name, "ACCUMULATE"))
                received = size if kind != self.otf2.RmaAtomicType.ACCUMULATE else 0
                w.rma_atomic(t0, self.win, remote, kind, size, received, mid)

    def completions(self, call: Call, w: Any, t1: int) -> None:
        for mid in self.completed.pop(id(call), []):
            w.rma_op_complete_blocking(t1, self.win, mid)
