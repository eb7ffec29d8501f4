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

__all__ = ["Merged", "Message", "Timeline", "clock_function", "counter_shift", "load", "merge"]
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


def _match_messages(merged: Merged) -> None:
    sends: dict[tuple[int, int, int, int], list[tuple[float, tuple]]] = defaultdict(list)
    recvs: dict[tuple[int, int, int, int], list[tuple[float, tuple]]] = defaultdict(list)
    for tl in merged.timelines:
        _scan_rank(tl, sends, recvs)
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


def _scan_rank(tl: Timeline, sends: dict, recvs: dict) -> None:
    """The sends and receives of one rank, keyed by (comm id, src, dst, tag)."""
    rank, rec = tl.rank, tl.records
    classes, names = tl.source.classes, tl.source.functions
    comms = _Comms(tl.source.comms)
    open_reqs: dict[int, deque[_Request]] = defaultdict(deque)
    message_comm: dict[int, deque[CommDef | None]] = defaultdict(deque)
    interesting = np.array([c in P2P_CLASSES or n == "MPI_Request_free"
                            for c, n in zip(classes, names, strict=True)])

    def add_send(c: CommDef | None, peer: int, tag: int, nbytes: int, idx: int, t0: float,
                 t1: float, blocking: bool) -> None:
        dst = _Comms.translate(c, peer)
        if c is not None and dst is not None:
            sends[(c.id, rank, dst, tag)].append((t0, (nbytes, idx, t0, t1, blocking)))

    def add_recv(c: CommDef | None, peer: int, tag: int, idx: int, post: float, wait: float,
                 done: float, blocking: bool) -> None:
        src = _Comms.translate(c, peer)
        if c is not None and src is not None:
            recvs[(c.id, src, rank, tag)].append((post, (idx, post, wait, done, blocking)))

    parent = -1
    for i in np.nonzero(interesting[rec["func"]])[0]:
        i = int(i)
        r = rec[i]
        flags = int(r["flags"])
        cls, name = classes[r["func"]], names[r["func"]]
        start, end = float(tl.start_ns[i]), float(tl.end_ns[i])
        finished = not bool(tl.unfinished[i])
        handle = int(r["request"])
        if flags & F_PART:
            if parent < 0:
                continue
            if flags & F_RECV_HALF and cls == "sendrecv" and finished:
                comm = comms.at(int(rec["comm"][parent]), int(r["t_enter"]))
                add_recv(comm, int(r["peer"]), int(r["tag"]), parent, start, start, end, True)
            elif flags & F_RECV_HALF and cls == "isendrecv":
                # the receive as posted: the request's envelope (not the send's)
                created = open_reqs.get(int(rec["request"][parent]))
                if created and created[-1].index == parent:
                    created[-1].peer, created[-1].tag = int(r["peer"]), int(r["tag"])
            elif flags & F_COMPLETED and open_reqs.get(handle):
                queue = open_reqs[handle]
                info = queue[0] if queue[0].persistent else queue.popleft()
                if info.kind == "recv" and not flags & F_CANCELLED:
                    blocking = names[rec["func"][parent]] in BLOCKING_COMPLETIONS
                    peer, tag = _envelope(info, int(r["peer"]), int(r["tag"]))
                    add_recv(info.comm, peer, tag, parent, info.post_ns, start, end, blocking)
            elif flags & F_STARTED:
                _start(open_reqs, handle, start, add_send)
            elif flags & F_MESSAGE and message_comm.get(handle):
                created = open_reqs.get(int(rec["request"][parent]))
                comm = message_comm[handle].popleft()
                if created:
                    created[-1].comm = comm
            continue
        parent = i
        comm = comms.at(int(r["comm"]), int(r["t_enter"])) if r["comm"] else None
        peer, tag, nbytes = int(r["peer"]), int(r["tag"]), int(r["bytes"])
        if cls in ("send", "sendrecv", "isend", "isendrecv"):
            add_send(comm, peer, tag, nbytes, i, start, end, cls in ("send", "sendrecv"))
        elif cls == "recv" and finished and not flags & F_CANCELLED:
            add_recv(comm, peer, tag, i, start, start, end, True)
        elif cls == "mrecv" and finished and flags & F_MESSAGE and message_comm.get(handle):
            add_recv(message_comm[handle].popleft(), peer, tag, i, start, start, end, True)
        elif cls == "probe" and flags & F_MESSAGE:
            message_comm[handle].append(comm)
        elif cls == "start" and handle:
            _start(open_reqs, handle, start, add_send)
        elif name == "MPI_Request_free" and open_reqs.get(handle):
            open_reqs[handle].pop()
        if flags & F_REQUEST_NEW:
            kind = "recv" if cls in ("irecv", "recv_init", "isendrecv", "imrecv") else (
                "send" if cls in ("isend", "send_init") else "other")
            open_reqs[handle].append(_Request(kind, comm, peer, tag, nbytes,
                                              cls in ("send_init", "recv_init"), start, i))


def _envelope(info: _Request, status_peer: int, status_tag: int) -> tuple[int, int]:
    """Source and tag of a completed receive: as posted, unless posted as a
    wildcard; only then from the status (MPICH leaves the status of an
    MPI_Isendrecv unfilled: trusting it paired every later message wrongly)."""
    peer = status_peer if info.peer in (PEER_ANY_SOURCE, NONE) else info.peer
    tag = status_tag if info.tag in (TAG_ANY, NONE) else info.tag
    return peer, tag


def _start(open_reqs: dict, handle: int, start: float,
           add_send: Callable[..., None]) -> None:
    """MPI_Start of a persistent request: a send leaves now; a receive is posted."""
    queue = open_reqs.get(handle)
    if not queue:
        return
    info = queue[-1]
    if info.kind == "send":
        add_send(info.comm, info.peer, info.tag, info.nbytes, info.index, start, start, False)
    info.post_ns = start
