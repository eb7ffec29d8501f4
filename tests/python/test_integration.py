"""Real runs: mpiscope-bench under MPICH and Open MPI (both built by
`make test`), through the command line, checked against the schema and
the invariants every result must hold. No timing thresholds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.mpi_profile import find_profiles
from mpiscope.result import load_result
from real_bench import UNENDING, finish, leftovers, start, wait_for_progress

pytestmark = pytest.mark.mpi

MPIS = ["mpich", "openmpi"]
ALL_OPS = [
    "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
    "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce",
    "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
    "waitpattern_up", "waitpattern_down", "waitpattern_null",
]
QUICK = ["--max-launches", "48", "--min-valid", "4", "--max-point-seconds", "5"]


def mpiscope(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mpiscope", *args], cwd=cwd, capture_output=True, text=True,
        timeout=timeout, check=False,
    )


@pytest.fixture(params=MPIS)
def mpi(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    assert name in find_profiles(), f"MPI '{name}' is not built: run `make MPI={name}`"
    return name


def check_point_invariants(p: dict[str, Any], nprocs: int) -> None:
    assert p["launches_valid"] <= p["launches_total"]
    assert p["samples_used"] <= p["launches_valid"]
    assert p["nprocs"] == nprocs
    assert len(p["per_rank"]) == nprocs
    if p["launches_valid"] >= 2:
        assert p["min_ns"] <= p["median_ns"] <= p["max_ns"]
        assert p["trimmed_min_ns"] <= p["mean_ns"] <= p["trimmed_max_ns"]
        assert p["ci_low_ns"] <= p["mean_ns"] <= p["ci_high_ns"]
        lo90, hi90 = p["intervals"]["0.90"]
        lo99, hi99 = p["intervals"]["0.99"]
        assert lo99 <= lo90 <= hi90 <= hi99
        # the op time is the max over ranks: never below any rank's own minimum
        assert max(r["min_ns"] for r in p["per_rank"]) <= p["max_ns"]
        assert p["start_skew"]["median_ns"] >= 0
        assert p["global_span"]["max_ns"] >= p["start_skew"]["max_ns"]
    assert p["unstable"] == bool(p["unstable_reasons"])


@pytest.mark.mpi
def test_every_op_runs_at_two_ranks(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "all.json"
    run = mpiscope("run", ",".join(ALL_OPS), "--mpi", mpi, "--np", "2", "--sizes", "1,1K",
                   *QUICK, "--out", str(out), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    result = load_result(out)  # validates against the schema
    doc = json.loads(out.read_text())
    assert doc["status"] == "complete"
    assert doc["environment"]["ranks"] == 2
    assert doc["environment"]["mpi_implementation"] == find_profiles()[mpi].implementation
    assert doc["environment"]["clock_sync"]["end_residual_ns"] is not None
    seen = {(p["op"], p["size_bytes"]) for p in doc["points"]}
    for op in ALL_OPS:
        assert (op, 1) in seen or (op, None) in seen, op
    for p in doc["points"]:
        check_point_invariants(p, 2)
        # it ran; how many launches were valid depends on the machine's noise
        assert p["launches_total"] > 0, p["op"]
    assert len(result.points) == len(doc["points"])
    assert "waitpattern_up" in run.stdout  # the final table


@pytest.mark.mpi
def test_raw_samples_and_ring_sync(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "raw.json"
    run = mpiscope("run", "bcast", "--mpi", mpi, "--np", "2", "--sizes", "64", "--raw",
                   "--sync", "ring", "--timer", "monotonic", *QUICK, "--out", str(out),
                   cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    env = doc["environment"]
    assert env["clock_sync"]["algorithm"] == "ring"
    assert env["timer"]["name"] == "monotonic"
    (p,) = doc["points"]
    raw = p["raw"]
    n = p["launches_total"]
    assert len(raw["valid"]) == len(raw["time_ns"]) == len(raw["slot_ns"]) == n
    assert len(raw["discarded"]) == n
    # a window restart (a shrink below half, at this machine's speed) drops
    # the valid launches before it: they are flagged, and counted apart
    kept = [ok and not gone for ok, gone in zip(raw["valid"], raw["discarded"], strict=True)]
    assert sum(kept) == p["launches_valid"]
    assert sum(raw["discarded"]) == p["window"]["launches_discarded"]
    assert all(ok for ok, gone in zip(raw["valid"], raw["discarded"], strict=True) if gone)
    assert all(len(s) == 2 for s in raw["start_ns"]) and len(raw["end_ns"]) == n
    for ok, late, over in zip(raw["valid"], raw["late"], raw["overrun"], strict=True):
        assert ok == (not late and not over)
    kept_times = sorted(t for t, k in zip(raw["time_ns"], kept, strict=True) if k)
    if not kept_times:  # every launch late under a heavy load (seen in CI): no statistics
        assert p["min_ns"] is None and p["max_ns"] is None and p["unstable"], p
        return
    assert kept_times[0] == pytest.approx(p["min_ns"], rel=1e-9)
    assert kept_times[-1] == pytest.approx(p["max_ns"], rel=1e-9)


@pytest.mark.parametrize("timer", ["tsc", "gettimeofday", "wtime"])
@pytest.mark.mpi
def test_timers(timer: str, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    run = mpiscope("run", "waitpattern_null", "--np", "2", "--timer", timer, *QUICK,
                   "--out", str(out), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    t = json.loads(out.read_text())["environment"]["timer"]
    assert t["name"] == timer
    assert t["resolution_ns"] > 0 and t["read_overhead_ns"] > 0


@pytest.mark.mpi
def test_varied_number_of_processes_oversubscribed(tmp_path: Path) -> None:
    out = tmp_path / "np.json"
    run = mpiscope("run", "bcast,allreduce", "--np", "3", "--oversubscribe", "--nprocs", "2,3",
                   "--sizes", "8", *QUICK, "--out", str(out), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["varied"] == "nprocs"
    assert sorted((p["op"], p["nprocs"]) for p in doc["points"]) == [
        ("allreduce", 2), ("allreduce", 3), ("bcast", 2), ("bcast", 3)]
    assert all(p["oversubscribed"] for p in doc["points"])
    for p in doc["points"]:
        check_point_invariants(p, p["nprocs"])


@pytest.mark.mpi
def test_interrupted_run_keeps_what_it_measured(tmp_path: Path) -> None:
    """Ctrl-C in a terminal (SIGINT to the whole foreground group: the CLI,
    mpiexec and the ranks) once a point is measured: the document stays
    whole and readable, with that point."""
    out = tmp_path / "partial.json"
    proc = start("run", *UNENDING, "--out", str(out), cwd=tmp_path)
    try:
        wait_for_progress(proc)
        os.killpg(proc.pid, signal.SIGINT)
    finally:
        _, stderr = finish(proc)
    assert proc.returncode == 130, stderr
    doc = json.loads(out.read_text())  # still a whole document
    assert doc["status"] in ("running", "failed")
    assert [p["op"] for p in doc["points"]] == ["barrier"]
    load_result(out)
    assert stderr.strip().splitlines()[-1].startswith("mpiscope:")
    assert leftovers(proc) == []
