"""Per-core probes read from synthetic probe directories (no MPI)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.noise import probes
from mpiscope.noise.probes import format_probe, read_probe_dir
from mpiscope.result.noise import validate

QUANTUM_NS = 1_000_000  # 1 ms
FTQ_QUANTA = 4096  # 10 Hz then falls between two frequency bins (bin = 0.244 Hz)


def write_probe_file(
    directory: Path,
    kind: str,
    rank: int,
    core: int,
    records: Sequence[tuple[int, int]],
    extra: Mapping[str, object] | None = None,
    seconds: float = 4.096,
) -> Path:
    header = {
        "kind": kind,
        "rank": rank,
        "host": "node1",
        "pid": 4000 + rank,
        "core": core,
        "cpus_allowed": str(core),
        "seconds": seconds,
        "start_ns": 0,
        "timer": "tsc",
        "records": len(records),
        **(extra or {}),
    }
    lines = [f"# {key} {value}" for key, value in header.items()]
    lines += [f"{int(a)} {int(b)}" for a, b in records]
    path = directory / f"{kind}-r{rank}-c{core}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def ftq_counts(rng: np.random.Generator, dips: bool) -> np.ndarray:
    counts = rng.normal(1000.0, 5.0, FTQ_QUANTA).round()
    if dips:
        counts[::100] -= 400  # a detour every 100 quanta = every 100 ms
    return counts


def write_probe_dir(directory: Path, seed: int = 0) -> Path:
    """Two workers: rank 0 on core 2 with a 10 Hz agent, rank 1 on core 3 without."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    for rank, core, noisy in ((0, 2, True), (1, 3, False)):
        counts = ftq_counts(rng, noisy)
        write_probe_file(
            directory,
            "ftq",
            rank,
            core,
            [(i * QUANTUM_NS, c) for i, c in enumerate(counts)],
            {"quantum_ns": QUANTUM_NS, "dropped": 0},
        )
        work = rng.normal(100_000, 200, 2000).round()
        if noisy:
            work[::40] += 60_000
        write_probe_file(
            directory,
            "fwq",
            rank,
            core,
            list(zip(np.cumsum(work) - work, work, strict=True)),
            {"work_ns_target": 100_000, "work_iterations": 5000, "dropped": 0},
        )
        if noisy:
            starts = np.arange(40) * 100_000_000 + rng.integers(0, 50_000, 40)
        else:
            starts = np.sort(rng.integers(0, 4_000_000_000, 30))
        lengths = rng.integers(2_000, 60_000, starts.size)
        write_probe_file(
            directory,
            "selfish",
            rank,
            core,
            list(zip(starts, lengths, strict=True)),
            {"threshold_ns": 1000, "loop_median_ns": 25.5, "dropped": 0},
        )
    return directory


@pytest.fixture
def probe_doc(tmp_path: Path) -> dict:
    return read_probe_dir(write_probe_dir(tmp_path / "probe"))


def test_document_shape_and_schema(probe_doc: dict) -> None:
    validate(probe_doc)
    assert probe_doc["kind"] == "noise-probe" and probe_doc["schema_version"] == "1.0"
    assert [(w["rank"], w["core"], w["host"]) for w in probe_doc["workers"]] == [
        (0, 2, "node1"),
        (1, 3, "node1"),
    ]
    assert probe_doc["workers"][0]["cpus_allowed"] == [2]
    assert probe_doc["units"]["time"] == "ns" and probe_doc["units"]["frequency"] == "Hz"


def test_ftq_dip_every_100_ms_gives_a_10_hz_peak(probe_doc: dict) -> None:
    ftq = probe_doc["workers"][0]["ftq"]
    bin_hz = ftq["bin_hz"]
    assert bin_hz == pytest.approx(1e9 / (FTQ_QUANTA * QUANTUM_NS))
    assert any(abs(p["hz"] - 10.0) <= bin_hz for p in ftq["peaks"])
    assert probe_doc["workers"][0]["dominant_hz"] == pytest.approx(10.0, abs=bin_hz)
    strongest = ftq["peaks"][0]
    assert strongest["ratio"] > probes.PEAK_RATIO
    assert strongest["harmonics"] > 10  # 20, 30, ... Hz folded into the 10 Hz comb
    assert len(ftq["peaks"]) <= probes.PEAKS_KEPT
    assert len(ftq["spectrum"]["hz"]) == len(ftq["spectrum"]["power"]) <= probes.SPECTRUM_POINTS


