"""What the matcher hands on: calls, point-to-point messages, the other
arrows (links) between calls, and the communicator definitions that turn a
record's peer into a trace rank."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Protocol

from mpiscope.trace.reader import CommDef

__all__ = ["Call", "Comms", "Link", "Linker", "Message"]


@dataclass(frozen=True)
class Message:
    src: int
    dst: int
    comm_id: int
    tag: int
    bytes: int
    send_index: int  # record (call) on src
    send_ns: float  # start of the send call
    send_end_ns: float
    send_blocking: bool
    recv_index: int  # the call on dst that completed the receive
    post_ns: float  # the receive was posted
    wait_ns: float  # start of the call that completed it
    recv_ns: float  # completion
    recv_blocking: bool
    partitioned: bool = False  # MPI_Psend_init to MPI_Precv_init (a round of them)

    @property
    def backwards(self) -> bool:
        return self.recv_ns < self.send_ns


@dataclass(frozen=True)
class Link:
    """An arrow that is not a point-to-point message: a collective instance
    (from the last member to arrive to each other member's completion) or a
    one-sided transfer (from the origin's operation to its completion)."""

    kind: str  # "collective" | "rma"
    name: str  # the operation: MPI_Ibcast, MPI_Allreduce_init, MPI_Put, ...
    src: int  # rank the arrow starts on
    dst: int  # rank the arrow ends on (the target of a transfer)
    src_ns: float
    dst_ns: float
    bytes: int
    detail: str = ""  # a transfer's epoch: fence, pscw, lock, lock_all


@dataclass(eq=False, slots=True)
class Call:
    """One MPI call (a record that is not a part) on the global clock (ns
    from the trace origin)."""

    rank: int
    thread: int
    index: int  # the call's record in its rank's records (start order)
    name: str
    cls: str
    start_ns: float
    end_ns: float
    unfinished: bool
    peer: int
    tag: int
    root: int
    bytes: int
    site: int = 0  # return address of the call
    comm: int = 0  # communicator handle (a window's, for an RMA call)
    stamp: int = 0  # t_enter as recorded (selects the handle's definition)
    flags: int = 0
    flows_out: list[int] = field(default_factory=list)  # messages it sends
    flows_in: list[int] = field(default_factory=list)  # messages it completes
    # other arrows it starts and ends (rare: a list made when the first comes)
    links_out: list[int] | tuple[()] = ()
    links_in: list[int] | tuple[()] = ()
    pending: int = 0  # its arrows not known yet
    closed: bool = False  # every part of it seen


class Comms:
    """(communicator handle, time) -> definition, for one rank."""

    def __init__(self, defs: list[CommDef]) -> None:
        self.by_handle: dict[int, list[CommDef]] = defaultdict(list)
        for d in defs:
            self.by_handle[d.handle].append(d)

    def at(self, handle: int, stamp: int) -> CommDef | None:
        found = None
        for d in self.by_handle.get(handle, ()):
            if d.created <= stamp:
                found = d
        return found

    @staticmethod
    def translate(d: CommDef | None, peer: int) -> int | None:
        if d is None or peer < 0 or peer >= len(d.members):
            return None
        return d.members[peer]


class Linker(Protocol):
    """What the collective and one-sided trackers need of the matcher."""

    matched: Counter[str]

    def hold(self, call: Call) -> None: ...

    def release(self, call: Call) -> None: ...

    def link(self, link: Link, src: Call, dst: Call | None) -> None: ...

    def not_matched(self, kind: str, why: str, count: int = 1) -> None: ...
