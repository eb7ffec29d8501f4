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

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from mpiscope.trace.calls import Call, Link
from mpiscope.trace.collective import Instance
from mpiscope.trace.matching import GLOBAL_DTYPE, Matcher, OnLink, OnMessage, global_rows
from mpiscope.trace.merge import Clock, Merged, _global_clock
from mpiscope.trace.reader import (
    F_PART,
    RankTrace,
    Trace,
    Where,
    read_trace,
    run_records,
    thread_records,
)

__all__ = ["CHUNK_RECORDS", "GLOBAL_DTYPE", "Call", "Stream", "as_stream", "open_stream"]

#: Records read from a file at a time.
CHUNK_RECORDS = 1 << 13


def _thread_chunks(rank: RankTrace, runs: list[tuple[int, int, Where]],
                   thread: int) -> Iterator[np.ndarray]:
    """A thread's records (its runs of the file) in sequence order, a chunk at a time."""
    nfunc = len(rank.functions)
    with rank.path.open("rb") as f:
        for _, count, where in runs:
            for raw in run_records(f, where, count, CHUNK_RECORDS):
                out = thread_records(raw, thread, rank.path, nfunc)
                # a thread's calls are stamped in order; sort a chunk anyway
                yield out[np.argsort(out["t_enter"], kind="stable")]


def merge_sorted(sources: list[Iterator[np.ndarray]], key: str) -> Iterator[np.ndarray]:
    """k-way merge of sources of sorted chunks into sorted chunks; equal keys
    keep the sources' order (then each source's). Each chunk is sorted as it
    comes: a corrupt trace's clock can make a source's times run backwards,
    and an unsorted chunk would never pass the horizon (the merge looped
    for ever on one such trace)."""
    its = list(sources)

    def pull(k: int) -> np.ndarray | None:
        b = next(its[k], None)
        return None if b is None else b[np.argsort(b[key], kind="stable")]

    bufs: list[np.ndarray | None] = [pull(k) for k in range(len(its))]
    while True:
        for k, b in enumerate(bufs):
            while b is not None and not len(b):
                b = bufs[k] = pull(k)
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
        self.messages = 0  # point-to-point messages matched
        self.unmatched_sends = 0
        self.unmatched_recvs = 0
        self.arrows = 0  # messages and links
        self.matched: Counter[str] = Counter()  # per kind (matching.Matcher.matched)
        self.unmatched_why: dict[str, Counter[str]] = {}

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
            unfinished = chunk["t_exit"] == 0
            start = clock(rank.local_ns(chunk["t_enter"])) - self.origin_ns
            end = clock(rank.local_ns(np.where(unfinished, chunk["t_enter"], chunk["t_exit"])))
            yield global_rows(rank.rank, chunk, start,
                              np.where(unfinished, last, end - self.origin_ns))

    def calls(self, ordered: bool = False, on_message: OnMessage | None = None,
              on_link: OnLink | None = None,
              on_instance: Callable[[Instance], None] | None = None,
              on_transfer: Callable[[Link, Call, Call], None] | None = None) -> Iterator[Call]:
        """Every call, each once its arrows are known; ``on_message(id, message,
        send call, receive call)`` is told of each message matched,
        ``on_link(id, link, from call, to call)`` of each other arrow,
        ``on_instance`` of each collective instance and ``on_transfer(link,
        operation's call, origin's completing call)`` of each one-sided transfer
        (before those calls come)."""
        match = Matcher(self.trace.ranks, ordered, on_message, on_link)
        if on_instance is not None:
            match.collectives.on_instance.append(on_instance)
        if on_transfer is not None:
            match.one_sided.on_transfer.append(on_transfer)
        ranks = sorted(self.trace.ranks, key=lambda r: r.rank)
        for chunk in merge_sorted([self.global_chunks(r) for r in ranks], "start"):
            yield from match.feed(chunk)
        yield from match.finish()
        self.messages = match.matched["message"]
        self.arrows = match.next_id - 1
        self.matched = match.matched
        self.unmatched_why = dict(match.unmatched_why)
        self.unmatched_sends, self.unmatched_recvs = match.unmatched()


def as_stream(source: Stream | Merged) -> Stream:
    """A stream; an in-memory trace is read again from its directory, lazily."""
    return source if isinstance(source, Stream) else open_stream(source.trace.directory)


def open_stream(path: str | Path) -> Stream:
    """A trace directory as a stream (reads only the headers and the first pass)."""
    return Stream(read_trace(path, records=False))
