"""Collective instances: blocking, nonblocking and persistent collectives.

MPI orders the collectives of a communicator: every member makes them in
the same order, blocking and nonblocking alike, and the initialization of
a persistent one (MPI_Bcast_init, ...) takes its place in that order too.
So the n-th collective on a communicator id of each member is one
instance; each MPI_Start of the n-th persistent request makes one more.
A member's part runs from its initiating call (the collective itself,
MPI_Ibcast, MPI_Start) to its completion (the same call, or the Wait/Test
that completed the request). An instance is whole once every member's part
is complete: it is then linked from the initiating call of the last member
to arrive to the completing call of each other member.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

import numpy as np

from mpiscope.trace.calls import Call, Comms, Link, Linker
from mpiscope.trace.reader import (
    COMM_F_INTER,
    F_COMPLETED,
    F_PART,
    F_REQUEST_NEW,
    F_STARTED,
    RankTrace,
)

__all__ = ["Collectives", "Instance", "Part"]

CLASSES = {"collective", "icollective", "collective_init", "start"}
KIND = {"collective": "blocking", "icollective": "nonblocking", "collective_init": "persistent"}


@dataclass(eq=False)
class Part:
    """One member's part of an instance."""

    rank: int
    name: str
    kind: str  # blocking, nonblocking, persistent
    start: Call  # the initiating call
    in_ns: float  # its start: the member arrives
    done: Call | None = None  # the call that completed it
    held: list[Call] = field(default_factory=list)
    key: tuple = ()  # (comm id, position[, start])

    @property
    def wait_span(self) -> tuple[float, float]:
        """The completing call: where the member is blocked."""
        assert self.done is not None
        return self.done.start_ns, self.done.end_ns


@dataclass(frozen=True)
class Instance:
    name: str
    kind: str
    comm_id: int
    parts: tuple[Part, ...]  # in the communicator's member order


@dataclass
class _Persistent:
    name: str
    key: tuple[int, int]  # (comm id, position)
    members: tuple[int, ...]
    starts: int = 0
    active: Part | None = None


class _Rank:
    def __init__(self, source: RankTrace) -> None:
        self.comms = Comms(source.comms)
        self.position: dict[int, int] = defaultdict(int)  # collectives per comm id so far
        self.open: dict[int, deque[Part]] = defaultdict(deque)  # nonblocking, by request
        self.persistent: dict[int, deque[_Persistent]] = defaultdict(deque)


