"""The error rule on a real 2-rank run (issue 16): a point that stopped at
the target measured for at least min_point_seconds (or was precise when
the launch cap ended it sooner), kept at least min_valid
launches, and reached the target with both its trimmed mean and its median.
Logic, not speed: no timing threshold is asserted beyond the rule's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from real_bench import mpiscope, read


@pytest.mark.mpi
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
    assert stopped, [p["stop_reason"] for p in doc["points"]]  # else the rule went unchecked
    for p in stopped:  # long enough, or precise when the launch cap ended the minimum time
        assert p["elapsed_ns"] >= 3e6 or p["launches_total"] >= method["max_launches"], p
        assert p["launches_valid"] >= method["min_valid"], p
        assert p["rse"] <= method["target_rse"] and p["median_rse"] <= method["target_rse"], p
    for p in doc["points"]:  # every point made a stage beyond the discarded one at least
        assert p["launches_total"] >= method["min_valid"], p
