"""Cancelled sends and receives are no messages (mpi4py's testCancel,
testProbeCancel, testISSendCancel: 6,474 of 72,960 messages mis-paired in its
p2p tests). The tracer wrote MPI_Cancel's request as the handle's address and
nothing of what MPI_Request_get_status found, so a cancelled send stayed a
message and every later one on its channel paired one send early.

A real program (tests/trace/cancel.c) traced on 2 ranks, each message's
pairing checked against the bytes its receive got; and small in-memory traces
for the order the matcher must wait in (a receive completing before the
cancel's outcome is known). No timing is checked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mpiscope.trace.calls import Message
from mpiscope.trace.matching import CANCELLED_RECV, CANCELLED_SEND, global_rows, match_all
from mpiscope.trace.merge import load
from mpiscope.trace.reader import (
    F_CANCELLED,
    F_COMPLETED,
    F_PART,
    F_REQUEST_NEW,
    NONE,
    THREAD_RECORD_DTYPE,
    CommDef,
    RankTrace,
)
from mpiscope.trace.stream import open_stream
from trace_helpers import ROOT, build_example, mpiscope

SOURCE = ROOT / "tests" / "trace" / "cancel.c"


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    bins = tmp_path_factory.mktemp("bins")
    return lambda mpi: build_example("cancel", mpi, bins, SOURCE)


@pytest.mark.parametrize("mpi", ["mpich", "openmpi"])
@pytest.mark.mpi
def test_cancelled_operations_are_left_out_and_every_message_pairs_right(
        mpi: str, build: Callable[[str], Path], tmp_path: Path) -> None:
    run = mpiscope("trace", "--mpi", mpi, "--np", "2", "-o", "t", str(build(mpi)), mpi=mpi,
                   cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    words = run.stdout.split()  # cancel: S sends and R receives cancelled
    assert words[0] == "cancel:", run.stdout
    sends, recvs = int(words[1]), int(words[4])
    assert recvs == 2  # every MPI cancels a receive nobody sends to
    if mpi == "mpich":
        assert sends == 6  # MPICH 5.0 cancels the sends to itself on MPI_COMM_SELF
    trace = tmp_path / "t"

    merged = load(trace)
    # to itself: 6 per rank, and 3 whose cancel may fail; 0 -> 1: 3, the flag and one whose
    # cancel may fail; 1 -> 0: 3
    assert len(merged.messages) == 2 * (6 + 3) + 4 + 1 + 3 - sends
    for m in merged.messages:  # every receive got what its send sent (MPI_Recv's bytes)
        rec = merged.timelines[m.dst].records[m.recv_index]
        assert int(rec["bytes"]) == m.bytes, m
    assert merged.unmatched_sends == merged.unmatched_recvs == 0
    left_out = Counter({CANCELLED_SEND: sends, CANCELLED_RECV: recvs})
    assert merged.unmatched_why.get("message", Counter()) == +left_out

    stream = open_stream(trace)  # the streamed views: the same
    streamed = sorted((m.src, m.send_index, m.dst, m.recv_index)
                      for m in _messages(stream))
    assert streamed == sorted((m.src, m.send_index, m.dst, m.recv_index)
                              for m in merged.messages)

    summary = mpiscope("trace", "summary", str(trace), mpi="mpich", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert (f"0 sends and 0 receives unmatched, {sends + recvs} cancelled left out"
            in summary.stdout)
    assert f"not matched, point-to-point: 2: {CANCELLED_RECV}" in summary.stdout


def _messages(stream: object) -> list[Message]:
    out: list[Message] = []
    for _ in stream.calls(on_message=lambda k, m, s, r: out.append(m)):  # type: ignore[attr-defined]
        pass
    return out


# --- in-memory traces: the order the outcome can come in ---------------------

FUNCS = [("", "other"), ("MPI_Issend", "isend"), ("MPI_Send", "send"), ("MPI_Recv", "recv"),
         ("MPI_Cancel", "other"), ("MPI_Request_get_status", "other"),
         ("MPI_Request_free", "other"), ("MPI_Wait", "completion"), ("MPI_Irecv", "irecv")]
FN = {name: i for i, (name, _) in enumerate(FUNCS)}
WORLD, REQ = 0x44000000, 0x2C000001


def rec(func: str, t: int, *, request: int = 0, peer: int = NONE, tag: int = NONE,
        nbytes: int = -1, flags: int = 0, comm: int = WORLD) -> tuple:
    return (t, t + 5, comm, request, 0, nbytes, peer, tag, NONE, FN[func], flags, 0)


def match(per_rank: list[list[tuple]]) -> tuple[list[tuple[int, int, int]], dict]:
    """(bytes sent, sending call's index, receiving call's index) per message."""
    ranks = [RankTrace(Path(f"rank-{r}"), {"rank": r, "nprocs": 2}, [f for f, _ in FUNCS],
                       [c for _, c in FUNCS], {}, [CommDef(WORLD, 1, 0, 0, (0, 1))],
                       np.array(recs, THREAD_RECORD_DTYPE), 0, [], "finalized", 0, 0, True)
             for r, recs in enumerate(per_rank)]
    rows = [global_rows(r.rank, r.records, r.records["t_enter"].astype(float),
                        r.records["t_exit"].astype(float)) for r in ranks]
    out: list[tuple[int, int, int]] = []
    m = match_all(ranks, rows, lambda k, msg, s, r: out.append(
        (msg.bytes, msg.send_index, msg.recv_index)), lambda *a: None)
    assert m.unmatched() == (0, 0)
    return out, dict(m.unmatched_why)


def sender(cancelled: bool) -> list[tuple]:
    """Rank 0: an MPI_Issend (400 B) it cancels, an MPI_Send (4 B); the
    cancel's outcome from MPI_Request_get_status after the receive completed."""
    outcome = F_PART | F_COMPLETED | (F_CANCELLED if cancelled else 0)
    return [rec("MPI_Issend", 100, request=REQ, peer=1, tag=5, nbytes=400, flags=F_REQUEST_NEW),
            rec("MPI_Cancel", 120, request=REQ),
            rec("MPI_Send", 200, peer=1, tag=5, nbytes=4),
            rec("MPI_Request_get_status", 300, request=REQ),
            rec("MPI_Request_get_status", 300, request=REQ, peer=0, tag=5, flags=outcome),
            rec("MPI_Request_free", 310, request=REQ)]


