"""bench/peers.py: the parsers of each peer's output and which tools it runs.

The samples in tests/data/peers/ are real outputs of the four peers (Bcast,
2 ranks, MPICH 5.0.2 on the 2-core VM), cut down to a few sizes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from bench_helpers import bench_module

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "peers"


@pytest.fixture(scope="module")
def peers() -> ModuleType:
    return bench_module("peers")


@pytest.mark.parametrize(("parser", "sample", "expected"), [
    ("parse_osu", "osu_bcast.txt",
     {1: 190.0, 1024: 350.0, 65536: 7860.0, 1048576: 1323400.0}),
    ("parse_imb", "imb_bcast.txt",  # t_avg; the 0-byte row is IMB's own
     {0: 20.0, 1: 190.0, 1024: 320.0, 65536: 516500.0, 1048576: 2496250.0}),
    ("parse_reprompi", "reprompi_bcast.txt",
     {1: 200.0, 1024: 486.5, 65536: 8204.5, 1048576: 115677.5}),
    ("parse_mpiperf", "mpiperf_bcast.txt",  # [Mean], not [Min] or [CI UB]
     {1: 3892340.0, 1024: 650.0, 65536: 8420.0, 1048576: 12982480.0}),
])
def test_parsers_read_the_headline_in_ns(peers: ModuleType, parser: str, sample: str,
                                         expected: dict[int, float]) -> None:
    values = getattr(peers, parser)((DATA / sample).read_text())
    assert values.keys() == expected.keys()
    for size, ns in expected.items():
        assert values[size] == pytest.approx(ns)


@pytest.mark.parametrize("parser", ["parse_osu", "parse_imb", "parse_reprompi", "parse_mpiperf"])
def test_parsers_find_nothing_in_another_tools_output(peers: ModuleType, parser: str) -> None:
    others = {"parse_osu": "imb_bcast.txt", "parse_imb": "reprompi_bcast.txt",
              "parse_reprompi": "mpiperf_bcast.txt", "parse_mpiperf": "osu_bcast.txt"}
    assert getattr(peers, parser)((DATA / others[parser]).read_text()) == {}
    assert getattr(peers, parser)("") == {}


def test_mpiscope_median_from_the_result(peers: ModuleType) -> None:
    doc = {"points": [
        {"op": "bcast", "size_bytes": 1, "median_ns": 210.5},
        {"op": "bcast", "size_bytes": 1024, "median_ns": None},  # not measured
        {"op": "allreduce", "size_bytes": 1, "median_ns": 999.0},
    ]}
    assert peers.parse_mpiscope(doc) == {1: 210.5}


def test_unset_variables_are_skipped_and_said(peers: ModuleType, tmp_path: Path) -> None:
    binary = tmp_path / "osu_bcast"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    chosen, skipped = peers.select_peers({"OSU_BCAST": str(binary), "IMB_MPI1": ""})
    assert [(p.name, b) for p, b in chosen] == [("OSU 7.4", str(binary))]
    assert skipped == ["IMB 2021.11: skipped (IMB_MPI1 is not set)",
                       "ReproMPI: skipped (REPROMPI is not set)",
                       "MPIPerf: skipped (MPIPERF is not set)"]


def test_a_variable_naming_no_executable_is_an_error(peers: ModuleType, tmp_path: Path) -> None:
    plain = tmp_path / "IMB-MPI1"
    plain.write_text("not executable")
    for value in (str(plain), str(tmp_path / "missing"), str(tmp_path)):
        with pytest.raises(ValueError, match="IMB_MPI1=.*not an executable file"):
            peers.select_peers({"IMB_MPI1": value})


@pytest.mark.mpi
def test_the_script_refuses_a_bad_binary_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OSU_BCAST", "IMB_MPI1", "REPROMPI", "MPIPERF")}
    env["MPIPERF"] = str(tmp_path / "mpiperf")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "peers.py"), "--launches", "2"],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        f"peers.py: error: MPIPERF={tmp_path / 'mpiperf'}: not an executable file"]


def test_launches_interleave_each_tool_r_times(peers: ModuleType) -> None:
    order = peers.interleaved(["a", "b", "c"], 8, seed=1)
    assert sorted(order) == sorted(["a", "b", "c"] * 8)
    assert order == peers.interleaved(["a", "b", "c"], 8, seed=1)
    assert order != peers.interleaved(["a", "b", "c"], 8, seed=2)


def test_spread_and_median_over_the_launches(peers: ModuleType) -> None:
    launches = [{"values_ns": {1: 100.0}, "wall_s": 0.2, "error": None},
                {"values_ns": {1: 150.0}, "wall_s": 0.3, "error": None},
                {"values_ns": {}, "wall_s": 0.1, "error": "exit 1: boom"}]
    assert peers.summarize(launches, 1) == {"n": 2, "median_ns": 125.0, "spread": 1.5}
    assert peers.summarize(launches, 1024) == {"n": 0, "median_ns": None, "spread": None}
    assert peers.wall_range(launches) == "0.20-0.30 s"
