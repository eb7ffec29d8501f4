"""The numbers behind ``mpiscope trace summary`` (all times in ns), in one
pass over the streamed calls (:mod:`mpiscope.trace.stream`): memory holds
the tables, not the trace.

* per function, per call site and per rank: calls and time in MPI (mpiP);
* message sizes of the point-to-point sends;
* late sender: a blocking receive (MPI_Recv, or the MPI_Wait* completing an
  MPI_Irecv) that started before the matching send did waits for it;
  late receiver: a blocking send that started before the receive was
  posted waits for it (as long as it had to: until the post or its end);
* collectives: the n-th blocking collective on a communicator on each of
  its members is one instance; the early ranks wait for the last to arrive,
  and the operation costs, after the last arrival, until the last finishes.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from mpiscope.trace.merge import Merged, Message, _Comms
from mpiscope.trace.reader import COMM_F_INTER
from mpiscope.trace.stream import Call, Stream, as_stream

__all__ = ["Analysis", "CollectiveStats", "FunctionStats", "RankStats", "WaitStats", "analyse"]


@dataclass
class FunctionStats:
    name: str
    calls: int = 0
    total_ns: float = 0.0
    max_ns: float = 0.0
    bytes: int = 0


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


class _Collectives:
    """Instances of blocking collectives as the calls stream: the k-th call on
    a communicator id of each member, taken once every member has made it."""

    def __init__(self, stream: Stream) -> None:
        self.comms = {r.rank: _Comms(r.comms) for r in stream.trace.ranks}
        self.present = {r.rank for r in stream.trace.ranks}
        self.queues: dict[int, dict[int, deque[tuple[str, float, float]]]] = {}
        self.members: dict[int, tuple[int, ...]] = {}
        self.stats: dict[str, CollectiveStats] = {}

    def add(self, call: Call, comm: int, stamp: int) -> None:
        d = self.comms[call.rank].at(comm, stamp)
        if d is None or d.flags & COMM_F_INTER or len(d.members) < 2:
            return
        if not set(d.members) <= self.present:
            return  # a member's file is missing: no instance is whole
        members = tuple(dict.fromkeys(d.members))  # a damaged file may repeat a rank
        self.members[d.id] = members
        queues = self.queues.setdefault(d.id, {r: deque() for r in members})
        if call.rank not in queues or set(queues) != set(members):
            return  # not a member, or one id with two member lists (a damaged file)
        queues[call.rank].append((call.name, call.start_ns, call.end_ns))
        while all(queues.values()):
            self._instance([(r, *queues[r].popleft()) for r in members])

    def _instance(self, inst: list[tuple[int, str, float, float]]) -> None:
        name = inst[0][1]
        if any(x[1] != name for x in inst):
            return  # mismatched sequence: not one collective
        s = self.stats.setdefault(name, CollectiveStats(name))
        last_rank, _, last_in, _ = max(inst, key=lambda x: x[2])
        last_out = max(x[3] for x in inst)
        s.instances += 1
        s.ranks = max(s.ranks, len(inst))
        s.last_arrivals[last_rank] += 1
        for _, _, t_in, t_out in inst:
            wait = min(last_in, t_out) - t_in
            s.early_wait_ns += max(wait, 0.0)
            s.max_wait_ns = max(s.max_wait_ns, wait)
        s.after_last_ns += max(last_out - last_in, 0.0)


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


def analyse(source: Stream | Merged) -> Analysis:
    """Every analysis in one pass over the streamed calls."""
    stream = as_stream(source)
    stats: dict[str, FunctionStats] = {}
    sites: dict[tuple[int, str, int], list] = defaultdict(lambda: [0, 0.0])
    ranks: dict[int, _Rank] = {r.rank: _Rank() for r in stream.trace.ranks}
    late_sender: dict[tuple[int, int], WaitStats] = defaultdict(WaitStats)
    late_receiver: dict[tuple[int, int], WaitStats] = defaultdict(WaitStats)
    sizes: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    collectives = _Collectives(stream)
    total, backwards = 0.0, 0

    def on_message(k: int, m: Message, send: Call, recv: Call) -> None:
        nonlocal backwards
        sizes[send.name][m.bytes] += 1
        backwards += m.backwards
        if m.recv_blocking and m.send_ns > m.wait_ns:
            late_sender[(m.src, m.dst)].add(min(m.send_ns, m.recv_ns) - m.wait_ns)
        if m.send_blocking and m.post_ns > m.send_ns:
            late_receiver[(m.src, m.dst)].add(min(m.post_ns, m.send_end_ns) - m.send_ns)

    for call in stream.calls(on_message=on_message):
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
        if call.cls == "collective":
            collectives.add(call, call.comm, call.stamp)
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
                    stream, backwards)
