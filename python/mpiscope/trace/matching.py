"""Matching a trace's calls across ranks: the one matcher of the views.

Calls come in global start order (a chunk of rows at a time, from the
streamed rank files or from the in-memory trace: :func:`match_all`), and
:class:`Matcher` finds what links them:

* point-to-point messages, as MPI matches them: the n-th send from rank s
  to rank d on a communicator with a tag goes to the n-th receive posted on
  d that received from s with that tag (non-overtaking). A receive's time is
  its completion (the end of MPI_Recv, or of the Wait/Test call that
  completed the MPI_Irecv); a send's time is the start of the send call;
* partitioned messages the same way, in their own matching space
  (MPI_Psend_init to MPI_Precv_init of the same envelope, in order; each
  MPI_Start to completion is one message);
* collective instances (:mod:`mpiscope.trace.collective`) and one-sided
  transfers (:mod:`mpiscope.trace.rma`), as :class:`Link` objects.

A call is handed on once every link it takes part in is known, each with
the ids of the arrows it starts (``flows_out``) and ends (``flows_in``).
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mpiscope.trace.calls import Call, Comms, Link, Message
from mpiscope.trace.collective import Collectives
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
    THREAD_RECORD_DTYPE,
    CommDef,
    RankTrace,
)
from mpiscope.trace.rma import OneSided

__all__ = ["GLOBAL_DTYPE", "Call", "Comms", "Key", "Link", "Matcher", "Message", "Scanner"]

GLOBAL_DTYPE = np.dtype(THREAD_RECORD_DTYPE.descr + [("start", "<f8"), ("end", "<f8"),
                                                      ("rank", "<u4")])
ROWS = 1024  # records turned into Python objects at a time
P2P_CLASSES = {"send", "recv", "sendrecv", "isend", "irecv", "send_init", "recv_init", "start",
               "completion", "mrecv", "imrecv", "isendrecv", "probe"}
PARTITIONED_INITS = {"MPI_Psend_init": "send", "MPI_Precv_init": "recv"}
# calls that do not complete a message but say what became of a request
OUTCOMES = {"MPI_Request_free", "MPI_Cancel", "MPI_Request_get_status",
            "MPI_Request_get_status_all", "MPI_Request_get_status_any",
            "MPI_Request_get_status_some"}
CANCELLED_SEND = "a send whose MPI_Cancel succeeded: no message, left out"
CANCELLED_RECV = "a receive whose MPI_Cancel succeeded: no message, left out"
BLOCKING_COMPLETIONS = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"}


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
    partitioned: bool = False
    started: bool = False  # a persistent request's instance, not completed yet
    sent: tuple[Key, int] | None = None  # the send's key and call index, while it may be cancelled
    cancelling: bool = False  # MPI_Cancel called on it, its outcome not known yet


Key = tuple  # (comm id, src, dst, tag), and "partitioned" for a partitioned message
# a record as a tuple (RECORD_DTYPE's fields, in order, then the thread)
T_ENTER, COMM, REQUEST, PEER, TAG, BYTES, ROOT, FUNC, FLAGS = 0, 2, 3, 6, 7, 5, 8, 9, 10


class Scanner:
    """The sends and receives of one rank, fed its calls in start order
    (``interesting`` says which function ids to feed: the others are no
    message's). ``on_send(key, t0, (bytes, index, t0, t1, blocking))`` and
    ``on_recv(key, post, (index, post, wait, done, blocking))`` receive them;
    ``on_cancel(key, index, outcome)`` hears of a send that MPI_Cancel may
    have taken back (outcome None: not known yet, True: cancelled, False: sent);
    ``active`` counts the receives posted and not completed yet, by post time
    (a stream releases a completed receive once none posted before it is open)."""

    def __init__(self, rank: int, source: RankTrace, on_send: Callable[[Key, float, tuple], None],
                 on_recv: Callable[[Key, float, tuple], None],
                 on_cancel: Callable[[Key, int, bool | None], None] | None = None,
                 on_cancelled_recv: Callable[[], None] | None = None) -> None:
        self.rank, self.on_send, self.on_recv = rank, on_send, on_recv
        self.on_cancel, self.on_cancelled_recv = on_cancel, on_cancelled_recv
        self.classes, self.names = source.classes, source.functions
        self.comms = Comms(source.comms)
        self.open_reqs: dict[int, deque[_Request]] = defaultdict(deque)
        self.message_comm: dict[int, deque[CommDef | None]] = defaultdict(deque)
        self.interesting = np.array([c in P2P_CLASSES or n in OUTCOMES
                                     or n in PARTITIONED_INITS
                                     for c, n in zip(self.classes, self.names, strict=True)])
        self.active: dict[float, int] = defaultdict(int)
        self.parent: tuple | None = None  # the last call fed: (index, record, start)

    def _send(self, c: CommDef | None, peer: int, tag: int, nbytes: int, idx: int, t0: float,
              t1: float, blocking: bool, partitioned: bool = False) -> tuple | None:
        """The send's key and index (None: no message: MPI_PROC_NULL, unknown)."""
        dst = Comms.translate(c, peer)
        if c is not None and dst is not None:
            key = (c.id, self.rank, dst, tag) + (("partitioned",) if partitioned else ())
            self.on_send(key, t0, (nbytes, idx, t0, t1, blocking))
            return key, idx
        return None

    def _recv(self, c: CommDef | None, peer: int, tag: int, idx: int, post: float, wait: float,
              done: float, blocking: bool, partitioned: bool = False) -> None:
        src = Comms.translate(c, peer)
        if c is not None and src is not None:
            key = (c.id, src, self.rank, tag) + (("partitioned",) if partitioned else ())
            self.on_recv(key, post, (idx, post, wait, done, blocking))

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
        sent = None
        if cls in ("send", "sendrecv", "isend", "isendrecv"):
            sent = self._send(comm, peer, tag, nbytes, i, start, end, cls in ("send", "sendrecv"))
        elif cls == "recv" and finished and not flags & F_CANCELLED:
            self._recv(comm, peer, tag, i, start, start, end, True)
        elif cls == "mrecv" and finished and flags & F_MESSAGE and self.message_comm.get(handle):
            self._recv(self._message(handle), peer, tag, i, start, start, end, True)
        elif cls == "probe" and flags & F_MESSAGE:
            self.message_comm[handle].append(comm)
        elif cls == "start" and handle:
            self._start(handle, i, start)
        elif name == "MPI_Request_free" and self.open_reqs.get(handle):
            info = self.open_reqs[handle].pop()
            self._unpost(info)
            self._outcome(info, False)  # freed before its cancel was known: a message
            if not self.open_reqs[handle]:
                del self.open_reqs[handle]
        elif name == "MPI_Cancel" and self.open_reqs.get(handle):
            info = self.open_reqs[handle][-1]
            if info.sent is not None and self.on_cancel is not None:
                info.cancelling = True
                self.on_cancel(*info.sent, None)
        if flags & F_REQUEST_NEW:
            kind = "recv" if cls in ("irecv", "recv_init", "isendrecv", "imrecv") else (
                "send" if cls in ("isend", "send_init") else PARTITIONED_INITS.get(name, "other"))
            partitioned = name in PARTITIONED_INITS
            if partitioned and nbytes >= 0 and r[ROOT] > 0:
                nbytes *= r[ROOT]  # bytes of a partition times the partitions
            info = _Request(kind, comm, peer, tag, nbytes,
                            cls in ("send_init", "recv_init") or partitioned, start, i,
                            partitioned=partitioned)
            self.open_reqs[handle].append(info)
            if not info.persistent:
                info.sent = sent if cls == "isend" else None
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
            if info.persistent and not info.started:
                return  # an inactive request, or one MPI_Request_get_status found done
            info.started = False
            post = info.post_ns
            self._unpost(info)
            self._outcome(info, bool(flags & F_CANCELLED))
            if info.kind == "recv" and flags & F_CANCELLED and self.on_cancelled_recv:
                self.on_cancelled_recv()
            if info.kind == "recv" and not flags & F_CANCELLED:
                blocking = self.names[prec[FUNC]] in BLOCKING_COMPLETIONS
                peer, tag = _envelope(info, r[PEER], r[TAG])
                self._recv(info.comm, peer, tag, parent, post, start, end, blocking,
                           info.partitioned)
        elif flags & F_STARTED:
            self._start(handle, parent, start)
        elif flags & F_MESSAGE and self.message_comm.get(handle):
            created = self.open_reqs.get(prec[REQUEST])
            comm = self._message(handle)
            if created:
                created[-1].comm = comm

    def _outcome(self, info: _Request, cancelled: bool) -> None:
        """What became of a send that a cancel may have taken back."""
        if info.sent is not None and (info.cancelling or cancelled) and self.on_cancel:
            self.on_cancel(*info.sent, cancelled)
        info.sent, info.cancelling = None, False

    def _start(self, handle: int, index: int, start: float) -> None:
        """MPI_Start of a persistent request: a send leaves now (from the
        MPI_Start call); a receive is posted."""
        queue = self.open_reqs.get(handle)
        if not queue:
            return
        info = queue[-1]
        info.started = True
        if info.kind == "send":
            info.sent = self._send(info.comm, info.peer, info.tag, info.nbytes, index, start,
                                   start, False, info.partitioned)
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


OnMessage = Callable[[int, Message, Call, Call], None]
OnLink = Callable[[int, Link, Call, Call | None], None]


class Matcher:
    """Scanners per rank, the message queues, the collective and one-sided
    trackers, and the calls held for their arrows. ``unmatched_why`` counts,
    per kind, what could not be matched and why."""

    def __init__(self, ranks: list[RankTrace], ordered: bool = False,
                 on_message: OnMessage | None = None, on_link: OnLink | None = None) -> None:
        self.ordered, self.on_message, self.on_link = ordered, on_message, on_link
        self.sends: dict[Key, deque[tuple[tuple, Call]]] = defaultdict(deque)
        # sends a cancel may void, by (key, index) (an MPI_Startall starts several at one index)
        self.cancelling: Counter[tuple[Key, int]] = Counter()
        self.ready: dict[Key, deque[tuple[tuple, Call]]] = defaultdict(deque)
        self.waiting: dict[int, list[tuple[float, int, Key, tuple, Call]]] = defaultdict(list)
        self.seq = 0
        self.next_id = 1
        self.matched: Counter[str] = Counter()  # message, partitioned, collective, rma
        self.unmatched_why: dict[str, Counter[str]] = defaultdict(Counter)
        self.out: list[Call] = []
        self.held: dict[tuple[int, int], deque[Call]] = defaultdict(deque)
        self.current: dict[int, Call] = {}  # the last call of each rank: parts may follow
        self.index: dict[int, int] = defaultdict(int)
        self.scanners: dict[int, Scanner] = {}
        self.info: dict[int, RankTrace] = {}
        for r in ranks:
            self.info[r.rank] = r
            self.scanners[r.rank] = Scanner(r.rank, r, self._on_send, self._on_recv,
                                            self._on_cancel, self._on_cancelled_recv)
        self.collectives = Collectives(self, ranks)
        self.one_sided = OneSided(self, ranks)
        # per rank and function id, who reads its records: 1 the scanner,
        # 2 the collectives, 4 the one-sided transfers (a list: fast to index)
        self.readers = {r.rank: (self.scanners[r.rank].interesting.astype(int)
                                 + 2 * self.collectives.interesting[r.rank]
                                 + 4 * self.one_sided.interesting[r.rank]).tolist()
                        for r in ranks}

    # -- what the trackers use
    def hold(self, call: Call) -> None:
        """`call` waits for an arrow not known yet."""
        call.pending += 1

    def release(self, call: Call) -> None:
        call.pending -= 1
        if not call.pending and call.closed:
            self._settle(call)

    def link(self, link: Link, src: Call, dst: Call | None) -> None:
        """Arrow `link` from `src` to `dst`; to no call (``dst`` None) when
        nothing happens on its destination rank (a passive-target transfer):
        the exports then mark its completion there."""
        k = self.next_id
        self.next_id += 1
        if not src.links_out:
            src.links_out = []
        src.links_out.append(k)
        if dst is not None:
            if not dst.links_in:
                dst.links_in = []
            dst.links_in.append(k)
        if self.on_link is not None:
            self.on_link(k, link, src, dst)

    def not_matched(self, kind: str, why: str, count: int = 1) -> None:
        self.unmatched_why[kind][why] += count

    # -- the scanners' callbacks (the call concerned is the rank's current one)
    def _on_send(self, key: Key, t0: float, payload: tuple) -> None:
        call = self.current[key[1]]
        self.hold(call)
        self.sends[key].append((payload, call))
        self._pair(key)

    def _on_recv(self, key: Key, post: float, payload: tuple) -> None:
        call = self.current[key[2]]
        self.hold(call)
        self.seq += 1
        heapq.heappush(self.waiting[key[2]], (post, self.seq, key, payload, call))

    def _on_cancel(self, key: Key, index: int, cancelled: bool | None) -> None:
        """A send MPI_Cancel may take back waits at the head of its channel
        until its outcome is known; one that was cancelled leaves it."""
        if cancelled is None:
            self.cancelling[(key, index)] += 1
            return
        if self.cancelling[(key, index)] > 1:
            self.cancelling[(key, index)] -= 1
        else:
            self.cancelling.pop((key, index), None)
        queue = self.sends.get(key)
        if cancelled and queue:
            entry = next((e for e in queue if e[0][1] == index), None)
            if entry is not None:  # else paired already: MPI_Cancel did not take it back
                queue.remove(entry)
                self.not_matched("message", CANCELLED_SEND)
                self.release(entry[1])
        if key in self.sends:
            self._pair(key)

    def _on_cancelled_recv(self) -> None:
        self.not_matched("message", CANCELLED_RECV)

    def _release(self, rank: int, everything: bool = False) -> None:
        """Completed receives of `rank` in post order, once no receive posted
        before them is still open."""
        heap, active = self.waiting[rank], self.scanners[rank].active
        floor = min(active) if active and not everything else float("inf")
        while heap and heap[0][0] <= floor:
            _, _, key, payload, call = heapq.heappop(heap)
            self.ready[key].append((payload, call))
            self._pair(key)

    def _pair(self, key: Key) -> None:
        sends, ready = self.sends[key], self.ready[key]
        while sends and ready:
            if self.cancelling and (key, sends[0][0][1]) in self.cancelling:
                return  # the send at the head may not be one: wait for its cancel's outcome
            (s, scall), (r, rcall) = sends.popleft(), ready.popleft()
            k = self.next_id
            self.next_id += 1
            partitioned = len(key) > 4
            self.matched["partitioned" if partitioned else "message"] += 1
            scall.flows_out.append(k)
            rcall.flows_in.append(k)
            scall.pending -= 1
            rcall.pending -= 1
            if self.on_message is not None:
                # s: bytes, index, start, end, blocking; r: index, post, wait, end, blocking
                message = Message(key[1], key[2], key[0], key[3], *s, *r,  # type: ignore[misc]
                                  partitioned=partitioned)  # fmt: skip
                self.on_message(k, message, scall, rcall)
            for c in (scall,) if scall is rcall else (scall, rcall):  # a sendrecv to itself
                if not c.pending and c.closed:
                    self._settle(c)
        if not sends and not ready:
            del self.sends[key], self.ready[key]  # tags come and go: keep the live ones

    def _settle(self, call: Call) -> None:
        if not self.ordered:
            self.out.append(call)
            return
        queue = self.held[(call.rank, call.thread)]
        while queue and queue[0].closed and not queue[0].pending:
            self.out.append(queue.popleft())

    def _close(self, call: Call) -> None:
        call.closed = True
        if not call.pending:
            self._settle(call)

    def feed(self, chunk: np.ndarray) -> Iterator[Call]:
        """Rows of GLOBAL_DTYPE in global start order."""
        for at in range(0, len(chunk), ROWS):
            yield from self._rows(chunk[at:at + ROWS].tolist())

    def _rows(self, rows: list[tuple]) -> Iterator[Call]:
        coll, rma = self.collectives, self.one_sided
        for row in rows:
            rank = row[14]
            info = self.info[rank]
            func, flags = row[9], row[10]
            i = self.index[rank]
            self.index[rank] = i + 1
            unfinished = row[1] == 0
            if not flags & F_PART:
                previous = self.current.get(rank)
                call = Call(rank, row[11], i, info.functions[func], info.classes[func], row[12],
                            row[13], unfinished, row[6], row[7], row[8], row[5], row[4], row[2],
                            row[0], flags)
                self.current[rank] = call
                if self.ordered:
                    self.held[(rank, call.thread)].append(call)
                if previous is not None:
                    self._close(previous)
            readers = self.readers[rank][func]
            if readers & 1:
                self.scanners[rank].feed(i, row, row[12], row[13], not unfinished)
                if self.waiting[rank]:
                    self._release(rank)
            current = self.current.get(rank)  # None: a part before any call (a cut file)
            if current is not None:
                if readers & 2 or (flags & (F_REQUEST_NEW | F_COMPLETED) and coll.busy(rank)):
                    coll.feed(rank, row, current)
                if readers & 4:
                    rma.feed(rank, row, current)
            if self.out:
                yield from self.out
                self.out.clear()

    def finish(self) -> Iterator[Call]:
        for rank in list(self.waiting):
            self._release(rank, everything=True)
        self.collectives.finish()
        self.one_sided.finish()
        for call in self.current.values():
            self._close(call)
        for queue in (*self.sends.values(), *self.ready.values()):
            for _, call in queue:
                call.pending -= 1
                if not call.pending:
                    self._settle(call)
        for key, queue in self.sends.items():
            if len(key) > 4 and queue:
                self.not_matched("partitioned", "no matching MPI_Precv_init round recorded",
                                 len(queue))
        for key, queue in self.ready.items():
            if len(key) > 4 and queue:
                self.not_matched("partitioned", "no matching MPI_Psend_init round recorded",
                                 len(queue))
        yield from self.out
        self.out.clear()

    def unmatched(self) -> tuple[int, int]:
        """Point-to-point sends and receives left unmatched."""
        return (sum(len(q) for k, q in self.sends.items() if len(k) == 4),
                sum(len(q) for k, q in self.ready.items() if len(k) == 4))


def global_rows(rank: int, records: np.ndarray, start: np.ndarray, end: np.ndarray
                ) -> np.ndarray:
    """A rank's records with their global times, as the matcher reads them."""
    out = np.empty(len(records), GLOBAL_DTYPE)
    for name in THREAD_RECORD_DTYPE.names or ():
        out[name] = records[name]
    out["start"], out["end"], out["rank"] = start, end, rank
    return out


def match_all(ranks: list[RankTrace], rows: list[np.ndarray], on_message: OnMessage,
              on_link: OnLink) -> Matcher:
    """Match an in-memory trace (every rank's :func:`global_rows`) at once."""
    match = Matcher(ranks, on_message=on_message, on_link=on_link)
    everything = np.concatenate(rows) if rows else np.empty(0, GLOBAL_DTYPE)
    for _ in match.feed(everything[np.argsort(everything["start"], kind="stable")]):
        pass
    for _ in match.finish():
        pass
    return match