def receiver(n: int) -> list[tuple]:
    return [rec("MPI_Recv", 150 + 100 * k, peer=0, tag=5, nbytes=4) for k in range(n)]


def test_a_send_cancelled_after_the_receive_completed_is_not_its_message() -> None:
    """The receive completes (150-155) before rank 0 learns the cancel
    succeeded (300): the matcher waits for the outcome instead of pairing
    the receive with the cancelled MPI_Issend (the tracer before: 400 B)."""
    pairs, why = match([sender(cancelled=True), receiver(1)])
    assert pairs == [(4, 2, 0)]
    assert why == {"message": Counter({CANCELLED_SEND: 1})}


def test_a_send_whose_cancel_failed_is_a_message() -> None:
    pairs, why = match([sender(cancelled=False), receiver(2)])
    assert pairs == [(400, 0, 0), (4, 2, 1)] and not why


def test_a_cancelled_receive_is_counted() -> None:
    irecv = [rec("MPI_Irecv", 10, request=REQ, peer=0, tag=9, flags=F_REQUEST_NEW),
             rec("MPI_Cancel", 20, request=REQ), rec("MPI_Wait", 30, request=REQ),
             rec("MPI_Wait", 30, request=REQ, peer=NONE, tag=NONE,
                 flags=F_PART | F_COMPLETED | F_CANCELLED)]
    pairs, why = match([[], irecv])
    assert not pairs and why == {"message": Counter({CANCELLED_RECV: 1})}
