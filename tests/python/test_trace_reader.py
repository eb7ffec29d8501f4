"""The trace reader, the global clock and message matching, on synthetic
traces written from docs/trace-format.md (no MPI needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.trace.analysis import analyze
from mpiscope.trace.merge import load
from mpiscope.trace.reader import F_COMPLETED, F_PART, F_RECV_HALF, F_REQUEST_NEW, read_trace
from mpiscope.trace.summary import render_summary
from trace_helpers import rec, write_rank

ANY = -1000003


def two_rank_trace(tmp_path: Path, *, late_send: bool = True, clocks: bool = False) -> Path:
    """Rank 0 sends tag 5 at 1000 (or 100); rank 1 receives from 100 to 1200."""
    send_at = 1000 if late_send else 100
    r0 = [rec("MPI_Init", 10, 20), rec("MPI_Send", send_at, send_at + 50, peer=1, tag=5,
                                       nbytes=8),
          rec("MPI_Finalize", 2000, 2100)]
    r1 = [rec("MPI_Init", 10, 20), rec("MPI_Recv", 100, 1200, peer=0, tag=5, nbytes=8),
          rec("MPI_Finalize", 2000, 2100)]
    c0 = [(0, 0.0, 0.0), (1, 0.0, 2000.0)] if clocks else None
    c1 = [(0, 0.0, 0.0), (1, 0.0, 2000.0)] if clocks else None
    write_rank(tmp_path, 0, 2, r0, clocks=c0)
    write_rank(tmp_path, 1, 2, r1, clocks=c1)
    return tmp_path


def test_blocking_message_matched_and_late_sender(tmp_path: Path) -> None:
    merged = load(two_rank_trace(tmp_path))
    assert len(merged.messages) == 1
    m = merged.messages[0]
    assert (m.src, m.dst, m.tag, m.bytes) == (0, 1, 5, 8)
    assert m.send_ns == pytest.approx(990)  # relative to the first call at 10
    assert m.recv_ns == pytest.approx(1190)
    a = analyze(merged)
    assert a.late_sender[(0, 1)].count == 1
    assert a.late_sender[(0, 1)].total_ns == pytest.approx(900)  # recv at 100, send at 1000
    assert not a.late_receiver


def test_late_receiver(tmp_path: Path) -> None:
    r0 = [rec("MPI_Send", 100, 900, peer=1, tag=1, nbytes=1 << 20)]
    r1 = [rec("MPI_Recv", 700, 950, peer=0, tag=1, nbytes=1 << 20)]
    write_rank(tmp_path, 0, 2, r0)
    write_rank(tmp_path, 1, 2, r1)
    a = analyze(load(tmp_path))
    assert a.late_receiver[(0, 1)].total_ns == pytest.approx(600)
    assert not a.late_sender


def test_nonblocking_wildcard_matched_through_waitall(tmp_path: Path) -> None:
    # rank 1 posts two ANY_SOURCE receives; the statuses say 0 then 2
    r1 = [rec("MPI_Irecv", 100, 110, peer=ANY, tag=7, request=0xA, flags=F_REQUEST_NEW),
          rec("MPI_Irecv", 120, 130, peer=ANY, tag=7, request=0xB, flags=F_REQUEST_NEW),
          rec("MPI_Waitall", 140, 900),
          rec("MPI_Waitall", 140, 900, peer=2, tag=7, nbytes=4, request=0xB,
              flags=F_PART | F_COMPLETED),
          rec("MPI_Waitall", 140, 900, peer=0, tag=7, nbytes=4, request=0xA,
              flags=F_PART | F_COMPLETED)]
    r0 = [rec("MPI_Isend", 500, 510, peer=1, tag=7, nbytes=4, request=0xC, flags=F_REQUEST_NEW)]
    r2 = [rec("MPI_Send", 600, 610, peer=1, tag=7, nbytes=4)]
    for rank, records in ((0, r0), (1, r1), (2, r2)):
        write_rank(tmp_path, rank, 3, records)
    merged = load(tmp_path)
    pairs = sorted((m.src, m.dst) for m in merged.messages)
    assert pairs == [(0, 1), (2, 1)]
    assert all(m.recv_index == 2 for m in merged.messages)  # the Waitall call
    assert merged.unmatched_sends == merged.unmatched_recvs == 0


def test_backwards_arrow_counted(tmp_path: Path) -> None:
    # the receive completes before the send starts: wrong clocks
    write_rank(tmp_path, 0, 2, [rec("MPI_Send", 500, 510, peer=1, tag=0, nbytes=1)])
    write_rank(tmp_path, 1, 2, [rec("MPI_Recv", 100, 200, peer=0, tag=0, nbytes=1)])
    merged = load(tmp_path)
    assert merged.backwards == 1
    assert "1 arrow(s) backwards in time" in render_summary(merged)


def test_clock_offsets_and_drift_corrected_linearly(tmp_path: Path) -> None:
    # rank 1's clock runs 1000 ns ahead at local 0 and 2000 ns ahead at local 1e6
    write_rank(tmp_path, 0, 2, [rec("MPI_Comm_rank", 500_000, 500_010)],
               clocks=[(0, 0.0, 0.0), (1, 0.0, 1e6)])
    write_rank(tmp_path, 1, 2, [rec("MPI_Comm_rank", 502_500, 502_510)],
               clocks=[(0, -1000.0, 0.0), (1, -2000.0, 1e6)])
    merged = load(tmp_path)
    t0, t1 = (tl.start_ns[0] + merged.origin_ns for tl in merged.timelines)
    assert t0 == pytest.approx(500_000)
    assert t1 == pytest.approx(502_500 - 1000 - 1000 * 0.5025)


def test_collective_wait_for_the_last(tmp_path: Path) -> None:
    for rank, t_in in ((0, 1000), (1, 100), (2, 400)):
        write_rank(tmp_path, rank, 3, [rec("MPI_Barrier", t_in, 1100 + rank)])
    a = analyze(load(tmp_path))
    (barrier,) = a.collectives
    assert barrier.instances == 1 and barrier.ranks == 3
    assert dict(barrier.last_arrivals) == {0: 1}
    assert barrier.early_wait_ns == pytest.approx(900 + 600)
    assert barrier.after_last_ns == pytest.approx(102)


def test_truncated_file_is_partial(tmp_path: Path) -> None:
    two_rank_trace(tmp_path)
    path = write_rank(tmp_path, 1, 2, [rec("MPI_Init", 10, 20),
                                       rec("MPI_Recv", 100, 0, peer=0, tag=5)], end=None)
    with path.open("ab") as f:  # a chunk cut short: the writer was killed
        f.write(b"MAPS\0\0\0\0" + (4096).to_bytes(8, "little") + b"/usr/lib")
    trace = read_trace(tmp_path)
    partial = trace.ranks[1]
    assert not partial.complete
    merged = load(tmp_path)
    assert merged.timelines[1].unfinished[-1]
    assert "PARTIAL" in render_summary(merged)


def test_a_file_cut_at_any_byte_after_its_header_is_partial(tmp_path: Path) -> None:
    """A full disk cuts a rank file wherever the limit falls, which depends on
    how well the records packed (on the machine's speed): at any byte after
    the header chunks the file reads as partial, never as corrupt (a THRD
    chunk cut right after its 16-byte chunk header failed in CI)."""
    records = [rec("MPI_Init", 10, 20)] + [rec("MPI_Barrier", 100 + 10 * i, 105 + 10 * i)
                                           for i in range(6)]
    whole = write_rank(tmp_path, 0, 1, records, block=2).read_bytes()
    header = whole.index(b"THRD")
    for size in range(header, len(whole)):
        (tmp_path / "rank-00000.mst").write_bytes(whole[:size])
        for with_records in (True, False):
            (rank,) = read_trace(tmp_path, records=with_records).ranks
            assert not rank.complete, size


def test_not_a_trace(tmp_path: Path) -> None:
    (tmp_path / "rank-00000.mst").write_bytes(b"garbage" * 10)
    with pytest.raises(MpiscopeError, match="not an mpiscope trace file"):
        read_trace(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "mpiscope", "trace", "summary", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("mpiscope: error: ") and proc.stderr.count("\n") == 1


@pytest.mark.parametrize("args", [["trace"], ["trace", "export", "x"],
                                  ["trace", "summary", "/nonexistent"],
                                  ["trace", "--np", "0", "./x"]])
def test_bad_input_is_one_line(args: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "mpiscope", *args], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("mpiscope: error: ") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_exports_of_a_synthetic_trace(tmp_path: Path) -> None:
    import json

    from mpiscope.trace.chrome import write_chrome
    from mpiscope.trace.html import render_html

    merged = load(two_rank_trace(tmp_path / "t", clocks=True) if (tmp_path / "t").mkdir() is None
                  else tmp_path)
    write_chrome(merged, tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert [e["ph"] for e in events].count("s") == 1 == [e["ph"] for e in events].count("f")
    page = render_html(merged, "t")
    assert 'data-messages="1"' in page and "<canvas" in page


def test_chrome_message_ends_at_the_receive_completion(tmp_path: Path) -> None:
    """Issue 15, defect 3: the flow ended at the START of the receive call
    (here 0.09 us, before the send left at 0.99 us)."""
    from mpiscope.trace.chrome import chrome_events

    events = chrome_events(load(two_rank_trace(tmp_path)))
    (start,) = [e for e in events if e["ph"] == "s"]
    (end,) = [e for e in events if e["ph"] == "f"]
    (recv,) = [e for e in events if e["ph"] == "X" and e["name"] == "MPI_Recv"]
    assert start["ts"] == pytest.approx(0.99)
    assert end["ts"] == pytest.approx(1.19, abs=0.0011) and end["ts"] >= start["ts"]
    assert recv["ts"] <= end["ts"] <= recv["ts"] + recv["dur"]  # inside the completing call


def test_isendrecv_paired_by_the_posted_envelope(tmp_path: Path) -> None:
    """Issue 15, defect 1: MPICH leaves an MPI_Isendrecv's status unfilled;
    the receive is filed under its posted source and tag, so the later
    message on the channel pairs with the right call."""
    garbage = 123456
    r0 = [rec("MPI_Isendrecv", 100, 110, peer=1, tag=0, nbytes=4, request=0xA,
              flags=F_REQUEST_NEW),
          rec("MPI_Isendrecv", 100, 110, peer=1, tag=0, flags=F_PART | F_RECV_HALF),
          rec("MPI_Wait", 120, 300),
          rec("MPI_Wait", 120, 300, peer=garbage, tag=garbage, nbytes=4, request=0xA,
              flags=F_PART | F_COMPLETED),
          rec("MPI_Send", 400, 410, peer=1, tag=0, nbytes=4)]
    r1 = [rec("MPI_Isendrecv", 105, 115, peer=0, tag=0, nbytes=4, request=0xB,
              flags=F_REQUEST_NEW),
          rec("MPI_Isendrecv", 105, 115, peer=0, tag=0, flags=F_PART | F_RECV_HALF),
          rec("MPI_Wait", 120, 310),
          rec("MPI_Wait", 120, 310, peer=-7, tag=garbage, nbytes=4, request=0xB,
              flags=F_PART | F_COMPLETED),
          rec("MPI_Recv", 350, 420, peer=0, tag=0, nbytes=4)]
    write_rank(tmp_path, 0, 2, r0)
    write_rank(tmp_path, 1, 2, r1)
    merged = load(tmp_path)
    assert merged.unmatched_sends == merged.unmatched_recvs == 0
    pairs = sorted((m.src, m.send_ns, m.recv_ns) for m in merged.messages)
    assert [(p[0]) for p in pairs] == [0, 0, 1]
    assert pairs[1][1:] == (300.0, 320.0)  # the MPI_Send went to the MPI_Recv, not the Wait


def shared_counter_trace(tmp_path: Path, host1: str) -> Path:
    """Stamps are ticks of one counter (2 ns each); rank 1's origin is 1000
    ticks later, so its local times are 2000 ns behind rank 0's. Its clock
    estimate says -500 ns (off by 2.5 us) while the residual says 40 ns."""
    ticks = {"stamp": "ticks", "stamp_source": "rdtsc", "ns_per_tick": 2.0}
    arrays = [[0.0, -500.0], [0.0, 200.0], [0.0, 40.0]]  # offsets, rtt, residual
    write_rank(tmp_path, 0, 2, [rec("MPI_Send", 10_000, 10_100, peer=1, tag=0, nbytes=8)],
               clocks=[(0, 0.0, 0.0)], clock_arrays=arrays,
               meta_extra={**ticks, "host": "node1", "origin_ticks": 0})
    # the receive completes at tick 10_200 (rank 0's clock: 20_400 ns), 400 ns after the send
    write_rank(tmp_path, 1, 2, [rec("MPI_Recv", 9_000, 10_200, peer=0, tag=0, nbytes=8)],
               clocks=[(0, -500.0, 0.0)],
               meta_extra={**ticks, "host": host1, "origin_ticks": 1000})
    return tmp_path


def test_ranks_sharing_rank_0s_counter_need_no_estimate(tmp_path: Path) -> None:
    """Issue 15, defect 2: the estimate (off by 2.5 us, residual 40 ns) drew
    the arrow backwards; one host's invariant counter is exact."""
    merged = load(shared_counter_trace(tmp_path, "node1"))
    (m,) = merged.messages
    assert m.recv_ns - m.send_ns == pytest.approx(400.0)
    assert merged.backwards == 0
    assert merged.shared_counter[1] == pytest.approx(-2500.0)
    assert "1 rank(s) on rank 0's host read its counter" in render_summary(merged)


def test_ranks_of_other_hosts_report_an_error_bound(tmp_path: Path) -> None:
    merged = load(shared_counter_trace(tmp_path, "node2"))
    assert not merged.shared_counter and merged.backwards == 1  # the estimate, as it is
    assert "error bound of the estimated offsets max 140 ns" in render_summary(merged)
