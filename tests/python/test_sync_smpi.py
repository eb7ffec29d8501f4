"""Clock sync against a known truth on simulated clusters (SimGrid SMPI):
every algorithm recovers injected per-rank offsets and drift within the
error bound it reports, the tree composes log2 p hops, and ranks of one
simulated host share a clock until a transform separates them.

Needs the SMPI build (``make smpi``); skipped, saying why, without it.
Nothing here depends on host timing: the simulated clock is exact.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from test_smpi import needs_smpi

TRANSFORM = "random:seed=4,offset=1e6,drift=50;all:jitter=5"
SYNC = ("--sync-fitpoints", "3", "--sync-fit-gap-ns", "1e8")


def run_sync(tmp: Path, np: int, platform: str, *flags: str) -> dict[str, Any]:
    out = tmp / "sync.json"
    proc = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", "barrier", "--launcher", "smpi", "--platform",
         platform, "--np", str(np), "--sizes", "0", "--stop", "count", "--max-valid", "2",
         "--max-launches", "4", "--out", str(out), "--force", "--quiet", *flags],
        cwd=tmp, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    sync: dict[str, Any] = json.loads(out.read_text())["environment"]["clock_sync"]
    return sync


@needs_smpi
@pytest.mark.parametrize(("algorithm", "hops"), [("linear", 1), ("ring", 31), ("tree", 5)])
def test_injected_offsets_and_drift_recovered_within_the_reported_bound(
    tmp_path: Path, algorithm: str, hops: int
) -> None:
    s = run_sync(tmp_path, 32, "flat-1024", "--sync", algorithm, "--clock-transform", TRANSFORM,
                 *SYNC)  # fmt: skip
    truth = s["clock_transform"]
    assert truth["spec"] == TRANSFORM and s["fitpoints"] == 3
    assert max(s["hops"]) == hops
    assert any(abs(o) > 1e5 for o in truth["true_offset_ns"])  # the transform is not a no-op
    for i in range(1, 32):
        assert abs(s["offset_ns"][i] - truth["true_offset_ns"][i]) <= s["error_ns"][i]
        assert abs(s["drift_ppm"][i] - truth["true_drift_ppm"][i]) <= s["drift_error_ppm"][i]
    assert truth["recovered"] is True
    assert s["max_error_ns"] == max(s["error_ns"])


@needs_smpi
def test_tree_bound_adds_up_over_its_hops(tmp_path: Path) -> None:
    s = run_sync(tmp_path, 16, "flat-1024", "--sync", "tree", "--clock-transform", TRANSFORM,
                 *SYNC)  # fmt: skip
    by_hops: dict[int, list[float]] = {}
    for h, e in zip(s["hops"], s["error_ns"], strict=True):
        by_hops.setdefault(h, []).append(e)
    worst = [max(by_hops[h]) for h in sorted(by_hops) if h > 0]
    assert sorted(by_hops) == [0, 1, 2, 3, 4]
    assert worst == sorted(worst)  # more hops, more error: at most log2 p of them


@needs_smpi
def test_one_host_one_clock_until_a_transform(tmp_path: Path) -> None:
    shared = run_sync(tmp_path, 16, "cluster-8x8", "--sync", "tree")
    assert shared["nodes"] == 2 and shared["node_shared"] is True
    assert shared["offset_ns"][1:8] == [0] * 7 and max(shared["hops"]) == 1  # leaders 0 and 8
    apart = run_sync(tmp_path, 16, "cluster-8x8", "--sync", "tree", "--clock-transform", TRANSFORM,
                     *SYNC)  # fmt: skip
    assert apart["node_shared"] is False and max(apart["hops"]) == 4
    assert apart["clock_transform"]["recovered"] is True


@needs_smpi
def test_check_compares_every_algorithm(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mpiscope", "check", "--launcher", "smpi", "--platform",
         "flat-1024", "--np", "8", "--sync", "all", "--drift-seconds", "0", "--clock-transform",
         TRANSFORM, *SYNC, "--out", str(tmp_path / "check.json")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    syncs = json.loads((tmp_path / "check.json").read_text())["check"]["sync"]
    assert [s["algorithm"] for s in syncs] == ["linear", "ring", "tree"]
    assert all(s["recovered"] for s in syncs)
    assert "injected truth recovered" in proc.stdout
    for name in ("linear", "ring", "tree"):
        assert f"VERDICT sync {name}: trusted" in proc.stdout
