"""``mpiscope health`` on this machine's 2 ranks (real MPICH).

What two ranks of one node can tell: one link (over shared memory: shown,
never judged, there is nothing to compare it with), stragglers (which of
the two arrives last, how often), and each core's fingerprint; the whole
check runs, its document validates and its page draws. A rank killed
mid-check is named as failed, and what was measured is kept.

Whether the verdict names an injected agent's rank and core, and stays
quiet without one, depends on what else runs on the machine (the agent's
5% of a core against everyone else's load): that is an accuracy figure,
measured by bench/health_agent.py and stated in docs/health.md with the
load it ran under, not a test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from real_bench import bench_ranks, finish, leftovers, mpiscope, read, start, wait_for_progress

pytestmark = pytest.mark.mpi

#: A shorter check than the default (the straggler runs and the probes):
#: the tests' time, not the rules, changes with it.
QUICK = ["--seconds", "2", "--probe-seconds", "1"]


@pytest.mark.slow
def test_health_on_two_ranks(tmp_path: Path) -> None:
    run = mpiscope("health", "--np", "2", "--cpu-bind", "cores", *QUICK, "--out", "h.json",
                   "--quiet", cwd=tmp_path)  # fmt: skip
    doc = read(tmp_path / "h.json")
    assert run.returncode == (1 if doc["suspects"] else 0), run.stderr
    assert doc["status"] == "complete"
    assert [p["status"] for p in doc["phases"]] == ["complete"] * 5
    links = doc["links"]
    assert links["unit"] == "rank" and links["units"] == ["rank 0", "rank 1"]
    assert not links["judged"] and "one link" in links["why_not"]
    assert all(len(m["pairs"]["a"]) == 1 for m in links["metrics"].values())
    ops = {op["op"]: op for op in doc["stragglers"]["ops"]}
    assert set(ops) == {"allreduce", "barrier"} and ops["barrier"]["launches"] >= 2000
    cores = doc["fingerprint"]["cores"]["cores"]
    assert sorted(c["core"] for c in cores) == [0, 1]
    assert all(c["triad_bytes_per_s"] > 0 and c["quanta"] > 0 for c in cores)
    assert any(line.startswith("VERDICT tsc") for line in doc["fingerprint"]["check"]["verdicts"])
    assert doc["environment"]["rank_cpus"] == ["0", "1"]
    html = subprocess.run([sys.executable, "-m", "mpiscope", "html", "h.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    page = (tmp_path / "h.html").read_text()
    assert html.returncode == 0 and page.count('<svg class="heatmap"') == 2
    assert page.count("<h3>allreduce: ") == page.count("<h3>barrier: ") == 1


@pytest.mark.slow
def test_a_killed_rank_is_named_and_the_measurements_kept(tmp_path: Path) -> None:
    """The collectives are a 1 s Barrier, then a WaitPatternUp whose every
    launch waits 1-2 s (it would run for half an hour): once the Barrier's
    progress line is out, rank 1 dies (SIGKILL). The check stops, exits 1,
    names rank 1 as failed in the collectives (or ranks 0 and 1, when MPICH's
    report cannot tell), and keeps the Barrier's stragglers."""
    proc = start("health", "--np", "2", "--cpu-bind", "cores", "--ops", "barrier,waitpattern_up",
                 "--option", "unit_us=1000000", "--seconds", "1", "--no-check",
                 "--out", "h.json", cwd=tmp_path)  # fmt: skip
    wait_for_progress(proc)
    ranks: dict[int, int] = {}
    while 1 not in ranks:  # the collective launch's ranks (started before the progress line)
        assert proc.poll() is None, f"the check ended (exit {proc.returncode}) first"
        ranks = bench_ranks(proc)
    os.kill(ranks[1], signal.SIGKILL)
    out, err = finish(proc)
    assert proc.returncode == 1, err
    doc = read(tmp_path / "h.json")
    assert doc["status"] == "failed"
    phases = {p["name"]: p["status"] for p in doc["phases"]}
    assert phases == {"collectives": "failed", "links-latency": "skipped",
                      "links-bandwidth": "skipped", "probe": "skipped",
                      "check": "skipped"}  # fmt: skip
    failed = [s for s in doc["suspects"] if s["kind"] == "failed"]
    # MPICH's clean-up may kill rank 0 before it reports (a busy machine):
    # then it names rank 0, and the check says it cannot tell which died first
    named = [s["name"] for s in failed]
    node = os.uname().nodename
    assert named in ([f"rank 1 ({node})"], [f"rank 0 or 1 ({node})"]), named
    assert "SIGKILL" in failed[0]["evidence"] and "collectives" in failed[0]["evidence"]
    kept = {op["op"]: op for op in doc["stragglers"]["ops"]}
    assert list(kept) == ["barrier"] and kept["barrier"]["launches"] >= 1000
    assert out.lstrip().startswith("VERDICT") and named[0] in out  # (MPICH: a blank line first)
    assert leftovers(proc) == []
