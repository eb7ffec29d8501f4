"""The global clock and the messages of a trace.

Each rank's stamps become nanoseconds on the global clock (rank 0's). A
rank on rank 0's host whose stamps are the same invariant counter (rdtsc,
cntvct_el0) needs no estimate: its stamps are converted with rank 0's
origin and rate, exactly; the synchronisation's estimate is only compared
with it (a counter not shared after all, off by far more than the
synchronisation's own bound, falls back to the estimate). Other ranks use
the two synchronisations of the trace: offset and drift, linear between
them (a constant offset when the end is missing). Times are then made
relative to the earliest call of the run.

Messages are matched as MPI matches them: the n-th send from rank s to
rank d on a communicator with a tag goes to the n-th receive posted on d
that received from s with that tag (non-overtaking). A receive's time is
its completion: the end of MPI_Recv, or of the Wait/Test call that
completed the MPI_Irecv; a send's time is the start of the send call.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mpiscope.trace.reader import (
    F_CANCELLED,
    F_COMPLETED,
    F_MESSAGE,
    F_PART,
    F_RECV_HALF,
    F_REQUEST_NEW,
    F_STARTED,
    NONE,
    PEER_ANY_SOURCE,
    TAG_ANY,
    CommDef,
    RankTrace,
    Trace,
    read_trace,
)

__all__ = ["Merged", "Message", "Scanner", "Timeline", "clock_function", "counter_shift", "load",
           "merge"]
SHARED_COUNTERS = ("rdtsc", "cntvct_el0")

P2P_CLASSES = {"send", "recv", "sendrecv", "isend", "irecv", "send_init", "recv_init", "start",
               "completion", "mrecv", "imrecv", "isendrecv", "probe"}
BLOCKING_COMPLETIONS = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"}


@dataclass
class Timeline:
    """One rank's calls on the global clock (records in start order)."""

    rank: int
    source: RankTrace
    records: np.ndarray
    start_ns: np.ndarray  # global, relative to the trace origin
    end_ns: np.ndarray  # unfinished calls end at the rank's last time
    main: np.ndarray  # bool: a call (not a part of the call before it)
    unfinished: np.ndarray  # bool
    last_ns: float  # the rank's last known time (its end stamp, if any)

    def name(self, i: int) -> str:
        return self.source.functions[int(self.records["func"][i])]

    def cls(self, i: int) -> str:
        return self.source.classes[int(self.records["func"][i])]


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

    @property
    def backwards(self) -> bool:
        return self.recv_ns < self.send_ns


@dataclass
class Merged:
    trace: Trace
    timelines: list[Timeline]
    messages: list[Message] = field(default_factory=list)
    unmatched_sends: int = 0
    unmatched_recvs: int = 0
    origin_ns: float = 0.0
    end_ns: float = 0.0
    shared_counter: dict[int, float] = field(default_factory=dict)  # rank -> estimate's error


    @property
    def backwards(self) -> int:
        return sum(1 for m in self.messages if m.backwards)


Clock = Callable[[np.ndarray], np.ndarray]


def counter_shift(rank: RankTrace, zero: RankTrace | None) -> Clock | None:
    """local ns -> rank 0's local ns when both read one invariant counter on one host."""
    if zero is None or rank is zero:
        return None
    meta, meta0 = rank.meta, zero.meta
    if not (meta.get("stamp") == meta0.get("stamp") == "ticks" and meta.get("host")
            and meta.get("host") == meta0.get("host")
            and meta.get("stamp_source") == meta0.get("stamp_source")
            and meta.get("stamp_source") in SHARED_COUNTERS):
        return None
    rate, rate0 = float(meta["ns_per_tick"]), float(meta0["ns_per_tick"])
    shift = (int(meta["origin_ticks"]) - int(meta0["origin_ticks"])) * rate0
    return lambda t: t / rate * rate0 + shift


