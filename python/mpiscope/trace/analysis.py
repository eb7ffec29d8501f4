"""The numbers behind ``mpiscope trace summary`` (all times in ns).

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

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from mpiscope.trace.merge import Merged, Timeline
from mpiscope.trace.reader import COMM_F_INTER

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
    send_sizes: dict[str, list[int]]
    late_sender: dict[tuple[int, int], WaitStats]  # (sender, receiver)
    late_receiver: dict[tuple[int, int], WaitStats]
    collectives: list[CollectiveStats]
    total_mpi_ns: float


def _durations(tl: Timeline) -> np.ndarray:
    return np.maximum(tl.end_ns - tl.start_ns, 0.0)


def _rank_stats(tl: Timeline) -> RankStats:
    classes = tl.source.classes
    funcs = tl.records["func"]
    cls = np.array([classes[f] for f in funcs]) if len(funcs) else np.array([], dtype=str)
    main = tl.main
    inits = np.nonzero(main & (cls == "init"))[0]
    finals = np.nonzero(main & (cls == "finalize"))[0]
    first = float(tl.start_ns[0]) if len(main) else 0.0
    begin = float(tl.end_ns[inits[0]]) if len(inits) else first
    end = float(tl.start_ns[finals[-1]]) if len(finals) else tl.last_ns
    inside = main & (tl.start_ns >= begin) & (tl.start_ns <= end)
    inside &= (cls != "init") & (cls != "finalize")
    return RankStats(tl.rank, max(end - begin, 0.0), float(_durations(tl)[inside].sum()),
                     int(main.sum()), tl.source.dropped, tl.source.end_status)


def _function_stats(merged: Merged) -> tuple[list[FunctionStats], list, float]:
    stats: dict[str, FunctionStats] = {}
    sites: dict[tuple[int, str, int], list[float]] = defaultdict(lambda: [0, 0.0])
    total = 0.0
    for tl in merged.timelines:
        rec, dur = tl.records[tl.main], _durations(tl)[tl.main]
        names = tl.source.functions
        funcs = rec["func"]
        for f in np.unique(funcs):
            sel = funcs == f
            s = stats.setdefault(names[f], FunctionStats(names[f]))
            d = dur[sel]
            s.calls += int(sel.sum())
            s.total_ns += float(d.sum())
            s.max_ns = max(s.max_ns, float(d.max()))
            b = rec["bytes"][sel]
            s.bytes += int(b[b > 0].sum())
            total += float(d.sum())
        keys = np.stack([funcs.astype(np.uint64), rec["site"]], axis=1) if len(rec) else None
        if keys is not None:
            uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            counts = np.bincount(inverse)
            times = np.bincount(inverse, weights=dur)
            for k, (f, site) in enumerate(uniq):
                entry = sites[(tl.rank, names[int(f)], int(site))]
                entry[0] += int(counts[k])
                entry[1] += float(times[k])
    site_list = [(r, n, s, int(v[0]), float(v[1])) for (r, n, s), v in sites.items()]
    return sorted(stats.values(), key=lambda s: -s.total_ns), site_list, total


def _waits(merged: Merged) -> tuple[dict, dict, dict[str, list[int]]]:
    late_sender: dict[tuple[int, int], WaitStats] = defaultdict(WaitStats)
    late_receiver: dict[tuple[int, int], WaitStats] = defaultdict(WaitStats)
    sizes: dict[str, list[int]] = defaultdict(list)
    by_rank = {tl.rank: tl for tl in merged.timelines}
    for m in merged.messages:
        sizes[by_rank[m.src].name(m.send_index)].append(m.bytes)
        if m.recv_blocking and m.send_ns > m.wait_ns:
            late_sender[(m.src, m.dst)].add(min(m.send_ns, m.recv_ns) - m.wait_ns)
        if m.send_blocking and m.post_ns > m.send_ns:
            late_receiver[(m.src, m.dst)].add(min(m.post_ns, m.send_end_ns) - m.send_ns)
    return dict(late_sender), dict(late_receiver), dict(sizes)


def _collectives(merged: Merged) -> list[CollectiveStats]:
    """Instances: the k-th blocking collective on a communicator id, per member."""
    calls: dict[int, dict[int, list[tuple[str, float, float]]]] = defaultdict(dict)
    members: dict[int, tuple[int, ...]] = {}
    for tl in merged.timelines:
        comms_by_handle: dict[int, list] = defaultdict(list)
        for d in tl.source.comms:
            comms_by_handle[d.handle].append(d)
        mine: dict[int, list[tuple[str, float, float]]] = defaultdict(list)
        for i in np.nonzero(tl.main)[0]:
            if tl.cls(int(i)) != "collective":
                continue
            r = tl.records[i]
            defs = [d for d in comms_by_handle.get(int(r["comm"]), ()) if d.created <= r["t_enter"]]
            if not defs or defs[-1].flags & COMM_F_INTER:
                continue
            d = defs[-1]
            members[d.id] = d.members
            mine[d.id].append((tl.name(int(i)), float(tl.start_ns[i]), float(tl.end_ns[i])))
        for cid, seq in mine.items():
            calls[cid][tl.rank] = seq
    stats: dict[str, CollectiveStats] = {}
    for cid, per_rank in calls.items():
        ranks = [r for r in members[cid] if r in per_rank]
        if len(ranks) < 2 or len(ranks) != len(members[cid]):
            continue
        for k in range(min(len(per_rank[r]) for r in ranks)):
            inst = [(r, *per_rank[r][k]) for r in ranks]
            name = inst[0][1]
            if any(x[1] != name for x in inst):
                continue  # mismatched sequence: not one collective
            s = stats.setdefault(name, CollectiveStats(name))
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
    return sorted(stats.values(), key=lambda s: -s.early_wait_ns)


def analyse(merged: Merged) -> Analysis:
    functions, sites, total = _function_stats(merged)
    late_sender, late_receiver, sizes = _waits(merged)
    return Analysis(functions, sites, [_rank_stats(tl) for tl in merged.timelines], sizes,
                    late_sender, late_receiver, _collectives(merged), total)
