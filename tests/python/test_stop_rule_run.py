"""The error rule on a real 2-rank run (issue 16): a point that stopped at
the target measured for at least min_point_seconds (or was precise when
the launch cap ended it sooner), kept at least min_valid
launches, and reached the target with both its trimmed mean and its median.
Logic, not speed: no timing threshold is asserted beyond the rule's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mpiscope.mpi_profile import find_profiles
from real_bench import REAL_MPI, mpiscope, read


def _bench_has_min_point_seconds() -> bool:
    profile = find_profiles().get(REAL_MPI)
    if profile is None:
        return False
    try:
        out = subprocess.run([profile.bench, "--describe"], capture_output=True, text=True,
                             timeout=30, check=False).stdout  # fmt: skip
    except OSError:
        return False
    return '"min_point_seconds"' in out


@pytest.mark.skipif(not _bench_has_min_point_seconds(),
                    reason="the built mpiscope-bench has no min_point_seconds yet")  # fmt: skip
def test_points_stopped_at_the_target_measured_long_enough(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = mpiscope("run", "bcast", "--np", "2", "--sizes", "1,1024",
                    "--min-point-seconds", "0.003", "--out", str(out), "--force", "--quiet",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = read(out)
    method = doc["method"]
    assert method["min_point_seconds"] == 0.003
    stopped = [p for p in doc["points"] if p["stop_reason"] == "target_error"]
    for p in stopped:  # long enough, or precise when the launch cap ended the minimum time
        assert p["elapsed_ns"] >= 3e6 or p["launches_total"] >= method["max_launches"], p
        assert p["launches_valid"] >= method["min_valid"], p
        assert p["rse"] <= method["target_rse"] and p["median_rse"] <= method["target_rse"], p
    for p in doc["points"]:  # every point made a stage beyond the discarded one at least
        assert p["launches_total"] >= method["min_valid"], p
