"""A trace as a stream of calls and messages, in bounded memory.

The exports read the rank files block by block (``read_trace(records=False)``
only notes where each thread's records are), merge the threads of a rank by
start stamp and the ranks by global start time (a k-way merge of sorted
chunks: everything up to the earliest chunk end of the sources is sorted and
handed on), and match messages as they go (:class:`~mpiscope.trace.merge.Scanner`,
the same rules as the in-memory merge). What is kept: a chunk per thread, the
open requests, the sends not matched yet, the completed receives waiting for
an earlier-posted one, and the calls whose message arrows are not known yet.

A writer gets :class:`Call` objects (``Stream.calls()``), each with the ids of
the messages it sends (``flows_out``) and completes (``flows_in``); with
``ordered`` the calls of each thread come in start order (OTF2 needs it).
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mpiscope.trace.merge import Clock, Key, Merged, Message, Scanner, _global_clock
from mpiscope.trace.reader import (
    F_PART,
    RECORD_DTYPE,
    THREAD_RECORD_DTYPE,
    RankTrace,
    Trace,
    read_trace,
    thread_records,
)

__all__ = ["CHUNK_RECORDS", "GLOBAL_DTYPE", "Call", "Stream", "as_stream", "open_stream"]

#: Records read from a file at a time.
CHUNK_RECORDS = 1 << 13
ROWS = 1024  # records turned into Python objects at a time
GLOBAL_DTYPE = np.dtype(THREAD_RECORD_DTYPE.descr + [("start", "<f8"), ("end", "<f8"),
                                                      ("rank", "<u4")])


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
    comm: int = 0  # communicator handle
    stamp: int = 0  # t_enter as recorded (selects the handle's definition)
    flows_out: list[int] = field(default_factory=list)  # messages it sends
    flows_in: list[int] = field(default_factory=list)  # messages it completes
    pending: int = 0  # its messages not matched yet
    closed: bool = False  # every part of it seen


def _thread_chunks(rank: RankTrace, runs: list[tuple[int, int, int]],
                   thread: int) -> Iterator[np.ndarray]:
    """A thread's records (its runs of the file) in sequence order, a chunk at a time."""
    nfunc = len(rank.functions)
    with rank.path.open("rb") as f:
        for _, count, offset in runs:
            for k in range(0, count, CHUNK_RECORDS):
                f.seek(offset + k * RECORD_DTYPE.itemsize)
                raw = np.fromfile(f, RECORD_DTYPE, min(CHUNK_RECORDS, count - k))
                out = thread_records(raw, thread, rank.path, nfunc)
                # a thread's calls are stamped in order; sort a chunk anyway
                yield out[np.argsort(out["t_enter"], kind="stable")]


def merge_sorted(sources: list[Iterator[np.ndarray]], key: str) -> Iterator[np.ndarray]:
    """k-way merge of sources of sorted chunks into sorted chunks; equal keys
    keep the sources' order (then each source's)."""
    its = list(sources)
    bufs: list[np.ndarray | None] = [next(it, None) for it in its]
    while True:
        for k, b in enumerate(bufs):
            while b is not None and not len(b):
                b = bufs[k] = next(its[k], None)
        live = [b for b in bufs if b is not None]
        if not live:
            return
        horizon = min(b[key][-1] for b in live)
        parts = []
        for k, b in enumerate(bufs):
            if b is None:
                continue
            cut = int(np.searchsorted(b[key], horizon, side="right"))
            parts.append(b[:cut])
            bufs[k] = b[cut:]
        chunk = np.concatenate(parts) if len(parts) > 1 else parts[0]
        yield chunk[np.argsort(chunk[key], kind="stable")]


def _rank_chunks(rank: RankTrace) -> Iterator[np.ndarray]:
    return merge_sorted([_thread_chunks(rank, runs, t) for t, runs in
                         sorted(rank.segments.items())], "t_enter")


