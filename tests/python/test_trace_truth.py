"""Defects found by checking traces of real programs against ground truth
(bench/trace_truth.py pairs on the mpi4py p2p tests), on synthetic traces."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

from mpiscope.trace.merge import load
from mpiscope.trace.reader import (
    F_COMPLETED,
    F_PART,
    F_REQUEST_NEW,
    RECORD_DTYPE,
    TAG_ANY,
    check_rank_file,
    read_rank_file,
    read_trace,
)
from mpiscope.trace.stream import open_stream
from trace_helpers import FN, _chunk, rec, write_rank

MPICH_ANY_TAG = -1  # MPI_ANY_TAG's value in MPICH and Open MPI, as the tracer wrote it


def any_tag_trace(tmp_path: Path) -> Path:
    """Rank 0 sends two messages of tag 0 (4 then 8 bytes); rank 1 receives
    the first with MPI_Irecv(MPI_ANY_TAG) + MPI_Wait, the second with MPI_Recv."""
    r0 = [rec("MPI_Send", 100, 110, peer=1, tag=0, nbytes=4),
          rec("MPI_Send", 400, 410, peer=1, tag=0, nbytes=8)]
    r1 = [rec("MPI_Irecv", 50, 60, peer=0, tag=MPICH_ANY_TAG, nbytes=1024, request=0xB,
              flags=F_REQUEST_NEW),
          rec("MPI_Wait", 120, 300),
          rec("MPI_Wait", 120, 300, peer=0, tag=0, nbytes=4, request=0xB,
              flags=F_PART | F_COMPLETED),
          rec("MPI_Recv", 350, 420, peer=0, tag=0, nbytes=8)]
    write_rank(tmp_path, 0, 2, r0)
    write_rank(tmp_path, 1, 2, r1)
    return tmp_path


def test_any_tag_as_the_mpi_wrote_it_is_a_wildcard(tmp_path: Path) -> None:
    """The tracer wrote a posted receive's tag as given, so MPICH's
    MPI_ANY_TAG (-1) was filed as tag -1: the receive matched nothing and
    every later message on the channel paired with the call after its own
    (mpi4py's p2p tests: 7,670 mis-paired). A negative tag that is not one
    of the tracer's codes is MPI_ANY_TAG (a real tag is >= 0)."""
    trace = read_trace(any_tag_trace(tmp_path))
    assert int(trace.ranks[1].records["tag"][0]) == TAG_ANY
    merged = load(tmp_path)
    assert merged.unmatched_sends == merged.unmatched_recvs == 0
    pairs = sorted((m.bytes, merged.timelines[1].name(m.recv_index)) for m in merged.messages)
    assert pairs == [(4, "MPI_Wait"), (8, "MPI_Recv")]


def test_any_tag_streamed_too(tmp_path: Path) -> None:
    """The exports and the summary (the streamed reader) pair it the same way."""
    stream = open_stream(any_tag_trace(tmp_path))
    calls = list(stream.calls())
    assert (stream.unmatched_sends, stream.unmatched_recvs) == (0, 0)
    ins = {c.name: len(c.flows_in) for c in calls if c.rank == 1}
    assert ins == {"MPI_Irecv": 0, "MPI_Wait": 1, "MPI_Recv": 1}


def test_overwritten_file_is_called_corrupt_in_plain_text(tmp_path: Path) -> None:
    """A rank file another process overwrote (the full mpi4py suite: a
    spawned job's rank 0 truncated and rewrote rank-00000.mst while the
    parent went on writing at its offsets) was reported "cut at byte N
    inside its \\ufffd\\ufffd\\ufffd\\ufffd chunk": bytes that are no chunk
    header are said to be that, in plain text, by the reader and the check."""
    path = write_rank(tmp_path, 0, 1, [rec("MPI_Send", 100, 110, peer=0, tag=0, nbytes=4)])
    size = path.stat().st_size
    with path.open("ab") as f:
        f.write(b"\xf0\x9f\x8e\x00" + bytes(4) + (1 << 40).to_bytes(8, "little") + b"x" * 64)
    why = check_rank_file(path)
    assert why == read_rank_file(path).cut
    assert why.startswith(f"corrupt from byte {size} ") and why.isascii()


HWM_PROBE = """
import sys
from pathlib import Path
from mpiscope.trace.reader import read_rank_file

def hwm_kb():
    return int(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")))

before = hwm_kb()
rank = read_rank_file(Path(sys.argv[1]), records=False)
print(sum(c for runs in rank.segments.values() for _, c, _ in runs), hwm_kb() - before)
"""


def test_headers_of_a_large_rank_file_read_without_its_records(tmp_path: Path) -> None:
    """The exports and the summary read a rank file's chunk headers first
    (records=False). Through a mapping of the file that touched a third of
    it (the kernel maps the pages around each header): the Perfetto export
    of the full mpi4py suite (2 x 2.3 GB) peaked at 1.17 GB, all of it in
    that first pass. Here 200 MiB of records in 800 blocks: the peak grows
    by far less than the file."""
    blocks, per_block = 800, 4096
    path = write_rank(tmp_path, 0, 1, [rec("MPI_Comm_rank", 1, 2)], end=None)
    block = np.zeros(per_block, RECORD_DTYPE)
    block["func"] = FN["MPI_Comm_rank"]
    with path.open("ab") as f:
        for k in range(blocks):
            block["t_enter"] = np.arange(per_block) + 10 + k * per_block
            block["t_exit"] = block["t_enter"] + 1
            f.write(_chunk("THRD", struct.pack("<IIQQ", 0, 0, per_block, 1 + k * per_block)
                           + block.tobytes()))
        f.write(_chunk("END ", struct.pack("<IiQQQQ", 1, 0, 0, 0, 0, 0)))
    out = subprocess.run([sys.executable, "-c", HWM_PROBE, str(path)], capture_output=True,
                         text=True, check=True).stdout.split()
    records, grown_kb = int(out[0]), int(out[1])
    assert records == 1 + blocks * per_block
    assert grown_kb < 32 * 1024, f"reading the headers grew the peak by {grown_kb} kB"
