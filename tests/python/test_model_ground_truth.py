"""Ground truth for the model fits: simulated measurements on shipped SMPI
platforms whose link latency and bandwidth are known, fitted with Hockney,
LogGP and PLogP, recover the platform's parameters within 1%.

SimGrid is told to add nothing of its own (docs/models.md, "Ground truth"):
SMPI's calibrated message-size factors off (smpi/lat-factor and
smpi/bw-factor 1 at every size), every message sent at once whatever its
size (smpi/send-is-detached-thresh and smpi/async-small-thresh above the
largest size: one protocol, as the models assume), and a clock read costs
0.1 ns instead of SMPI's 10 (smpi/wtime). smpi/os, smpi/or and smpi/ois stay
0. A message then takes the sum of its links' latencies plus its bytes over
the slowest link's bandwidth; SMPI counts 16 bytes more than the payload,
which the gap of a train shows ((m + 16) / bw) and the per-size tolerances
below absorb.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
TOLERANCE = 0.01
CFG = ("smpi/lat-factor:0:1", "smpi/bw-factor:0:1", "smpi/send-is-detached-thresh:4194304",
       "smpi/async-small-thresh:4194304", "smpi/wtime:1e-10")  # fmt: skip
_UNITS = {"": 1.0, "k": 1e3, "m": 1e-3, "u": 1e-6, "n": 1e-9, "K": 1e3, "M": 1e6, "G": 1e9,
          "T": 1e12}  # fmt: skip


def _value(text: str) -> float:
    """A SimGrid quantity (``1us``, ``12.5GBps``) in seconds or bytes/s."""
    found = re.fullmatch(r"([0-9.eE+-]+)([kKmunMGT]?)(?:s|Bps)", text)
    assert found is not None, text
    return float(found.group(1)) * _UNITS[found.group(2)]


def platform_truth(name: str) -> tuple[float, float]:
    """Latency (ns) and time per byte (ns) between the first two hosts of a
    shipped cluster: two host links and, on a flat cluster, its backbone; a
    fat tree's first two hosts share a leaf switch (two links)."""
    cluster = ET.parse(REPO / "platforms" / f"{name}.xml").getroot().find("cluster")
    assert cluster is not None
    lat, bw = _value(cluster.get("lat", "")), _value(cluster.get("bw", ""))
    if cluster.get("bb_lat"):
        lat_total = 2 * lat + _value(cluster.get("bb_lat", ""))
        bw = min(bw, _value(cluster.get("bb_bw", "")))
    else:
        lat_total = 2 * lat
    return lat_total * 1e9, 1e9 / bw


def fitted(path: Path, model: str, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / f"{model}.json"
    run = subprocess.run([sys.executable, "-m", "mpiscope", "model", "fit", str(path), "--model",
                          model, "--out", str(out), "--bootstrap", "20"],
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    doc: dict[str, Any] = json.loads(out.read_text())
    return doc


def near(got: float, want: float, scale: float | None = None) -> bool:
    """Within 1% of ``want`` (of ``scale`` for a true value near 0)."""
    return abs(got - want) <= TOLERANCE * (abs(want) if scale is None else scale)


@pytest.mark.smpi
@pytest.mark.parametrize("platform", ["flat-1024", "fat-tree"])
def test_fits_recover_the_platform(platform: str, tmp_path: Path) -> None:
    latency, per_byte = platform_truth(platform)
    measured = tmp_path / "measured.json"
    cfg = [arg for item in CFG for arg in ("--smpi-cfg", item)]
    run = subprocess.run(
        [sys.executable, "-m", "mpiscope", "model", "measure", "--np", "2", "--launcher", "smpi",
         "--platform", platform, *cfg, "--out", str(measured), "--quiet"],
        capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]

    hockney = fitted(measured, "hockney", tmp_path)["hockney"]["segments"]
    assert len(hockney) == 1, hockney
    assert near(hockney[0]["alpha_ns"], latency), (hockney, latency)
    assert near(hockney[0]["beta_ns_per_byte"], per_byte), (hockney, per_byte)

    loggp = fitted(measured, "loggp", tmp_path)["loggp"]
    assert near(loggp["L_ns"], latency), (loggp, latency)
    assert near(loggp["G_ns_per_byte"], per_byte), (loggp, per_byte)
    for name in ("o_s_ns", "o_r_ns", "g_ns"):  # no overhead, no gap: 1% of the latency
        assert near(loggp[name], 0.0, latency), (name, loggp)

    plogp = fitted(measured, "plogp", tmp_path)["plogp"]
    assert near(plogp["L_ns"], latency), (plogp["L_ns"], latency)
    assert len(plogp["table"]) == 11, plogp["table"]  # every size of 1:1M:x4
    for row in plogp["table"]:
        size = row["size_bytes"]
        assert near(row["g_ns"], size * per_byte, max(size * per_byte, latency)), row
        assert near(row["o_s_ns"], 0.0, latency) and near(row["o_r_ns"], 0.0, latency), row
