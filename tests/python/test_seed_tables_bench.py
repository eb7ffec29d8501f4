"""bench/seed_tables.py: the seed's configuration B layout it writes from a
shipped platform, and the table it prints from a result document (a
synthetic one: the script's real output is in docs/seed-tables.md)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench_helpers import bench_module
from mpiscope.measure.simulation import load_platform

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def seed_tables() -> ModuleType:
    return bench_module("seed_tables")


def test_the_seed_layout_keeps_the_shipped_network(seed_tables: ModuleType, tmp_path: Path) -> None:
    path = seed_tables.write_seed_layout("cluster-30x8", 20, 12, tmp_path / "c.xml")
    platform = load_platform(str(path))
    assert len(platform.hosts) == 20 and {cores for _, cores in platform.hosts} == {12}
    assert platform.cores == 240
    ours = ET.parse(path).getroot().find("cluster")
    shipped = ET.parse(load_platform("cluster-30x8").path).getroot().find("cluster")
    assert ours is not None and shipped is not None
    layout = {"id", "suffix", "radical", "core"}
    assert {k: v for k, v in ours.attrib.items() if k not in layout} == {
        k: v for k, v in shipped.attrib.items() if k not in layout
    }


def point(op: str, size: int, ns: float) -> dict[str, Any]:
    return {"op": f"alltoall_{op}", "size_bytes": size, "median_ns": ns,
            "stop_reason": "deterministic"}  # fmt: skip


def test_the_table_shows_ties_ratios_and_the_seed(
    seed_tables: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    points = [point("one_leader", 64, 60e3), point("m_leader", 64, 40e3), point("plp", 64, 40e3),
              point("one_leader", 1024, 300e3), point("m_leader", 1024, 500e3),
              point("plp", 1024, 250e3)]  # fmt: skip
    doc = {"points": points, "environment": {"platform": "cluster-30x8.xml",
                                             "simulator": "SimGrid SMPI 3.32.0"}}  # fmt: skip
    run = seed_tables.Run(doc, 12.0, 0, 0, 0, {}, Counter())
    config = seed_tables.configs(tmp_path)["a"]
    seed_tables.print_alltoall(config, run, "1.00 1.00 1.00")
    out = capsys.readouterr().out
    rows = {line.split()[0] + line.split()[1]: line for line in out.splitlines()
            if line.strip().startswith(("64 B", "1 KiB")) and "seed" not in line}  # fmt: skip
    assert rows["64B"].split()[-3:] == ["M-leader", "=", "PLP"]
    assert "0.67" in rows["64B"].split()  # PLP / One-leader: 40 / 60
    assert rows["1KiB"].split()[-1] == "PLP" and "0.50" in rows["1KiB"].split()
    assert "SIMULATED on cluster-30x8.xml" in out
    assert "PLP vs One-leader: seed 1.8x (section 4.1, Fig. 11), simulated 1.50x" in out
    assert "PLP vs M-leader: seed 2.0x (section 4.1, Fig. 11), simulated 2.00x" in out
    assert "Fig. 12" not in out  # configuration B's figures are not A's
