"""The numbers behind ``mpiscope trace summary`` (all times in ns), in one
pass over the streamed calls (:mod:`mpiscope.trace.stream`): memory holds
the tables, not the trace.

* per function, per call site and per rank: calls and time in MPI (mpiP);
* message sizes of the point-to-point sends;
* late sender: a blocking receive (MPI_Recv, or the MPI_Wait* completing an
  MPI_Irecv) that started before the matching send did waits for it;
  late receiver: a blocking send that started before the receive was
  posted waits for it (as long as it had to: until the post or its end);
* collectives: the instances the matcher finds (blocking, nonblocking and
  persistent: :mod:`mpiscope.trace.collective`); the early ranks wait for
  the last to arrive, in the call that completes their part, and the
  operation costs, after the last arrival, until the last finishes;
* what else was linked: one-sided transfers per epoch kind, partitioned
  messages and the partitions readied;
* MPI-IO: per function, its calls, bytes, files and the range of the
  explicit offsets of the *_at calls.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from mpiscope.trace.calls import Link, Message
from mpiscope.trace.collective import Instance
from mpiscope.trace.merge import Merged
from mpiscope.trace.reader import F_FILE, F_OFFSET, NONE
from mpiscope.trace.stream import Call, Stream, as_stream

__all__ = ["Analysis", "CollectiveStats", "FunctionStats", "IoStats", "RankStats", "WaitStats",
           "analyze"]


@dataclass
class FunctionStats:
    name: str
    calls: int = 0
    total_ns: float = 0.0
    max_ns: float = 0.0
    bytes: int = 0


@dataclass
class IoStats:
    """One MPI-IO function: its calls, bytes, files (rank, handle) and the
    explicit offsets of its accesses (units of the view's etype; bytes for
    a byte view), None when it has none."""

    name: str
    calls: int = 0
    bytes: int = 0
    files: set[tuple[int, int]] = field(default_factory=set)
    min_offset: int | None = None
    max_offset: int | None = None

    def add(self, call: Call) -> None:
        self.calls += 1
        self.bytes += max(call.bytes, 0)
        if call.flags & F_FILE:
            self.files.add((call.rank, call.comm))
        if call.flags & F_OFFSET:
            offset = (call.tag & 0xFFFFFFFF) << 32 | (call.root & 0xFFFFFFFF)
            offset -= 1 << 64 if offset >= 1 << 63 else 0  # MPI_Offset is signed
            self.min_offset = offset if self.min_offset is None else min(self.min_offset, offset)
            self.max_offset = offset if self.max_offset is None else max(self.max_offset, offset)


@dataclass
class RankStats:
    rank: int
    run_ns: float  # from the end of MPI_Init* to the start of MPI_Finalize
    mpi_ns: float  # time in MPI calls in that span
    calls: int
    dropped: int
    end_status: str


@dataclass
class WaitStats:
    count: int = 0
    total_ns: float = 0.0
    max_ns: float = 0.0

    def add(self, ns: float) -> None:
        self.count += 1
        self.total_ns += ns
        self.max_ns = max(self.max_ns, ns)


@dataclass
class CollectiveStats:
    name: str
    instances: int = 0
    ranks: int = 0
    early_wait_ns: float = 0.0  # early ranks waiting for the last, summed
    max_wait_ns: float = 0.0
    after_last_ns: float = 0.0  # last finish minus last arrival, summed
    kind: str = "blocking"  # nonblocking, persistent
    last_arrivals: dict[int, int] = field(default_factory=lambda: defaultdict(int))


@dataclass
class Analysis:
    functions: list[FunctionStats]
    sites: list[tuple[int, str, int, int, float]]  # (rank, function, site, calls, ns)
    ranks: list[RankStats]
    send_sizes: dict[str, dict[int, int]]  # send function -> bytes -> messages
    late_sender: dict[tuple[int, int], WaitStats]  # (sender, receiver)
    late_receiver: dict[tuple[int, int], WaitStats]
    collectives: list[CollectiveStats]
    total_mpi_ns: float
    stream: Stream  # its messages, unmatched counts, end, clocks
    backwards: int = 0  # messages received before they were sent
    links: dict[str, Counter[str]] = field(default_factory=dict)  # kind -> detail -> arrows
    partitions_readied: int = 0  # partitions marked ready (MPI_Pready, MPI_Pready_range)
    pready_unknown: int = 0  # MPI_Pready* calls whose partitions are not recorded
    io: list[IoStats] = field(default_factory=list)  # MPI-IO functions, by bytes


class _Collectives:
    """Per operation, the instances the matcher found (mpiscope.trace.collective):
    the early members wait for the last to arrive, each in its completing
    call (the collective itself, or the Wait/Test of a nonblocking or
    persistent one); the operation costs from the last arrival to the last
    completion."""

    def __init__(self) -> None:
        self.stats: dict[str, CollectiveStats] = {}

    def add(self, inst: Instance) -> None:
        s = self.stats.get(inst.name)
        if s is None:
            s = self.stats[inst.name] = CollectiveStats(inst.name, kind=inst.kind)
        last = max(inst.parts, key=lambda p: p.in_ns)
        last_in = last.in_ns
        s.instances += 1
        s.ranks = max(s.ranks, len(inst.parts))
        s.last_arrivals[last.rank] += 1
        for p in inst.parts:
            w0, w1 = p.wait_span
            wait = min(last_in, w1) - max(w0, p.in_ns)
            s.early_wait_ns += max(wait, 0.0)
            s.max_wait_ns = max(s.max_wait_ns, wait)
        s.after_last_ns += max(max(p.wait_span[1] for p in inst.parts) - last_in, 0.0)


@dataclass
class _Rank:
    """A rank's span between MPI_Init and MPI_Finalize, as its calls stream."""

    first: float | None = None
    begin: float | None = None  # end of the first MPI_Init*
    inside: float = 0.0  # time in calls started since `begin`
    final: tuple[float, float] | None = None  # (start of the last MPI_Finalize, `inside` then)
    calls: int = 0

    def add(self, call: Call, cls: str) -> None:
        self.calls += 1
        if self.first is None:
            self.first = call.start_ns
        if cls == "init":
            if self.begin is None:
                self.begin, self.inside = call.end_ns, 0.0  # calls before it do not count
            return
        if cls == "finalize":
            self.final = (call.start_ns, self.inside)
            return
        begin = self.first if self.begin is None else self.begin
        if call.start_ns >= begin:
            self.inside += max(call.end_ns - call.start_ns, 0.0)


