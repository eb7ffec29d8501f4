"""One-sided transfers: each MPI_Put, Get, Accumulate, Get_accumulate,
Fetch_and_op, Compare_and_swap (and R* variants) from its origin to its
target, placed in its epoch.

A window's creation record holds its communicator (hence its group, as
trace ranks) and its handle; window creation is collective, so the n-th
window made on a communicator id is the same window on every member. An
operation's target is its rank in the window's group. The transfer is
complete at the call that closes its epoch on the origin:

* fence: the next MPI_Win_fence; the arrow ends in the target's fence of
  the same number (fences are collective over the window);
* PSCW: MPI_Win_complete; the arrow ends in the target's MPI_Win_wait (or
  MPI_Win_test that returned true) of the exposure epoch paired with it:
  the origin's n-th access epoch naming the target goes with the target's
  n-th exposure epoch naming the origin (the groups of MPI_Win_start and
  MPI_Win_post are recorded, as ranks of the window);
* passive target (MPI_Win_lock, MPI_Win_lock_all): the first
  MPI_Win_flush(target), MPI_Win_flush_all or unlock after it; the target
  makes no call, so the arrow ends on the target's track at the end of that
  call (the exports draw a mark there: the data is at the target by then).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mpiscope.trace.calls import Call, Comms, Link, Linker
from mpiscope.trace.reader import (
    COMM_F_INTER,
    F_GROUP,
    F_PART,
    F_TRUE,
    F_WINDOW,
    F_WINDOW_NEW,
    PEER_PROC_NULL,
    RankTrace,
)

__all__ = ["OPERATIONS", "OneSided"]

OPERATIONS = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op",
              "MPI_Compare_and_swap", "MPI_Rput", "MPI_Rget", "MPI_Raccumulate",
              "MPI_Rget_accumulate"}


@dataclass(eq=False)
class _Op:
    call: Call
    name: str
    target: int  # trace rank
    window_rank: int  # the target's rank in the window
    epoch: str  # fence, pscw, lock, lock_all


@dataclass(eq=False)
class _Window:
    id: tuple[int, int]  # (communicator id, windows made on it before)
    members: tuple[int, ...] | None  # trace rank of each rank of the window; None: unknown
    why: str = ""  # why members is None
    fences: int = 0
    pending: list[_Op] = field(default_factory=list)
    locks: set[int] = field(default_factory=set)
    lock_all: bool = False
    access: list[int] | None = None  # PSCW: trace ranks of Win_start's group
    exposure: list[tuple] = field(default_factory=list)  # Win_post's epochs waiting
    starts: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    posts: dict[int, int] = field(default_factory=lambda: defaultdict(int))


class _Rank:
    def __init__(self, source: RankTrace) -> None:
        self.comms = Comms(source.comms)
        self.windows: dict[int, _Window] = {}
        self.made: dict[int, int] = defaultdict(int)  # windows per communicator id
        self.group_of: str = ""  # the call whose F_GROUP parts follow


class OneSided:
    """The transfers of a trace's RMA operations, found as its calls stream."""

    def __init__(self, matcher: Linker, ranks: list[RankTrace]) -> None:
        self.m = matcher
        self.present = {r.rank for r in ranks}
        self.names = {r.rank: [_base(n) for n in r.functions] for r in ranks}
        self.ranks = {r.rank: _Rank(r) for r in ranks}
        self.interesting = {r.rank: np.array([c == "rma" for c in r.classes]) for r in ranks}
        self.fences: dict[tuple, dict[int, Call]] = {}  # (window, n) -> rank -> fence
        self.fence_ops: dict[tuple, list[tuple[_Op, Call]]] = defaultdict(list)
        self.fence_members: dict[tuple, tuple[int, ...]] = {}
        self.access: dict[tuple, tuple[list[_Op], Call]] = {}  # PSCW origin side
        self.exposed: dict[tuple, Call] = {}  # PSCW target side: its Win_wait
        # callables told of each transfer: (its link, the operation's call, the
        # origin's call that completed it)
        self.on_transfer: list[Callable[[Link, Call, Call], None]] = []

    def feed(self, rank: int, row: tuple, call: Call) -> None:
        flags, name, st = row[10], self.names[rank][row[9]], self.ranks[rank]
        if flags & F_PART:
            if flags & F_GROUP:
                self._group_member(rank, row[6], call)
            return
        if flags & F_WINDOW_NEW:
            self._created(rank, row, st)
            return
        if not flags & F_WINDOW:
            if name in OPERATIONS:
                self.m.not_matched("rma", "its window is not recorded (a trace of an older "
                                   "tracer)")
            return
        w = st.windows.get(row[2])
        if name in OPERATIONS:
            self._operation(rank, w, name, row[6], call)
            return
        if w is None:
            return
        peer = row[6]
        st.group_of = name
        if name == "MPI_Win_fence":
            self._fence(rank, w, call)
        elif name == "MPI_Win_start":
            w.access = []
        elif name == "MPI_Win_complete":
            self._complete(rank, w, call)
        elif name == "MPI_Win_wait" or (name == "MPI_Win_test" and flags & F_TRUE):
            self._wait(w, call)
        elif name == "MPI_Win_lock":
            w.locks.add(peer)
        elif name == "MPI_Win_lock_all":
            w.lock_all = True
        elif name in ("MPI_Win_unlock", "MPI_Win_flush"):
            self._passive(rank, w, call, lambda op: op.window_rank == peer)
            if name == "MPI_Win_unlock":
                w.locks.discard(peer)
        elif name in ("MPI_Win_unlock_all", "MPI_Win_flush_all"):
            self._passive(rank, w, call, lambda op: True)
            if name == "MPI_Win_unlock_all":
                w.lock_all = False
        elif name == "MPI_Win_free":
            self._left(w.pending, "no call closed its epoch before MPI_Win_free")
            del st.windows[row[2]]

    # -- windows and operations
    def _created(self, rank: int, row: tuple, st: _Rank) -> None:
        d = st.comms.at(row[2], row[0])
        why = ""
        if d is None:
            why = "its window's communicator is not known"
        elif d.flags & COMM_F_INTER or not d.members:  # MPI_COMM_SELF is local, with members
            why = "its window's communicator has no agreed members (dynamic processes)"
        cid = d.id if d is not None else -row[2]
        st.made[cid] += 1
        members = None if why else tuple(d.members)  # type: ignore[union-attr]
        old = st.windows.get(row[3])
        if old is not None:  # its MPI_Win_free is not in the trace
            self._left(old.pending, "no call closed its epoch before its window was made again")
        st.windows[row[3]] = _Window((cid, st.made[cid]), members, why)

    def _operation(self, rank: int, w: _Window | None, name: str, peer: int,
                   call: Call) -> None:
        if peer == PEER_PROC_NULL:
            return  # no transfer
        if w is None:
            self.m.not_matched("rma", "its window's creation is not in the trace")
            return
        if w.members is None:
            self.m.not_matched("rma", w.why)
            return
        if not 0 <= peer < len(w.members):
            self.m.not_matched("rma", "target rank outside the window's group")
            return
        target = w.members[peer]
        if peer in w.locks:
            epoch = "lock"
        elif w.lock_all:
            epoch = "lock_all"
        elif w.access is not None and target in w.access:
            epoch = "pscw"
        else:
            epoch = "fence"
        self.m.hold(call)
        w.pending.append(_Op(call, name, target, peer, epoch))

    def _take(self, w: _Window, epochs: tuple[str, ...],
              which: Callable[[_Op], bool] = lambda op: True) -> list[_Op]:
        taken: list[_Op] = []
        kept: list[_Op] = []
        for op in w.pending:
            (taken if op.epoch in epochs and which(op) else kept).append(op)
        if taken:
            w.pending = kept
        return taken

    def _link(self, op: _Op, done: Call, end: Call | None) -> None:
        """Transfer `op`, complete at `done` (on the origin), drawn to `end`
        (None: to the target's track at the completion, which no call of the
        target marks)."""
        self.m.matched["rma"] += 1
        link = Link("rma", op.name, op.call.rank, op.target, op.call.start_ns, done.end_ns,
                    op.call.bytes, op.epoch)
        self.m.link(link, op.call, end)
        for tell in self.on_transfer:
            tell(link, op.call, done)
        self.m.release(op.call)

    # -- fence epochs: the n-th fence on a window is one on every member
    def _fence(self, rank: int, w: _Window, call: Call) -> None:
        w.fences += 1
        key = (w.id, w.fences)
        for op in self._take(w, ("fence",)):
            self.fence_ops[key].append((op, call))
        if w.members is None:
            return
        members = tuple(dict.fromkeys(w.members))
        if not set(members) <= self.present:
            for op, _ in self.fence_ops.pop(key, []):
                self.m.not_matched("rma", "the target's rank file is missing")
                self.m.release(op.call)
            return
        self.fence_members[key] = members
        self.fences.setdefault(key, {})[rank] = call
        self.m.hold(call)
        self._fence_done(key)

    def _fence_done(self, key: tuple) -> None:
        calls, members = self.fences[key], self.fence_members[key]
        if len(calls) < len(members):
            return
        for op, done in self.fence_ops.pop(key, []):
            end = calls.get(op.target)
            if end is None:
                self.m.not_matched("rma", "the target is not in the window's group")
                self.m.release(op.call)
            else:
                self._link(op, done, end)
        for call in calls.values():
            self.m.release(call)
        del self.fences[key], self.fence_members[key]

    # -- PSCW: the origin's n-th access epoch to a target, its n-th exposure to the origin
    def _group_member(self, rank: int, peer: int, call: Call) -> None:
        st = self.ranks[rank]
        w = st.windows.get(call.comm)
        if w is None or w.members is None or not 0 <= peer < len(w.members):
            return
        other = w.members[peer]
        if st.group_of == "MPI_Win_start" and w.access is not None:
            w.access.append(other)
        elif st.group_of == "MPI_Win_post":
            w.posts[other] += 1
            w.exposure.append((w.id, other, rank, w.posts[other]))

    def _complete(self, rank: int, w: _Window, call: Call) -> None:
        ops = self._take(w, ("pscw",))
        for target in w.access or []:
            w.starts[target] += 1
            key = (w.id, rank, target, w.starts[target])
            self.access[key] = ([op for op in ops if op.target == target], call)
            self._pscw_done(key)
        w.access = None

    def _wait(self, w: _Window, call: Call) -> None:
        for key in w.exposure:
            self.exposed[key] = call
            self.m.hold(call)
            self._pscw_done(key)
        w.exposure = []

    def _pscw_done(self, key: tuple) -> None:
        if key not in self.access or key not in self.exposed:
            return
        (ops, done), end = self.access.pop(key), self.exposed.pop(key)
        for op in ops:
            self._link(op, done, end)
        self.m.release(end)

    # -- passive target: complete at the origin's flush or unlock
    def _passive(self, rank: int, w: _Window, call: Call, which: Callable[[_Op], bool]) -> None:
        for op in self._take(w, ("lock", "lock_all"), which):
            self._link(op, call, None)

    def _left(self, ops: list[_Op], why: str) -> None:
        for op in ops:
            self.m.not_matched("rma", why)
            self.m.release(op.call)
        ops.clear()

    def finish(self) -> None:
        """What is left is not matched: say why, and let its calls go."""
        for st in self.ranks.values():
            for w in st.windows.values():
                self._left(w.pending, "no call closed its epoch on the origin (trace cut?)")
        for key, calls in self.fences.items():
            for op, _ in self.fence_ops.pop(key, []):
                self._left([op], "a member of the window never made the closing MPI_Win_fence")
            for call in calls.values():
                self.m.release(call)
        for ops in self.fence_ops.values():
            self._left([op for op, _ in ops], "its fence epoch was not closed on every member")
        for pending, _ in self.access.values():
            self._left(pending, "the target's MPI_Win_post/MPI_Win_wait epoch is not in the trace")
        for call in self.exposed.values():
            self.m.release(call)
        self.fences.clear()
        self.fence_ops.clear()
        self.access.clear()
        self.exposed.clear()


def _base(name: str) -> str:
    """MPI_Put_c -> MPI_Put: the large-count variants are the same operation."""
    return name[:-2] if name.endswith("_c") else name