def clock_function(rank: RankTrace) -> Callable[[np.ndarray], np.ndarray]:
    """local timer ns -> global ns (rank 0's clock), from the rank's syncs."""
    c0, c1 = rank.clocks.get(0), rank.clocks.get(1)
    if c0 is not None and c1 is not None and c1.local_ns > c0.local_ns:
        slope = (c1.offset_ns - c0.offset_ns) / (c1.local_ns - c0.local_ns)
        return lambda t: t + c0.offset_ns + slope * (t - c0.local_ns)
    if c0 is not None:
        return lambda t: t + c0.offset_ns
    return lambda t: t


def _global_clock(rank: RankTrace, zero: RankTrace | None,
                  shared: dict[int, float]) -> Callable[[np.ndarray], np.ndarray]:
    """The shared counter when there is one and the estimate agrees with it
    within 10 times the estimate's own bound (residual and half the best
    round trip, at least 10 us); else the estimate."""
    estimate = clock_function(rank)
    exact = counter_shift(rank, zero)
    c0 = rank.clocks.get(0)
    if exact is None or c0 is None:
        return estimate
    at = np.array([c0.local_ns])
    error = float(estimate(at)[0] - exact(at)[0])
    residual = zero.clocks[0].residual_ns if zero and 0 in zero.clocks else ()
    bound = (abs(residual[rank.rank]) if rank.rank < len(residual) else 0.0) + c0.rtt_min_ns / 2
    if abs(error) > 10 * max(bound, 1000.0):
        return estimate
    shared[rank.rank] = error
    return exact


def load(path: str | Path) -> Merged:
    return merge(read_trace(path))


def merge(trace: Trace) -> Merged:
    raw = []
    zero = next((r for r in trace.ranks if r.rank == 0), None)
    shared: dict[int, float] = {}
    clocks = {r.rank: _global_clock(r, zero, shared) for r in trace.ranks}
    for rank in trace.ranks:
        to_global = clocks[rank.rank]
        rec = rank.records
        start = to_global(rank.local_ns(rec["t_enter"]))
        unfinished = rec["t_exit"] == 0
        end = to_global(rank.local_ns(np.where(unfinished, rec["t_enter"], rec["t_exit"])))
        raw.append((rank, start, end, unfinished))
    starts = [s[0] for _, s, _, _ in raw if len(s)]
    origin = float(min(starts)) if starts else 0.0
    timelines = []
    for rank, start, end, unfinished in raw:
        last = float(np.max(end)) if len(end) else origin
        if rank.end_stamp:
            stamp = rank.local_ns(np.array([rank.end_stamp]))
            last = max(last, float(clocks[rank.rank](stamp)[0]))
        end = np.where(unfinished, last, end)
        main = (rank.records["flags"] & F_PART) == 0
        timelines.append(Timeline(rank.rank, rank, rank.records, start - origin, end - origin,
                                  main, unfinished, last - origin))
    merged = Merged(trace, timelines, origin_ns=origin, shared_counter=shared)
    merged.end_ns = max((t.last_ns for t in timelines), default=0.0)
    _match_messages(merged)
    return merged


class _Comms:
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


@dataclass
class _Request:
    kind: str  # "send" | "recv" | "other"
    comm: CommDef | None
    peer: int
    tag: int
    nbytes: int
    persistent: bool
    post_ns: float
    index: int
    active: bool = False  # a receive posted, not completed yet


def _match_messages(merged: Merged) -> None:
    sends: dict[tuple[int, int, int, int], list[tuple[float, tuple]]] = defaultdict(list)
    recvs: dict[tuple[int, int, int, int], list[tuple[float, tuple]]] = defaultdict(list)
    for tl in merged.timelines:
        scanner = Scanner(tl.rank, tl.source,
                          lambda key, t0, s: sends[key].append((t0, s)),
                          lambda key, post, r: recvs[key].append((post, r)))
        rec = tl.records
        for i in np.nonzero(scanner.interesting[rec["func"]])[0]:
            i = int(i)
            scanner.feed(i, rec[i].item(), float(tl.start_ns[i]), float(tl.end_ns[i]),
                         not bool(tl.unfinished[i]))
    for key, send_list in sends.items():
        recv_list = recvs.get(key, [])
        send_list.sort(key=lambda x: x[0])
        recv_list.sort(key=lambda x: x[0])
        for (_, s), (_, r) in zip(send_list, recv_list, strict=False):
            merged.messages.append(Message(key[1], key[2], key[0], key[3], *s, *r))
        merged.unmatched_sends += max(0, len(send_list) - len(recv_list))
    for key, recv_list in recvs.items():
        merged.unmatched_recvs += max(0, len(recv_list) - len(sends.get(key, [])))
    merged.messages.sort(key=lambda m: m.send_ns)