class Collectives:
    """The instances of a trace's collectives, found as its calls stream."""

    def __init__(self, matcher: Linker, ranks: list[RankTrace]) -> None:
        self.m = matcher
        self.present = {r.rank for r in ranks}
        self.names = {r.rank: r.functions for r in ranks}
        self.classes = {r.rank: r.classes for r in ranks}
        self.ranks = {r.rank: _Rank(r) for r in ranks}
        # the calls to feed always; completions and new requests only while
        # the rank has collective requests open (``busy``)
        self.interesting = {r.rank: np.array([c in CLASSES or n == "MPI_Request_free"
                                              for c, n in zip(r.classes, r.functions,
                                                              strict=True)])
                            for r in ranks}
        self.parts: dict[tuple, dict[int, Part]] = {}
        self.members: dict[tuple, tuple[int, ...]] = {}
        self.on_instance: list = []  # callables told of each instance

    def _members(self, rank: int, comm: int, stamp: int, count: int = 1) -> tuple[int, ...] | None:
        """The members of a collective's communicator, or None (said why) when
        its instances cannot be whole."""
        d = self.ranks[rank].comms.at(comm, stamp)
        why = ""
        if d is None:
            why = "communicator not known (created while the tracer was paused?)"
        elif d.flags & COMM_F_INTER:
            why = "on an intercommunicator (not matched)"
        elif not d.members:  # a local id with members is MPI_COMM_SELF's
            why = "communicator without agreed members (dynamic processes)"
        elif not set(d.members) <= self.present:
            why = "a member's rank file is missing"
        if why or d is None:
            self.m.not_matched("collective", why, count)
            return None
        members = tuple(dict.fromkeys(d.members))  # a damaged file may repeat a rank
        return members if len(members) > 1 and rank in members else None

    def _place(self, rank: int, comm: int, stamp: int) -> tuple[tuple[int, int], tuple] | None:
        members = self._members(rank, comm, stamp)
        if members is None:
            return None
        d = self.ranks[rank].comms.at(comm, stamp)
        assert d is not None
        st = self.ranks[rank]
        position = st.position[d.id]
        st.position[d.id] = position + 1
        return (d.id, position), members

    def feed(self, rank: int, row: tuple, call: Call) -> None:
        flags, func, handle = row[10], row[9], row[3]
        cls, name = self.classes[rank][func], self.names[rank][func]
        st = self.ranks[rank]
        if flags & F_PART:
            if flags & F_STARTED:
                self._start(rank, handle, call)
            elif flags & F_COMPLETED:
                self._completed(rank, handle, call)
            return
        if cls == "collective":
            placed = self._place(rank, row[2], row[0])
            if placed is not None:
                part = Part(rank, name, "blocking", call, call.start_ns)
                if not call.unfinished:
                    part.done = call
                self._add(placed[0], placed[1], part)
        elif cls == "icollective" and flags & F_REQUEST_NEW:
            placed = self._place(rank, row[2], row[0])
            if placed is not None:
                part = Part(rank, name, "nonblocking", call, call.start_ns)
                st.open[handle].append(part)
                self._add(placed[0], placed[1], part)
        elif cls == "collective_init" and flags & F_REQUEST_NEW:
            placed = self._place(rank, row[2], row[0])
            if placed is not None:
                st.persistent[handle].append(_Persistent(name, placed[0], placed[1]))
        elif cls == "start" and handle:
            self._start(rank, handle, call)
        elif name == "MPI_Request_free":
            if st.persistent.get(handle):
                st.persistent[handle].popleft()
                if not st.persistent[handle]:
                    del st.persistent[handle]
        elif flags & F_REQUEST_NEW:
            # another kind of request took the handle: any collective one is gone
            st.open.pop(handle, None)
            st.persistent.pop(handle, None)

    def busy(self, rank: int) -> bool:
        """The rank has collective requests open: its completions matter."""
        st = self.ranks[rank]
        return bool(st.open or st.persistent)

    def _start(self, rank: int, handle: int, call: Call) -> None:
        queue = self.ranks[rank].persistent.get(handle)
        if not queue:
            return
        p = queue[0]
        p.starts += 1
        part = Part(rank, p.name, "persistent", call, call.start_ns)
        p.active = part
        self._add((*p.key, p.starts), p.members, part)

    def _completed(self, rank: int, handle: int, call: Call) -> None:
        st = self.ranks[rank]
        if st.open.get(handle):
            part = st.open[handle].popleft()
            if not st.open[handle]:
                del st.open[handle]
        elif st.persistent.get(handle) and st.persistent[handle][0].active is not None:
            p = st.persistent[handle][0]
            part, p.active = p.active, None  # type: ignore[assignment]  # not None: tested above
        else:
            return
        part.done = call
        if call is not part.start:
            self.m.hold(call)
            part.held.append(call)
        self._check(part.key)

    def _add(self, key: tuple, members: tuple[int, ...], part: Part) -> None:
        self.m.hold(part.start)
        part.held.append(part.start)
        part.key = key
        self.members.setdefault(key, members)
        self.parts.setdefault(key, {})[part.rank] = part
        self._check(key)

    def _check(self, key: tuple) -> None:
        parts, members = self.parts.get(key), self.members.get(key)
        if parts is None or members is None or len(parts) < len(members):
            return
        if any(p.done is None for p in parts.values()):
            return
        del self.parts[key], self.members[key]
        ordered = tuple(parts[r] for r in members if r in parts)
        name = ordered[0].name
        if any(p.name != name for p in ordered) or len(ordered) != len(members):
            self.m.not_matched("collective", "different collectives at one position on a "
                               "communicator", len(ordered))
        else:
            self._instance(Instance(name, ordered[0].kind, key[0], ordered))
        for p in ordered:
            for c in p.held:
                self.m.release(c)

    def _instance(self, inst: Instance) -> None:
        self.m.matched["collective"] += 1
        last = max(inst.parts, key=lambda p: p.in_ns)
        for p in inst.parts:
            if p is not last:
                assert p.done is not None
                self.m.link(Link("collective", inst.name, last.rank, p.rank, last.in_ns,
                                 p.done.end_ns, last.start.bytes, inst.kind), last.start, p.done)
        for tell in self.on_instance:
            tell(inst)

    def finish(self) -> None:
        """What is left is not whole: say why, and let its calls go."""
        for key, parts in self.parts.items():
            members = self.members[key]
            if len(parts) < len(members):
                why = "a member never made it (its trace ends before, or was paused)"
            else:
                why = "not completed (no Wait/Test completed its request)"
            self.m.not_matched("collective", why, len(parts))
            for p in parts.values():
                for c in p.held:
                    self.m.release(c)
        self.parts.clear()
        self.members.clear()
