"""The trace reader and views fed with corrupt files (issue 13, defect 6):
flipped bytes, cuts, zeroed and inserted ranges of a valid synthetic trace
give a trace (partial, maybe) or one MpiscopeError, never another
exception. Seeded random corruption, a bounded number of cases (no
hypothesis in the test environment)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.trace.analysis import analyse
from mpiscope.trace.chrome import chrome_events
from mpiscope.trace.html import render_html
from mpiscope.trace.merge import load
from mpiscope.trace.reader import F_COMPLETED, F_PART, F_REQUEST_NEW
from mpiscope.trace.summary import render_summary
from trace_helpers import rec, write_rank

CASES = 300


def valid_trace(directory: Path) -> list[Path]:
    directory.mkdir()
    r0 = [rec("MPI_Init", 10, 20), rec("MPI_Send", 100, 150, peer=1, tag=5, nbytes=8),
          rec("MPI_Isend", 200, 210, peer=1, tag=6, nbytes=8, request=0xC,
              flags=F_REQUEST_NEW),
          rec("MPI_Waitall", 220, 300), rec("MPI_Waitall", 220, 300, request=0xC,
                                            flags=F_PART | F_COMPLETED),
          rec("MPI_Barrier", 400, 500), rec("MPI_Finalize", 2000, 2100)]
    r1 = [rec("MPI_Init", 10, 20), rec("MPI_Recv", 90, 160, peer=0, tag=5, nbytes=8),
          rec("MPI_Irecv", 190, 195, peer=0, tag=6, nbytes=8, request=0xD,
              flags=F_REQUEST_NEW),
          rec("MPI_Waitall", 196, 320), rec("MPI_Waitall", 196, 320, peer=0, tag=6, nbytes=8,
                                            request=0xD, flags=F_PART | F_COMPLETED),
          rec("MPI_Barrier", 300, 501), rec("MPI_Finalize", 2000, 2100)]
    clocks = [(0, 0.0, 0.0), (1, 0.0, 2000.0)]
    return [write_rank(directory, 0, 2, r0, clocks=clocks, block=3),
            write_rank(directory, 1, 2, r1, clocks=clocks, block=3)]


def corrupt(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    kind = rng.choice(["flip", "flip", "cut", "zero", "insert", "random"])
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(b))
            b[at] ^= 1 << rng.randrange(8)
    elif kind == "cut":
        del b[rng.randrange(len(b)):]
    elif kind == "zero":
        at = rng.randrange(len(b))
        b[at:at + rng.randint(1, 200)] = bytes(len(b[at:at + rng.randint(1, 200)]))
    elif kind == "insert":
        at = rng.randrange(len(b))
        b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 24)))
    else:
        at = rng.randrange(16, len(b))
        for i in range(at, min(len(b), at + rng.randint(1, 64))):
            b[i] = rng.randrange(256)
    return bytes(b)


def every_view(directory: Path) -> None:
    merged = load(directory)
    render_summary(merged, top=5)
    analyse(merged)
    chrome_events(merged)
    render_html(merged, "t")


def test_seeded_corruptions_never_raise_anything_else(tmp_path: Path) -> None:
    files = valid_trace(tmp_path / "t")
    originals = [f.read_bytes() for f in files]
    every_view(tmp_path / "t")  # the valid one is readable
    rng = random.Random(20261124)
    outcomes = {"read": 0, "error": 0}
    for case in range(CASES):
        which = rng.randrange(2)
        files[which].write_bytes(corrupt(originals[which], rng))
        try:
            every_view(tmp_path / "t")
            outcomes["read"] += 1
        except MpiscopeError:
            outcomes["error"] += 1
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"case {case}: {type(exc).__name__}: {exc}")
        finally:
            files[which].write_bytes(originals[which])
    assert outcomes["read"] and outcomes["error"]  # both kinds of outcome were met


@pytest.mark.parametrize("view", [["summary"], ["export", "--format", "chrome"], ["view"]])
def test_cli_on_a_corrupt_trace_is_one_line(tmp_path: Path, view: list[str]) -> None:
    files = valid_trace(tmp_path / "t")
    data = bytearray(files[0].read_bytes())
    data[30:38] = b"\xff" * 8  # the META chunk's size: far beyond the file
    files[0].write_bytes(bytes(data))
    meta_gone = subprocess.run([sys.executable, "-m", "mpiscope", "trace", *view[:1], "t",
                                *view[1:]], cwd=tmp_path, capture_output=True, text=True,
                               check=False)
    assert meta_gone.returncode == 2, meta_gone.stderr
    assert meta_gone.stderr.startswith("mpiscope: error: ")
    assert meta_gone.stderr.count("\n") == 1 and "Traceback" not in meta_gone.stderr
