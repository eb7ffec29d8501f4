"""The global clock and the messages of a trace.

Each rank's stamps become nanoseconds on the global clock (rank 0's). A
rank on rank 0's host whose stamps are the same invariant counter (rdtsc,
cntvct_el0) needs no estimate: its stamps are converted with rank 0's
origin and rate, exactly; the synchronization's estimate is only compared
with it (a counter not shared after all, off by far more than the
synchronization's own bound, falls back to the estimate). Other ranks use
the two synchronizations of the trace: offset and drift, linear between
them (a constant offset when the end is missing). Times are then made
relative to the earliest call of the run.

Messages, collective instances and one-sided transfers are matched by
the streams' matcher (:mod:`mpiscope.trace.matching`), fed the whole trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mpiscope.trace.calls import Link, Message
from mpiscope.trace.matching import global_rows, match_all
from mpiscope.trace.reader import F_PART, RankTrace, Trace, read_trace

__all__ = ["Merged", "Message", "Timeline", "clock_function", "counter_shift", "load",
           "merge"]
SHARED_COUNTERS = ("rdtsc", "cntvct_el0")


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


@dataclass
class Merged:
    trace: Trace
    timelines: list[Timeline]
    messages: list[Message] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)  # collective instances, RMA transfers
    matched: Counter[str] = field(default_factory=Counter)  # per kind (matching.Matcher)
    unmatched_why: dict[str, Counter[str]] = field(default_factory=dict)
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


def _match_messages(merged: Merged) -> None:
    """The messages and links of the in-memory trace, by the streams' matcher."""
    def on_message(k: int, m: Message, send: object, recv: object) -> None:
        merged.messages.append(m)

    def on_link(k: int, link: Link, src: object, dst: object) -> None:
        merged.links.append(link)

    rows = [global_rows(tl.rank, tl.records, tl.start_ns, tl.end_ns) for tl in merged.timelines]
    match = match_all(merged.trace.ranks, rows, on_message, on_link)
    merged.unmatched_sends, merged.unmatched_recvs = match.unmatched()
    merged.matched = match.matched
    merged.unmatched_why = dict(match.unmatched_why)
    merged.messages.sort(key=lambda m: m.send_ns)