Key = tuple[int, int, int, int]  # (comm id, src, dst, tag)
# a record as a tuple (RECORD_DTYPE's fields, in order, then the thread)
T_ENTER, COMM, REQUEST, PEER, TAG, BYTES, FUNC, FLAGS = 0, 2, 3, 6, 7, 5, 9, 10


class Scanner:
    """The sends and receives of one rank, fed its calls in start order
    (``interesting`` says which function ids to feed: the others are no
    message's). ``on_send(key, t0, (bytes, index, t0, t1, blocking))`` and
    ``on_recv(key, post, (index, post, wait, done, blocking))`` receive them;
    ``active`` counts the receives posted and not completed yet, by post time
    (a stream releases a completed receive once none posted before it is open)."""

    def __init__(self, rank: int, source: RankTrace, on_send: Callable[[Key, float, tuple], None],
                 on_recv: Callable[[Key, float, tuple], None]) -> None:
        self.rank, self.on_send, self.on_recv = rank, on_send, on_recv
        self.classes, self.names = source.classes, source.functions
        self.comms = _Comms(source.comms)
        self.open_reqs: dict[int, deque[_Request]] = defaultdict(deque)
        self.message_comm: dict[int, deque[CommDef | None]] = defaultdict(deque)
        self.interesting = np.array([c in P2P_CLASSES or n == "MPI_Request_free"
                                     for c, n in zip(self.classes, self.names, strict=True)])
        self.active: dict[float, int] = defaultdict(int)
        self.parent: tuple | None = None  # the last call fed: (index, record, start)

    def _send(self, c: CommDef | None, peer: int, tag: int, nbytes: int, idx: int, t0: float,
              t1: float, blocking: bool) -> None:
        dst = _Comms.translate(c, peer)
        if c is not None and dst is not None:
            self.on_send((c.id, self.rank, dst, tag), t0, (nbytes, idx, t0, t1, blocking))

    def _recv(self, c: CommDef | None, peer: int, tag: int, idx: int, post: float, wait: float,
              done: float, blocking: bool) -> None:
        src = _Comms.translate(c, peer)
        if c is not None and src is not None:
            self.on_recv((c.id, src, self.rank, tag), post, (idx, post, wait, done, blocking))

    def _message(self, handle: int) -> CommDef | None:
        """The communicator of a probed message, taken by its receive."""
        queue = self.message_comm[handle]
        comm = queue.popleft()
        if not queue:
            del self.message_comm[handle]
        return comm

    def _post(self, info: _Request, at: float) -> None:
        if info.kind == "recv" and not info.active:
            info.active, info.post_ns = True, at
            self.active[at] += 1

    def _unpost(self, info: _Request) -> None:
        if info.active:
            info.active = False
            self.active[info.post_ns] -= 1
            if not self.active[info.post_ns]:
                del self.active[info.post_ns]

    def feed(self, i: int, r: tuple, start: float, end: float, finished: bool) -> None:
        """One record (a tuple of RECORD_DTYPE's fields) with its global times."""
        flags, func, handle = r[FLAGS], r[FUNC], r[REQUEST]
        cls, name = self.classes[func], self.names[func]
        if flags & F_PART:
            if self.parent is not None:
                self._part(r, flags, cls, handle, start, end, finished)
            return
        self.parent = (i, r, start)
        comm = self.comms.at(r[COMM], r[T_ENTER]) if r[COMM] else None
        peer, tag, nbytes = r[PEER], r[TAG], r[BYTES]
        if cls in ("send", "sendrecv", "isend", "isendrecv"):
            self._send(comm, peer, tag, nbytes, i, start, end, cls in ("send", "sendrecv"))
        elif cls == "recv" and finished and not flags & F_CANCELLED:
            self._recv(comm, peer, tag, i, start, start, end, True)
        elif cls == "mrecv" and finished and flags & F_MESSAGE and self.message_comm.get(handle):
            self._recv(self._message(handle), peer, tag, i, start, start, end, True)
        elif cls == "probe" and flags & F_MESSAGE:
            self.message_comm[handle].append(comm)
        elif cls == "start" and handle:
            self._start(handle, i, start)
        elif name == "MPI_Request_free" and self.open_reqs.get(handle):
            self._unpost(self.open_reqs[handle].pop())
            if not self.open_reqs[handle]:
                del self.open_reqs[handle]
        if flags & F_REQUEST_NEW:
            kind = "recv" if cls in ("irecv", "recv_init", "isendrecv", "imrecv") else (
                "send" if cls in ("isend", "send_init") else "other")
            info = _Request(kind, comm, peer, tag, nbytes, cls in ("send_init", "recv_init"),
                            start, i)
            self.open_reqs[handle].append(info)
            if not info.persistent:
                self._post(info, start)

    def _part(self, r: tuple, flags: int, cls: str, handle: int, start: float, end: float,
              finished: bool) -> None:
        parent, prec, pstart = self.parent  # type: ignore[misc]
        if flags & F_RECV_HALF and cls == "sendrecv" and finished:
            comm = self.comms.at(prec[COMM], r[T_ENTER])
            self._recv(comm, r[PEER], r[TAG], parent, start, start, end, True)
        elif flags & F_RECV_HALF and cls == "isendrecv":
            # the receive as posted: the request's envelope (not the send's)
            created = self.open_reqs.get(prec[REQUEST])
            if created and created[-1].index == parent:
                created[-1].peer, created[-1].tag = r[PEER], r[TAG]
        elif flags & F_COMPLETED and self.open_reqs.get(handle):
            queue = self.open_reqs[handle]
            info = queue[0] if queue[0].persistent else queue.popleft()
            if not queue:
                del self.open_reqs[handle]  # a stream keeps only what is open
            post = info.post_ns
            self._unpost(info)
            if info.kind == "recv" and not flags & F_CANCELLED:
                blocking = self.names[prec[FUNC]] in BLOCKING_COMPLETIONS
                peer, tag = _envelope(info, r[PEER], r[TAG])
                self._recv(info.comm, peer, tag, parent, post, start, end, blocking)
        elif flags & F_STARTED:
            self._start(handle, parent, start)
        elif flags & F_MESSAGE and self.message_comm.get(handle):
            created = self.open_reqs.get(prec[REQUEST])
            comm = self._message(handle)
            if created:
                created[-1].comm = comm

    def _start(self, handle: int, index: int, start: float) -> None:
        """MPI_Start of a persistent request: a send leaves now (from the
        MPI_Start call); a receive is posted."""
        queue = self.open_reqs.get(handle)
        if not queue:
            return
        info = queue[-1]
        if info.kind == "send":
            self._send(info.comm, info.peer, info.tag, info.nbytes, index, start, start, False)
        self._unpost(info)
        self._post(info, start)
        info.post_ns = start


def _envelope(info: _Request, status_peer: int, status_tag: int) -> tuple[int, int]:
    """Source and tag of a completed receive: as posted, unless posted as a
    wildcard; only then from the status (MPICH leaves the status of an
    MPI_Isendrecv unfilled: trusting it paired every later message wrongly)."""
    peer = status_peer if info.peer in (PEER_ANY_SOURCE, NONE) else info.peer
    tag = status_tag if info.tag in (TAG_ANY, NONE) else info.tag
    return peer, tag