def analyze(source: Stream | Merged) -> Analysis:
    """Every analysis in one pass over the streamed calls."""
    stream = as_stream(source)
    stats: dict[str, FunctionStats] = {}
    sites: dict[tuple[int, str, int], list] = defaultdict(lambda: [0, 0.0])
    ranks: dict[int, _Rank] = {r.rank: _Rank() for r in stream.trace.ranks}
    late_sender: dict[tuple[int, int], WaitStats] = defaultdict(WaitStats)
    late_receiver: dict[tuple[int, int], WaitStats] = defaultdict(WaitStats)
    sizes: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    collectives = _Collectives()
    total, backwards = 0.0, 0

    links: dict[str, Counter[str]] = defaultdict(Counter)
    partitions = [0, 0]  # readied, Pready_list calls

    def on_link(k: int, link: Link, src: Call, dst: Call | None) -> None:
        if link.kind == "rma":
            links["rma"][link.detail] += 1

    def on_instance(inst: Instance) -> None:
        links["collective"][inst.kind] += 1
        collectives.add(inst)

    def on_message(k: int, m: Message, send: Call, recv: Call) -> None:
        nonlocal backwards
        sizes[send.name][m.bytes] += 1
        backwards += m.backwards
        if m.recv_blocking and m.send_ns > m.wait_ns:
            late_sender[(m.src, m.dst)].add(min(m.send_ns, m.recv_ns) - m.wait_ns)
        if m.send_blocking and m.post_ns > m.send_ns:
            late_receiver[(m.src, m.dst)].add(min(m.post_ns, m.send_end_ns) - m.send_ns)

    io: dict[str, IoStats] = {}
    for call in stream.calls(on_message=on_message, on_link=on_link, on_instance=on_instance):
        if call.cls == "partitioned" and call.name.startswith("MPI_Pready"):
            _readied(call, partitions)
        elif call.cls == "file":
            io.setdefault(call.name, IoStats(call.name)).add(call)
        d = max(call.end_ns - call.start_ns, 0.0)
        s = stats.get(call.name)
        if s is None:
            s = stats[call.name] = FunctionStats(call.name)
        s.calls += 1
        s.total_ns += d
        s.max_ns = max(s.max_ns, d)
        s.bytes += max(call.bytes, 0)
        total += d
        site = sites[(call.rank, call.name, call.site)]
        site[0] += 1
        site[1] += d
        ranks[call.rank].add(call, call.cls)
    rank_stats = []
    for r in sorted(stream.trace.ranks, key=lambda x: x.rank):
        st = ranks[r.rank]
        last = stream.last.get(r.rank, 0.0)
        first = st.first if st.first is not None else 0.0
        begin = st.begin if st.begin is not None else first
        end, inside = st.final if st.final is not None else (last, st.inside)
        rank_stats.append(RankStats(r.rank, max(end - begin, 0.0), inside, st.calls, r.dropped,
                                    r.end_status))
    site_list = [(r, n, s_, int(v[0]), float(v[1])) for (r, n, s_), v in sites.items()]
    return Analysis(sorted(stats.values(), key=lambda x: -x.total_ns), site_list, rank_stats,
                    {name: dict(c) for name, c in sizes.items()}, dict(late_sender),
                    dict(late_receiver),
                    sorted(collectives.stats.values(), key=lambda x: -x.early_wait_ns), total,
                    stream, backwards, dict(links), partitions_readied=partitions[0],
                    pready_unknown=partitions[1],
                    io=sorted(io.values(), key=lambda x: (-x.bytes, x.name)))


def _readied(call: Call, partitions: list[int]) -> None:
    """Partitions a MPI_Pready* call marked ready (root: the partition or the
    range's low end, tag: its high end; a list's partitions are not recorded,
    nor any by a tracer older than the partitions' fields)."""
    if call.name == "MPI_Pready" and call.root != NONE:
        partitions[0] += 1
    elif call.name == "MPI_Pready_range" and NONE not in (call.root, call.tag):
        partitions[0] += max(call.tag - call.root + 1, 0)
    else:
        partitions[1] += 1
