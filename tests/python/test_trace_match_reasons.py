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
         ("MPI_Win_complete", "rma")]
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
