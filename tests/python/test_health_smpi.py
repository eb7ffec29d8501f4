"""The ground truth of ``mpiscope health`` on simulated clusters.

The shipped platforms faulty-16x8 and faulty-64x8 (the network of
cluster-8x8 for 16 and 64 nodes, one link whose bandwidth is divided by 4
and one node whose link is 2 times narrower and slower:
mpiscope.health.platform.SHIPPED) are checked as a user would, with
``mpiscope health --launcher smpi --platform faulty-16x8 --np 128``: it
names exactly that node and that link, nothing else, and exits 1; the same
network without faults names nothing and exits 0.
The simulation is deterministic, so nothing here depends on this
machine's speed. The HTML page is opened in Chromium (marked browser).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.health.platform import SHIPPED, write_degraded_platform
from test_smpi import needs_smpi

FAULTS = {faults.nodes: (name, faults) for name, faults in SHIPPED.items()}
BAD_LINK = {n: f.slow_links[0][:2] for n, (_, f) in FAULTS.items()}
BAD_NODE = {n: f.slow_nodes[0][0] for n, (_, f) in FAULTS.items()}


def _health(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", "health", *args, "--quiet"],
                          cwd=cwd, capture_output=True, text=True, timeout=900,
                          check=False)  # fmt: skip


def _run(tmp_path: Path, nodes: int, faults: bool) -> tuple[subprocess.CompletedProcess[str], Any]:
    if faults:  # the shipped platform, by its name
        platform = FAULTS[nodes][0]
    else:
        platform = str(write_degraded_platform("cluster-8x8", nodes, tmp_path / "ok.xml"))
    run = _health(tmp_path, "--launcher", "smpi", "--platform", platform, "--np", str(8 * nodes),
                  "--out", "h.json")  # fmt: skip
    doc = json.loads((tmp_path / "h.json").read_text()) if (tmp_path / "h.json").exists() else None
    return run, doc


def _check_named(run: subprocess.CompletedProcess[str], doc: Any, nodes: int) -> None:
    assert run.returncode == 1, run.stderr
    a, b = BAD_LINK[nodes]
    names = sorted((s["kind"], s["name"]) for s in doc["suspects"])
    assert names == [
        ("link", f"node-{a}.c8x8 - node-{b}.c8x8"),
        ("node", f"node-{BAD_NODE[nodes]}.c8x8"),
    ], run.stdout
    assert doc["status"] == "complete"
    links = doc["links"]
    assert links["unit"] == "node" and len(links["units"]) == nodes and links["judged"]
    # one rank a node for the links, every rank for the collectives
    phases = {p["name"]: p for p in doc["phases"]}
    assert phases["collectives"]["ranks"] == 8 * nodes
    assert phases["links-latency"]["ranks"] == phases["links-bandwidth"]["ranks"] == nodes
    assert phases["probe"]["status"] == phases["check"]["status"] == "skipped"
    assert doc["stragglers"]["events"] == 0  # no noise in a simulation
    assert run.stdout.startswith("VERDICT 2 suspect(s)")


@needs_smpi
@pytest.mark.slow
def test_health_names_the_bad_link_and_node_of_16(tmp_path: Path) -> None:
    run, doc = _run(tmp_path, 16, faults=True)
    _check_named(run, doc, 16)
    page = subprocess.run([sys.executable, "-m", "mpiscope", "html", "h.json", "-o", "h.html"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert page.returncode == 0, page.stderr
    text = (tmp_path / "h.html").read_text()
    assert text.count('class="heatmap"') == 2 and text.count("cell slow") == 2 * (15 + 15 + 1)
    report = subprocess.run([sys.executable, "-m", "mpiscope", "health", "report", "h.json"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert report.returncode == 1 and report.stdout.startswith("VERDICT 2 suspect(s)")


@needs_smpi
@pytest.mark.slow
def test_health_of_a_healthy_cluster_names_nothing(tmp_path: Path) -> None:
    run, doc = _run(tmp_path, 16, faults=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert doc["suspects"] == [] and run.stdout.startswith("VERDICT healthy")


@needs_smpi
@pytest.mark.slow
def test_health_names_the_bad_link_and_node_of_64(tmp_path: Path) -> None:
    """64 nodes x 8 ranks: the whole check (about 2 minutes here)."""
    run, doc = _run(tmp_path, 64, faults=True)
    _check_named(run, doc, 64)


@needs_smpi
@pytest.mark.browser
@pytest.mark.slow
def test_the_heat_map_renders(tmp_path: Path) -> None:
    from browser import Chromium

    run, _ = _run(tmp_path, 16, faults=True)
    assert run.returncode == 1, run.stderr
    subprocess.run([sys.executable, "-m", "mpiscope", "html", "h.json", "-o", "h.html"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)  # fmt: skip
    chromium = Chromium()
    try:
        load = chromium.open((tmp_path / "h.html").as_uri())
        assert not load.exceptions and not load.failed_requests and not load.console
        assert chromium.evaluate("document.querySelectorAll('svg.heatmap rect.cell').length") == 480
        slow = chromium.evaluate(
            "[...document.querySelectorAll('svg.heatmap rect.slow')].map(r => "
            "r.getBoundingClientRect().width > 0).filter(Boolean).length"
        )  # fmt: skip
        assert slow == 62  # 15 + 15 of the node, twice; the link twice in bandwidth
        image = chromium.screenshot()
        assert len(image) > 10_000
    finally:
        chromium.close()