def test_ftq_without_dips_has_no_peak_above_the_threshold(probe_doc: dict) -> None:
    quiet = probe_doc["workers"][1]
    ftq = quiet["ftq"]
    assert not [p for p in ftq["peaks"] if p["ratio"] > ftq["peak_ratio_threshold"]]
    assert ftq["peaks"] == [] and quiet["dominant_hz"] is None


def test_ftq_share_lost_uses_the_99th_percentile(tmp_path: Path) -> None:
    counts = np.full(1000, 100.0)
    counts[:10] = 50.0
    counts[500] = 200.0  # one freak quantum must not become the "undisturbed" one
    write_probe_file(
        tmp_path,
        "ftq",
        0,
        0,
        [(i * QUANTUM_NS, c) for i, c in enumerate(counts)],
        {"quantum_ns": QUANTUM_NS},
    )
    ftq = read_probe_dir(tmp_path)["workers"][0]["ftq"]
    assert ftq["p99_work"] == pytest.approx(np.percentile(counts, 99))
    assert ftq["share_lost"] == pytest.approx(1 - 99.6 / 100)  # the maximum would say 50 %


def test_ftq_peaks_at_a_non_bin_frequency(tmp_path: Path) -> None:
    t = np.arange(8192) * QUANTUM_NS * 1e-9
    counts = 1000 + 30 * np.sin(2 * np.pi * 37.3 * t)
    counts += np.random.default_rng(1).normal(0, 2, t.size)
    write_probe_file(
        tmp_path,
        "ftq",
        0,
        1,
        [(i * QUANTUM_NS, c) for i, c in enumerate(counts.round())],
        {"quantum_ns": QUANTUM_NS},
    )
    worker = read_probe_dir(tmp_path)["workers"][0]
    assert worker["dominant_hz"] == pytest.approx(37.3, abs=worker["ftq"]["bin_hz"])
    assert worker["fwq"] is None and worker["selfish"] is None