class Stream:
    """A trace read lazily: its origin and end found by a first pass over the
    records, then ``calls()`` streams them (see the module's docstring)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        zero = next((r for r in trace.ranks if r.rank == 0), None)
        self.shared_counter: dict[int, float] = {}
        self.clocks: dict[int, Clock] = {r.rank: _global_clock(r, zero, self.shared_counter)
                                         for r in trace.ranks}
        first: dict[int, float] = {}
        self.last: dict[int, float] = {}  # global, absolute until the origin is known
        self.calls_per_rank: dict[int, int] = {}
        for rank in trace.ranks:
            lo, hi, calls = None, None, 0
            for chunk in _rank_chunks(rank):
                if not len(chunk):
                    continue
                t0 = int(chunk["t_enter"].min())
                t1 = int(np.where(chunk["t_exit"] == 0, chunk["t_enter"], chunk["t_exit"]).max())
                lo = t0 if lo is None else min(lo, t0)
                hi = t1 if hi is None else max(hi, t1)
                calls += int(((chunk["flags"] & F_PART) == 0).sum())
            self.calls_per_rank[rank.rank] = calls
            clock = self.clocks[rank.rank]
            if lo is not None:
                first[rank.rank] = float(clock(rank.local_ns(np.array([lo])))[0])
            last = float(clock(rank.local_ns(np.array([hi])))[0]) if hi is not None else None
            if rank.end_stamp:
                end = float(clock(rank.local_ns(np.array([rank.end_stamp])))[0])
                last = end if last is None else max(last, end)
            if last is not None:
                self.last[rank.rank] = last
        self.origin_ns = min(first.values()) if first else 0.0
        self.last = {r: v - self.origin_ns for r, v in self.last.items()}
        self.end_ns = max(self.last.values(), default=0.0)
        self.messages = 0
        self.unmatched_sends = 0
        self.unmatched_recvs = 0

    @property
    def calls_total(self) -> int:
        return sum(self.calls_per_rank.values())

    def threads(self, rank: int) -> list[int]:
        r = next(x for x in self.trace.ranks if x.rank == rank)
        return sorted(set(r.segments) | {0})

    def global_chunks(self, rank: RankTrace) -> Iterator[np.ndarray]:
        """A rank's records (parts included) on the global clock, a chunk at a
        time in start order: GLOBAL_DTYPE, ``start`` and ``end`` in ns from
        the origin (an unfinished call ends at the rank's last time)."""
        clock = self.clocks[rank.rank]
        last = self.last.get(rank.rank, 0.0)
        for chunk in _rank_chunks(rank):
            out = np.empty(len(chunk), GLOBAL_DTYPE)
            for name in THREAD_RECORD_DTYPE.names or ():
                out[name] = chunk[name]
            unfinished = chunk["t_exit"] == 0
            out["start"] = clock(rank.local_ns(chunk["t_enter"])) - self.origin_ns
            end = clock(rank.local_ns(np.where(unfinished, chunk["t_enter"], chunk["t_exit"])))
            out["end"] = np.where(unfinished, last, end - self.origin_ns)
            out["rank"] = rank.rank
            yield out

    def calls(self, ordered: bool = False,
              on_message: Callable[[int, Message, Call, Call], None] | None = None
              ) -> Iterator[Call]:
        """Every call, each once its message arrows are known; ``on_message(id,
        message, send call, receive call)`` is told of each message matched."""
        match = _Matcher(self, ordered, on_message)
        ranks = sorted(self.trace.ranks, key=lambda r: r.rank)
        for chunk in merge_sorted([self.global_chunks(r) for r in ranks], "start"):
            yield from match.feed(chunk)
        yield from match.finish()
        self.messages = match.next_id - 1
        self.unmatched_sends, self.unmatched_recvs = match.unmatched()


class _Matcher:
    """Scanners per rank, the message queues and the calls held for their arrows."""

    def __init__(self, stream: Stream, ordered: bool,
                 on_message: Callable[[int, Message, Call, Call], None] | None) -> None:
        self.ordered, self.on_message = ordered, on_message
        self.sends: dict[Key, deque[tuple[tuple, Call]]] = defaultdict(deque)
        self.ready: dict[Key, deque[tuple[tuple, Call]]] = defaultdict(deque)
        self.waiting: dict[int, list[tuple[float, int, Key, tuple, Call]]] = defaultdict(list)
        self.seq = 0
        self.next_id = 1
        self.out: list[Call] = []
        self.held: dict[tuple[int, int], deque[Call]] = defaultdict(deque)
        self.current: dict[int, Call] = {}  # the last call of each rank: parts may follow
        self.index: dict[int, int] = defaultdict(int)
        self.scanners: dict[int, Scanner] = {}
        self.info: dict[int, RankTrace] = {}
        for r in stream.trace.ranks:
            self.info[r.rank] = r
            self.scanners[r.rank] = Scanner(r.rank, r, self._on_send, self._on_recv)

    # -- the scanners' callbacks (the call concerned is the rank's current one)
    def _on_send(self, key: Key, t0: float, payload: tuple) -> None:
        call = self.current[key[1]]
        call.pending += 1
        self.sends[key].append((payload, call))
        self._pair(key)

    def _on_recv(self, key: Key, post: float, payload: tuple) -> None:
        call = self.current[key[2]]
        call.pending += 1
        self.seq += 1
        heapq.heappush(self.waiting[key[2]], (post, self.seq, key, payload, call))

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
        if not sends and not ready:
            del self.sends[key], self.ready[key]  # tags come and go: keep the live ones
            return
        while sends and ready:
            (s, scall), (r, rcall) = sends.popleft(), ready.popleft()
            k = self.next_id
            self.next_id += 1
            scall.flows_out.append(k)
            rcall.flows_in.append(k)
            scall.pending -= 1
            rcall.pending -= 1
            if self.on_message is not None:
                self.on_message(k, Message(key[1], key[2], key[0], key[3], *s, *r), scall, rcall)
            for c in (scall, rcall):
                if not c.pending and c.closed:
                    self._settle(c)
        if not sends and not ready:
            del self.sends[key], self.ready[key]

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
        for at in range(0, len(chunk), ROWS):
            yield from self._rows(chunk[at:at + ROWS].tolist())

    def _rows(self, rows: list[tuple]) -> Iterator[Call]:
        for row in rows:
            rank = row[14]
            info, scanner = self.info[rank], self.scanners[rank]
            func, flags = row[9], row[10]
            i = self.index[rank]
            self.index[rank] = i + 1
            unfinished = row[1] == 0
            if not flags & F_PART:
                previous = self.current.get(rank)
                call = Call(rank, row[11], i, info.functions[func], info.classes[func], row[12],
                            row[13], unfinished, row[6], row[7], row[8], row[5], row[4], row[2],
                            row[0])
                self.current[rank] = call
                if self.ordered:
                    self.held[(rank, call.thread)].append(call)
                if previous is not None:
                    self._close(previous)
            if scanner.interesting[func]:
                scanner.feed(i, row, row[12], row[13], not unfinished)
                if self.waiting[rank]:
                    self._release(rank)
            if self.out:
                yield from self.out
                self.out.clear()

    def finish(self) -> Iterator[Call]:
        for rank in list(self.waiting):
            self._release(rank, everything=True)
        for call in self.current.values():
            self._close(call)
        for queue in (*self.sends.values(), *self.ready.values()):
            for _, call in queue:
                call.pending -= 1
                if not call.pending:
                    self._settle(call)
        yield from self.out
        self.out.clear()

    def unmatched(self) -> tuple[int, int]:
        return (sum(len(q) for q in self.sends.values()),
                sum(len(q) for q in self.ready.values()))


def as_stream(source: Stream | Merged) -> Stream:
    """A stream; an in-memory trace is read again from its directory, lazily."""
    return source if isinstance(source, Stream) else open_stream(source.trace.directory)


def open_stream(path: str | Path) -> Stream:
    """A trace directory as a stream (reads only the headers and the first pass)."""
    return Stream(read_trace(path, records=False))
