"""Packed record blocks (THRC, src/tracer/pack.c): what the tracer packs
reads back as exactly the records it had, escapes and raw fallbacks
included, and a real program traced packed and raw gives the same calls.
"""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.trace.merge import load
from mpiscope.trace.reader import (
    RECORD_DTYPE,
    TAIL_DTYPE,
    read_rank_file,
    unpack_block,
)
from mpiscope.trace.stream import open_stream
from trace_helpers import build_example, mpiscope, profile_or_fail

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def packer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/trace/pack_records.c built with the tracer's packer."""
    out = tmp_path_factory.mktemp("pack") / "pack_records"
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    "-I", str(ROOT / "src" / "tracer"), str(ROOT / "tests" / "trace" /
                                                             "pack_records.c"),
                    str(ROOT / "src" / "tracer" / "pack.c"), "-o", str(out)],
                   check=True, capture_output=True)
    return out


def _blocks(path: Path) -> list[tuple[int, int, bytes]]:
    data, at, out = path.read_bytes(), 0, []
    while at < len(data):
        first, n, size = struct.unpack_from("<QQQ", data, at)
        at += 24
        out.append((first, n, data[at:at + size]))
        at += size
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_packed_blocks_read_back_exactly(packer: Path, tmp_path: Path, seed: int) -> None:
    subprocess.run([str(packer), str(tmp_path), str(seed)], check=True)
    raw = np.fromfile(tmp_path / "raw.bin", RECORD_DTYPE)
    blocks = _blocks(tmp_path / "packed.bin")
    kept_raw = 0
    for k, (first, n, chunk) in enumerate(blocks):
        if not chunk:
            kept_raw += 1
            continue
        assert chunk[:4] == b"THRC"
        (size,) = struct.unpack_from("<Q", chunk, 8)
        assert size == len(chunk) - 16 and len(chunk) % 8 == 0
        assert len(chunk) < 40 + 64 * n  # smaller than the raw block, or not packed
        index, _, count, start = struct.unpack_from("<IIQQ", chunk, 16)
        assert (index, count, start) == (3, n, first)
        got = unpack_block(chunk[16:])
        assert got.tobytes() == raw[first:first + n].tobytes(), f"block {k}"
    # block 1 holds more kinds of record than a block's table: it stays raw
    assert kept_raw == 1 and not blocks[1][2]
    # every other kind of block was packed, escapes included: the loop's to a fifth
    loop = blocks[0][2]
    assert len(loop) < (40 + 64 * blocks[0][1]) / 5


def _packed(records: np.ndarray, base: int | None = None) -> bytes:
    """A THRC payload made here, independently of the tracer's packer."""
    tails = records[list(TAIL_DTYPE.names or ())]
    kinds, codes = np.unique(np.array(tails.tolist(), dtype=TAIL_DTYPE), return_inverse=True)
    enter = records["t_enter"].astype(np.uint64)
    base = int(enter[0]) if base is None else base
    with np.errstate(over="ignore"):
        steps = np.diff(enter, prepend=np.uint64(base))
        spans = records["t_exit"] - enter
    esc_s = steps >= 0xFFFFFFFF
    esc_x = (spans >= 0xFFFFFFFF) | (records["t_exit"] < enter)
    n = len(records)

    def col(a: np.ndarray, dtype: str) -> bytes:
        b = a.astype(dtype).tobytes()
        return b + bytes(-len(b) % 8)

    return (struct.pack("<IIQQIIIIQ", 0, 0, n, 0, len(kinds), int(esc_s.sum()),
                        int(esc_x.sum()), 0, base)
            + kinds.tobytes() + col(codes, "<u2")
            + col(np.where(esc_s, 0xFFFFFFFF, steps), "<u4")
            + col(np.where(esc_x, 0xFFFFFFFF, spans), "<u4")
            + steps[esc_s].astype("<u8").tobytes()
            + records["t_exit"][esc_x].astype("<u8").tobytes())