def test_two_agents_are_two_peaks_and_drift_is_none(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    t = np.arange(FTQ_QUANTA) * QUANTUM_NS * 1e-9
    counts = rng.normal(1000.0, 5.0, t.size) + 200 * t  # a slow drift over the run
    counts[::100] -= 400  # 10 Hz comb
    counts += 20 * np.sin(2 * np.pi * 37.3 * t)  # and a 37.3 Hz agent, not a harmonic
    write_probe_file(
        tmp_path,
        "ftq",
        0,
        0,
        [(i * QUANTUM_NS, c) for i, c in enumerate(counts.round())],
        {"quantum_ns": QUANTUM_NS},
    )
    ftq = read_probe_dir(tmp_path)["workers"][0]["ftq"]
    bin_hz = ftq["bin_hz"]
    hz = [p["hz"] for p in ftq["peaks"]]
    assert any(abs(h - 10.0) <= bin_hz for h in hz)
    assert any(abs(h - 37.3) <= bin_hz for h in hz)
    assert min(hz) >= probes.MIN_CYCLES * bin_hz  # the drift is no peak


def test_fwq_by_hand(tmp_path: Path) -> None:
    durations = [100, 100, 100, 200, 100]
    write_probe_file(
        tmp_path,
        "fwq",
        0,
        0,
        [(i * 1000, d) for i, d in enumerate(durations)],
        {"work_ns_target": 100},
    )
    fwq = read_probe_dir(tmp_path)["workers"][0]["fwq"]
    assert fwq["count"] == 5 and fwq["min_ns"] == 100 and fwq["median_ns"] == 100
    assert fwq["mean_ns"] == 120
    assert fwq["p99_ns"] == pytest.approx(np.percentile(durations, 99))
    assert fwq["share_lost"] == pytest.approx(1 - 5 * 100 / 600)


def test_selfish_detours_every_100_ms_give_a_100_ms_period(probe_doc: dict) -> None:
    noisy, quiet = (w["selfish"] for w in probe_doc["workers"])
    assert noisy["period_ns"] == pytest.approx(100e6, rel=0.01)
    assert noisy["period_hz"] == pytest.approx(10.0, rel=0.01)
    assert noisy["detours"] == 40 and noisy["detours_cut"] == 0
    assert quiet["period_ns"] is None  # random detours have no period


def test_selfish_period_of_long_detours_among_short_ones(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    agent = np.arange(30) * 100_000_000 + rng.integers(0, 20_000, 30)
    ticks = rng.integers(0, 3_000_000_000, 600)  # irregular short detours
    starts = np.concatenate([agent, ticks])
    lengths = np.concatenate([np.full(30, 2_000_000), rng.integers(1_500, 20_000, 600)])
    order = np.argsort(starts)
    write_probe_file(
        tmp_path,
        "selfish",
        0,
        0,
        list(zip(starts[order], lengths[order], strict=True)),
        {"threshold_ns": 1000},
        seconds=3.0,
    )
    selfish = read_probe_dir(tmp_path)["workers"][0]["selfish"]
    assert selfish["period_ns"] == pytest.approx(100e6, rel=0.01)
    assert selfish["period_min_length_ns"] > 1000  # not all detours: a longer class


def test_selfish_by_hand_and_cap(tmp_path: Path) -> None:
    n = probes.DETOURS_KEPT + 10
    lengths = np.arange(n) % 1000 + 1000
    lengths[5] = 500_000
    records = [(i * 10_000, int(length)) for i, length in enumerate(lengths)]
    write_probe_file(tmp_path, "selfish", 0, 0, records, {"threshold_ns": 900}, seconds=2.0)
    selfish = read_probe_dir(tmp_path)["workers"][0]["selfish"]
    assert selfish["detours"] == n
    assert selfish["total_ns"] == lengths.sum()
    assert selfish["share_lost"] == pytest.approx(lengths.sum() / 2e9)
    assert selfish["max_ns"] == 500_000
    assert selfish["p50_ns"] == pytest.approx(np.percentile(lengths, 50))
    assert selfish["period_ns"] == pytest.approx(10_000)
    kept = selfish["detour_list"]
    assert len(kept) == probes.DETOURS_KEPT and selfish["detours_cut"] == 10
    assert [5 * 10_000, 500_000] in kept  # the longest is kept ...
    assert kept == sorted(kept)  # ... and the list stays in time order


def test_format_probe_has_one_row_per_worker(probe_doc: dict) -> None:
    lines = format_probe(probe_doc).splitlines()
    assert len(lines) == 3
    assert lines[0].split()[:3] == ["host", "rank", "core"] and "FTQ peaks" in lines[0]
    assert lines[1].split()[:3] == ["node1", "0", "2"] and " 10 Hz x" in lines[1]
    assert "Hz x" not in lines[2]
    assert len({len(line) for line in lines}) == 1  # aligned


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("# kind ftq\n# rank 0\n# core 0\n# seconds 1\n# quantum_ns 1000\n1 2 3\n", ":6: expected"),
        ("# kind ftq\n# rank 0\n# core 0\n# seconds 1\n1 2\n", "lacks quantum_ns"),
        ("# kind fwq\n# rank x\n# core 0\n# seconds 1\n", ":2: header rank"),
        ("# kind ftq\n# rank 0\n# core 0\n# seconds 1\n# quantum_ns 0\n1 2\n", "positive"),
    ],
)
def test_bad_probe_files_give_one_line_errors(tmp_path: Path, content: str, words: str) -> None:
    kind = content.split()[2]
    (tmp_path / f"{kind}-r0-c0.txt").write_text(content)
    with pytest.raises(MpiscopeError) as info:
        read_probe_dir(tmp_path)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_truncated_file_is_refused(tmp_path: Path) -> None:
    write_probe_file(tmp_path, "fwq", 0, 0, [(0, 100), (100, 100)], {"records": 3})
    with pytest.raises(MpiscopeError, match="header says 3 records, the file holds 2"):
        read_probe_dir(tmp_path)


def test_header_values_as_the_c_probe_prints_them(tmp_path: Path) -> None:
    write_probe_file(
        tmp_path,
        "selfish",
        1,
        5,
        [(10, 2000), (20, 3000)],
        {"threshold_ns": "1000", "loop_median_ns": "22.5", "cpus_allowed": "4-5,7"},
        seconds=0.5,
    )
    worker = read_probe_dir(tmp_path)["workers"][0]
    assert worker["cpus_allowed"] == [4, 5, 7]
    assert worker["selfish"]["loop_median_ns"] == 22.5
    assert worker["selfish"]["threshold_ns"] == 1000


def test_missing_or_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="does not exist"):
        read_probe_dir(tmp_path / "nowhere")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(MpiscopeError, match="no <kind>-r<rank>-c<core>.txt files"):
        read_probe_dir(tmp_path)


def test_kind_in_name_and_header_must_agree(tmp_path: Path) -> None:
    (tmp_path / "fwq-r0-c0.txt").write_text(
        "# kind ftq\n# rank 0\n# core 0\n# seconds 1\n# quantum_ns 1000\n"
    )
    with pytest.raises(MpiscopeError, match="differs from its name"):
        read_probe_dir(tmp_path)
