"""The bench's catalogue is asked once per build: kept in the cache
directory under the identity of the bench file, asked again when the bench
changes or the kept copy is damaged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mpiscope.measure.catalogue import KEEP_CACHES, cache_dir, query_ops
from mpiscope.mpi_profile import select_profile
from mpiscope_fakes import FakeMpi

COUNTING = """
import sys
if sys.argv[1:] == ["--list-ops"]:
    with open(__LOG__, "a") as log:
        log.write("asked\\n")
"""


@pytest.fixture
def counted(fake_mpi: FakeMpi, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The fake bench, logging each --list-ops to the returned file."""
    log = tmp_path / "asked.log"
    text = fake_mpi.bench.read_text()
    shebang, body = text.split("\n", 1)
    fake_mpi.bench.write_text(f"{shebang}\n{COUNTING.replace('__LOG__', repr(str(log)))}{body}")
    for key, value in fake_mpi.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return log


def _asked(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_asked_once_then_read_from_the_cache(counted: Path, tmp_path: Path) -> None:
    profile = select_profile("fake")
    first, ops = query_ops(profile)
    again, ops_again = query_ops(profile)
    assert _asked(counted) == 1
    assert again == first and ops_again == ops and ops
    assert cache_dir() == tmp_path / "cache" / "mpiscope"
    assert len(list(cache_dir().glob("ops-*.json"))) == 1


def test_a_changed_bench_is_asked_again(counted: Path, fake_mpi: FakeMpi) -> None:
    profile = select_profile("fake")
    query_ops(profile)
    st = fake_mpi.bench.stat()
    os.utime(fake_mpi.bench, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a rebuild
    query_ops(profile)
    assert _asked(counted) == 2


def test_a_damaged_cache_file_is_replaced(counted: Path) -> None:
    profile = select_profile("fake")
    text, _ = query_ops(profile)
    (kept,) = cache_dir().glob("ops-*.json")
    kept.write_text('[{"name": 1}]')
    again, _ = query_ops(profile)
    assert _asked(counted) == 2 and again == text and kept.read_text() == text


def test_an_unwritable_cache_only_costs_time(counted: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    profile = select_profile("fake")
    first, _ = query_ops(profile)
    again, _ = query_ops(profile)
    assert first == again and _asked(counted) == 2


def test_old_copies_are_removed_beyond_the_newest(counted: Path, fake_mpi: FakeMpi) -> None:
    """Every rebuild leaves a copy: writing one keeps only the newest."""
    cache_dir().mkdir(parents=True)
    stale = [cache_dir() / f"ops-{i:016x}.json" for i in range(KEEP_CACHES + 3)]
    for age, path in enumerate(stale):  # stale[0] the newest
        path.write_text("[]")
        os.utime(path, ns=(0, 10**18 - age * 10**9))
    other = cache_dir() / "other.json"  # not a catalogue: left alone
    other.write_text("{}")
    query_ops(select_profile("fake"))
    left = set(cache_dir().glob("ops-*.json"))
    written = left - set(stale)
    assert len(written) == 1 and len(left) == KEEP_CACHES
    assert left - written == set(stale[: KEEP_CACHES - 1]) and other.exists()