def test_unpack_block_of_a_hand_made_payload() -> None:
    r = np.zeros(6, RECORD_DTYPE)
    r["t_enter"] = [10, 10, 2**40, 2**64 - 5, 3, 7]
    r["t_exit"] = [12, 11, 2**40 + 2**33, 0, 4, 9]
    r["func"] = [1, 1, 2, 1, 1, 2]
    r["peer"] = [0, 0, 1, 0, 0, 1]
    r["bytes"] = [8, 8, -1, 8, 8, -1]
    assert unpack_block(_packed(r)).tobytes() == r.tobytes()


def test_corrupt_packed_blocks_are_refused() -> None:
    r = np.zeros(4, RECORD_DTYPE)
    r["t_enter"] = [1, 2, 3, 4]
    r["t_exit"] = [2, 3, 4, 5]
    r["func"] = [1, 2, 1, 2]
    good = _packed(r)
    with pytest.raises(ValueError):
        unpack_block(good[:-8])  # cut
    bad = bytearray(good)
    struct.pack_into("<I", bad, 24, 1)  # one kind, codes name two
    with pytest.raises(ValueError):
        unpack_block(bytes(bad)[:48] + bytes(bad)[96:])
    bad = bytearray(good)
    struct.pack_into("<I", bad, 28, 1)  # an exception the steps do not escape
    with pytest.raises(ValueError):
        unpack_block(bytes(bad) + bytes(8))


def _trace(tmp_path: Path, exe: Path, name: str, pack: str) -> Path:
    env = dict(os.environ, MPISCOPE_TRACE_PACK=pack)
    run = mpiscope("trace", "--mpi", "mpich", "--np", "2", "--records", "16", "-o", name,
                   str(exe), "--dims", "1", "--lattice", "4", "--site", "2", "--iters", "40",
                   mpi="mpich", cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    return tmp_path / name


@pytest.mark.mpi
def test_a_program_traced_packed_and_raw_gives_the_same_calls(tmp_path: Path) -> None:
    """halo4d with 16-record halves (most blocks fill): packed and raw traces of
    the same program hold the same calls with the same arguments (all but
    the stamps, call sites and request handles, which differ between two
    runs: MPICH hands requests out of its pool in completion order), read
    in memory and streamed."""
    profile_or_fail("mpich")
    exe = build_example("halo4d", "mpich", tmp_path)
    packed = _trace(tmp_path, exe, "packed", "1")
    raw = _trace(tmp_path, exe, "raw", "0")
    same = ["func", "comm", "bytes", "peer", "tag", "root", "flags"]  # requests: pool order
    for rank in (0, 1):
        p = read_rank_file(packed / f"rank-{rank:05d}.mst")
        q = read_rank_file(raw / f"rank-{rank:05d}.mst")
        assert p.complete and q.complete and p.dropped == q.dropped == 0
        assert b"THRC" in p.path.read_bytes() and b"THRC" not in q.path.read_bytes()
        assert len(p.records) == len(q.records) > 16 * 10
        for name in same:
            assert np.array_equal(p.records[name], q.records[name]), name
        assert (p.records["t_exit"] >= p.records["t_enter"]).all()
        lazy = read_rank_file(p.path, records=False)
        assert sum(c for runs in lazy.segments.values() for _, c, _ in runs) == len(p.records)
    merged_p, merged_q = load(packed), load(raw)
    assert len(merged_p.messages) == len(merged_q.messages) == 40 * 2 * 2
    assert merged_p.unmatched_sends == merged_p.unmatched_recvs == merged_p.backwards == 0
    calls = [sum(1 for _ in open_stream(t).calls()) for t in (packed, raw)]
    assert calls[0] == calls[1] > 16 * 10 * 2
    with pytest.raises(MpiscopeError):  # a packed block damaged inside: one clear error
        data = bytearray((packed / "rank-00000.mst").read_bytes())
        at = data.index(b"THRC")
        struct.pack_into("<I", data, at + 16 + 24, 0)  # no kinds
        (packed / "rank-00000.mst").write_bytes(bytes(data))
        read_rank_file(packed / "rank-00000.mst")
