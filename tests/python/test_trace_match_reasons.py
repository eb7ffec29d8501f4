"""What the matcher cannot match, and says why (issue 15, "also" 1): small
in-memory traces fed to :func:`mpiscope.trace.matching.match_all`, each
with one flaw the summary must name. No MPI needed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from mpiscope.trace.calls import Link
from mpiscope.trace.matching import global_rows, match_all
from mpiscope.trace.reader import (
    COMM_F_LOCAL,
    F_COMPLETED,
    F_GROUP,
    F_PART,
    F_REQUEST_NEW,
    F_STARTED,
    F_TRUE,
    F_WINDOW,
    F_WINDOW_NEW,
    NONE,
    THREAD_RECORD_DTYPE,
    CommDef,
    RankTrace,
)

FUNCS = [("", "other"), ("MPI_Ibarrier", "icollective"), ("MPI_Wait", "completion"),
         ("MPI_Barrier", "collective"), ("MPI_Bcast", "collective"),
         ("MPI_Win_create", "rma"), ("MPI_Win_fence", "rma"), ("MPI_Put", "rma"),
         ("MPI_Win_lock", "rma"), ("MPI_Win_unlock", "rma"), ("MPI_Win_start", "rma"),
         ("MPI_Win_complete", "rma"), ("MPI_Win_post", "rma"), ("MPI_Win_wait", "rma"),
         ("MPI_Win_test", "rma"), ("MPI_Win_lock_all", "rma"), ("MPI_Win_unlock_all", "rma"),
         ("MPI_Win_flush", "rma"), ("MPI_Win_free", "rma"), ("MPI_Rput", "rma"),
         ("MPI_Start", "start"), ("MPI_Bcast_init", "collective_init"),
         ("MPI_Request_free", "other"), ("MPI_Irecv", "irecv"), ("MPI_Isend", "isend"),
         ("MPI_Psend_init", "partitioned"), ("MPI_Precv_init", "partitioned"),
         ("MPI_Sendrecv", "sendrecv")]
FN = {name: i for i, (name, _) in enumerate(FUNCS)}
WORLD, SELF, WIN = 0x44000000, 0x44000001, 0xA0000000


def rec(func: str, t: int, *, comm: int = 0, request: int = 0, peer: int = NONE,
        flags: int = 0) -> tuple:
    return (t, t + 5, comm, request, 0, -1, peer, NONE, NONE, FN[func], flags, 0)


def rank_trace(rank: int, records: list[tuple]) -> RankTrace:
    return RankTrace(Path(f"rank-{rank}"), {"rank": rank, "nprocs": 2}, [f for f, _ in FUNCS],
                     [c for _, c in FUNCS], {}, [CommDef(WORLD, 1, 0, 0, (0, 1)),
                                                 CommDef(SELF, 9 + rank, 0, COMM_F_LOCAL, (rank,))],
                     np.array(records, THREAD_RECORD_DTYPE), 0, [], "finalized", 0, 0, True)


def match(per_rank: list[list[tuple]]) -> tuple[list[Link], dict[str, Counter[str]]]:
    ranks = [rank_trace(r, recs) for r, recs in enumerate(per_rank)]
    rows = [global_rows(r.rank, r.records, r.records["t_enter"].astype(float),
                        r.records["t_exit"].astype(float)) for r in ranks]
    links: list[Link] = []
    m = match_all(ranks, rows, lambda *a: None, lambda k, link, a, b: links.append(link))
    return links, dict(m.unmatched_why)


def window(t: int, comm: int = WORLD) -> tuple:
    return rec("MPI_Win_create", t, comm=comm, request=WIN, flags=F_WINDOW_NEW)


def test_a_collective_on_every_member_is_linked() -> None:
    links, why = match([[rec("MPI_Barrier", 10, comm=WORLD)],
                        [rec("MPI_Barrier", 20, comm=WORLD)]])
    assert [(lk.name, lk.src, lk.dst) for lk in links] == [("MPI_Barrier", 1, 0)] and not why


def test_a_nonblocking_collective_never_completed() -> None:
    ibarrier = rec("MPI_Ibarrier", 10, comm=WORLD, request=7, flags=F_REQUEST_NEW)
    waited = [ibarrier, rec("MPI_Wait", 30, request=7),
              rec("MPI_Wait", 30, request=7, flags=F_PART | F_COMPLETED)]
    links, why = match([waited, [ibarrier]])
    assert not links
    assert why == {"collective": Counter({"not completed (no Wait/Test completed its request)": 2})}


def test_a_member_that_never_made_it_and_a_mismatch() -> None:
    _, why = match([[rec("MPI_Barrier", 10, comm=WORLD)], []])
    assert why == {"collective": Counter(
        {"a member never made it (its trace ends before, or was paused)": 1})}
    _, why = match([[rec("MPI_Barrier", 10, comm=WORLD)], [rec("MPI_Bcast", 10, comm=WORLD)]])
    assert why == {"collective": Counter(
        {"different collectives at one position on a communicator": 2})}


def test_one_sided_reasons() -> None:
    put = rec("MPI_Put", 30, comm=WIN, peer=1, flags=F_WINDOW)
    lock = rec("MPI_Win_lock", 20, comm=WIN, peer=1, flags=F_WINDOW)
    unlock = rec("MPI_Win_unlock", 40, comm=WIN, peer=1, flags=F_WINDOW)
    links, why = match([[window(1), lock, put, unlock], [window(1)]])
    assert [(lk.src, lk.dst, lk.detail) for lk in links] == [(0, 1, "lock")] and not why
    self_lock = [rec(name, t, comm=WIN, peer=0, flags=F_WINDOW)  # a window of MPI_COMM_SELF
                 for name, t in (("MPI_Win_lock", 20), ("MPI_Put", 30), ("MPI_Win_unlock", 40))]
    links, why = match([[], [window(1, SELF), *self_lock]])
    assert [(lk.src, lk.dst, lk.detail) for lk in links] == [(1, 1, "lock")] and not why
    _, why = match([[window(1), lock, put], [window(1)]])  # never unlocked
    assert why == {"rma": Counter({"no call closed its epoch on the origin (trace cut?)": 1})}
    _, why = match([[put], []])  # the window's creation is not in the trace
    assert why == {"rma": Counter({"its window's creation is not in the trace": 1})}
    fence = [rec("MPI_Win_fence", 20, comm=WIN, flags=F_WINDOW)]
    _, why = match([[window(1), *fence, put, rec("MPI_Win_fence", 40, comm=WIN, flags=F_WINDOW)],
                    [window(1), *fence]])  # rank 1 never made the closing fence
    assert why == {"rma": Counter(
        {"a member of the window never made the closing MPI_Win_fence": 1})}
    start = rec("MPI_Win_start", 20, comm=WIN, flags=F_WINDOW)
    member = rec("MPI_Win_start", 20, comm=WIN, peer=1, flags=F_PART | F_GROUP)
    complete = rec("MPI_Win_complete", 40, comm=WIN, flags=F_WINDOW)
    _, why = match([[window(1), start, member, put, complete], [window(1)]])  # no Win_post
    assert why == {"rma": Counter(
        {"the target's MPI_Win_post/MPI_Win_wait epoch is not in the trace": 1})}


def test_a_sendrecv_to_itself_comes_out_once() -> None:
    """Its send and its receive half pair with each other; when the half
    waits for an earlier-posted receive to complete, the call is closed by
    then, and was handed on twice (a duplicate in the exports)."""
    from mpiscope.trace.matching import Matcher

    def tagged(r: tuple, tag: int) -> tuple:
        return r[:7] + (tag,) + r[8:]

    rank0 = [tagged(rec("MPI_Irecv", 10, comm=WORLD, peer=1, request=7, flags=F_REQUEST_NEW), 9),
             tagged(rec("MPI_Sendrecv", 20, comm=WORLD, peer=0), 5),
             tagged(rec("MPI_Sendrecv", 20, comm=WORLD, peer=0, flags=F_PART | 0x8), 5),
             rec("MPI_Wait", 40, request=7),
             tagged(rec("MPI_Wait", 40, request=7, peer=1, flags=F_PART | F_COMPLETED), 9)]
    rank1 = [tagged(rec("MPI_Isend", 15, comm=WORLD, peer=0, request=8, flags=F_REQUEST_NEW), 9)]
    ranks = [rank_trace(0, rank0), rank_trace(1, rank1)]
    rows = np.concatenate([global_rows(r.rank, r.records, r.records["t_enter"] * 1.0,
                                       r.records["t_exit"] * 1.0) for r in ranks])
    m = Matcher(ranks)
    out = [*m.feed(rows[np.argsort(rows["start"], kind="stable")]), *m.finish()]
    assert sorted(c.name for c in out) == ["MPI_Irecv", "MPI_Isend", "MPI_Sendrecv", "MPI_Wait"]
    assert m.matched["message"] == 2


def test_any_sequence_of_calls_comes_out_whole() -> None:
    """Random collective and one-sided calls, parts and handles on 2 ranks
    (nonsense included): the matcher never fails and hands on every call,
    whatever it held for arrows (a call held for ever would be lost from
    the exports)."""
    from mpiscope.trace.matching import Matcher

    rng = np.random.default_rng(15)
    flag_choices = [0, F_REQUEST_NEW, F_WINDOW, F_WINDOW_NEW, F_WINDOW | F_TRUE,
                    F_PART | F_COMPLETED, F_PART | F_GROUP, F_PART | F_STARTED]
    for trial in range(40):
        per_rank = []
        for _ in range(2):
            recs, t = [], 1
            for _ in range(int(rng.integers(1, 60))):
                name = FUNCS[int(rng.integers(1, len(FUNCS)))][0]
                flags = int(rng.choice(flag_choices))
                t += int(rng.integers(0, 3))  # equal stamps too
                recs.append(rec(name, t, comm=int(rng.choice([WORLD, SELF, WIN, 0])),
                                request=int(rng.choice([0, 7, 8, WIN])),
                                peer=int(rng.choice([0, 1, 2, NONE])), flags=flags))
            per_rank.append(recs)
        ranks = [rank_trace(r, recs) for r, recs in enumerate(per_rank)]
        rows = np.concatenate([global_rows(r.rank, r.records, r.records["t_enter"] * 1.0,
                                           r.records["t_exit"] * 1.0) for r in ranks])
        rows = rows[np.argsort(rows["start"], kind="stable")]
        for ordered in (False, True):
            m = Matcher(ranks, ordered)
            out = [*m.feed(rows), *m.finish()]
            calls = sum(1 for r in rows if not r["flags"] & F_PART)
            assert len(out) == calls and all(not c.pending for c in out), trial
