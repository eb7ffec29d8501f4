"""`mpiscope noise` for real: each detector, the probes, the injector, at 2 ranks.

Packets are tiny (tens of ms) so the suite stays short; nothing here asserts a
timing, only what the documents and the command line say.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from real_bench import REAL_MPI

CORES = sorted(os.sched_getaffinity(0))


def mpiscope(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command line with the real MPICH build (chosen by MPISCOPE_MPI)."""
    env = {**os.environ, "MPISCOPE_MPI": REAL_MPI}
    return subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def read(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("mpiscope: error: "), stderr
    return lines[0]


@pytest.mark.parametrize(
    ("detector", "extra"),
    [
        ("barrier", []),
        ("alltoall", ["--alltoall-bytes", "64"]),
        ("stream-ring", ["--preset", "short", "--stream-elements", "20000"]),
    ],
)
@pytest.mark.mpi
def test_each_detector_runs_and_reads_back_its_binding(
    tmp_path: Path, detector: str, extra: list[str]
) -> None:
    out = tmp_path / f"{detector}.json"
    proc = mpiscope("noise", "run", "--detector", detector, "--np", "2", "--packet", "0.04s",
                    "--packets", "4", "--quiet", "--out", str(out), *extra, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = read(out)
    assert doc["kind"] == "noise-run" and doc["status"] == "complete"
    assert doc["layout"] == "A" and doc["agent"] is None
    assert [p["index"] for p in doc["packets"]] == [0, 1, 2, 3]
    assert all(p["seconds"] > 0 and len(p["rank_seconds"]) == 2 for p in doc["packets"])
    assert all(p["seconds"] == max(p["rank_seconds"]) for p in doc["packets"])
    assert doc["detector"]["iterations_per_packet"] >= 1
    # Layout A pins rank r to the r-th physical core; the binding is read back.
    assert sorted(b["rank"] for b in doc["binding"]) == [0, 1]
    for b in doc["binding"]:
        assert b["cpus_allowed"] == [CORES[b["rank"]]]
    if detector == "stream-ring":
        stream = doc["detector"]["stream"]
        assert (stream["messages"], stream["message_bytes"]) == (20, 32)
        assert stream["elements_per_rank"] == 20000
    assert "packets" in proc.stdout and str(out) in proc.stdout


@pytest.mark.mpi
def test_alternating_run_switches_the_injector_and_compares(tmp_path: Path) -> None:
    out = tmp_path / "alt.json"
    proc = mpiscope("noise", "run", "--detector", "barrier", "--np", "2", "--packet", "0.04s",
                    "--packets", "8", "--design", "alternate", "--block", "2",
                    "--inject", "50Hz:1ms", "--quiet", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = read(out)
    assert doc["layout"] == "C" and doc["design"] == "alternate"
    # ABBA order: off on on off, so a linear drift weighs the same on both states.
    assert [p["agent"] for p in doc["packets"]] == [False] * 2 + [True] * 4 + [False] * 2
    assert [p["block"] for p in doc["packets"]] == [0, 0, 1, 1, 2, 2, 3, 3]
    agent = doc["agent"]
    assert agent["kind"] == "injector" and agent["core"] == CORES[-1]
    assert agent["cpus_allowed"] == [CORES[-1]]
    assert agent["summary"]["bursts"] >= 1
    for criterion in ("ci_overlap", "iqr_outliers", "mann_whitney", "p50"):
        assert criterion in proc.stdout
    compare = mpiscope("noise", "compare", str(out), "--out", str(tmp_path / "v.json"),
                       cwd=tmp_path)
    assert compare.returncode in (0, 1), compare.stderr
    verdict = read(tmp_path / "v.json")
    assert verdict["kind"] == "noise-verdict"
    assert compare.returncode == (1 if verdict["detected"] else 0)
    assert verdict["baseline"]["n"] == verdict["test"]["n"] == 4
    plot = mpiscope("noise", "plot", str(out), "-o", str(tmp_path / "fig.png"), cwd=tmp_path)
    assert plot.returncode == 0, plot.stderr
    written = [Path(line) for line in plot.stdout.split()]
    assert len(written) == 2 and all(p.stat().st_size > 1000 for p in written)


@pytest.mark.mpi
def test_an_alternating_run_records_its_groups_and_stops_when_decided(tmp_path: Path) -> None:
    out = tmp_path / "seq.json"
    # 12 quartets of 4 blocks of 1 packet: looks at 8, 12, 18, 24 pairs.
    proc = mpiscope("noise", "run", "--detector", "barrier", "--np", "2", "--packet", "0.02s",
                    "--design", "alternate", "--block", "1", "--groups", "16",
                    "--inject", "50Hz:5ms", "--until-decided", "--max", "0.96s", "--quiet",
                    "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = read(out)
    assert doc["schema_version"] == "1.4" and doc["status"] == "complete"
    assert doc["detector"]["groups"] == 16 and doc["detector"]["group_read_ns"] > 0
    for packet in doc["packets"]:  # every packet: 2 ranks x 16 groups, wall and stolen
        assert [len(g) for g in packet["groups_ns"]] == [16, 16]
        assert [len(g) for g in packet["stolen_ns"]] == [16, 16]
    seq = doc["sequential"]
    assert seq["looks_planned"] == [8, 12, 18, 24]
    assert seq["decision"] in ("slowdown", "agent", "equivalent", "undecided")
    looked = [look["pairs"] for look in seq["looks"]]
    # The planned looks in turn; the last may come early when --max, wall time,
    # ran out first (MPI's start-up counts: how soon depends on this machine),
    # and on a start slow enough to leave fewer than 3 pairs there is none.
    assert looked or seq["decision"] == "undecided"
    assert looked[:-1] == seq["looks_planned"][: len(looked) - 1]
    assert looked == sorted(set(looked)) and looked[-1:] <= seq["looks_planned"][-1:]
    # The detector stops on a quartet's end after the decision (how many quartets
    # later depends on how fast this process reads its lines: not asserted).
    packets = len(doc["packets"])
    assert packets % 4 == 0 and 2 * max(looked, default=1) <= packets <= 48
    assert "until-decided: " in proc.stdout and "limit: " in proc.stdout


@pytest.mark.mpi
def test_the_python_api_runs_a_detector_and_gives_its_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import mpiscope

    monkeypatch.setenv("MPISCOPE_MPI", REAL_MPI)
    out = tmp_path / "api.json"
    run = mpiscope.noise_run(detector="barrier", np=2, packet="0.04s", packets=8,
                             design="alternate", block=2, groups=8, inject="50Hz:1ms",
                             out=out)
    assert capsys.readouterr().out == ""  # nothing printed unless show=True
    assert run.path == out and read(out) == run.document
    assert run.document["status"] == "complete" and len(run.document["packets"]) == 8
    verdict = run.verdict()
    assert verdict["kind"] == "noise-verdict" and verdict["baseline"]["n"] == 4
    assert mpiscope.noise_compare(out)["criteria"] == verdict["criteria"]
    assert "verdict: " in run.text() and "agent on" in run.text()
    old = tmp_path / "old.json"
    old.write_text("{}")
    with pytest.raises(mpiscope.MpiscopeError, match=r"old.json exists \(use --force"):
        mpiscope.noise_run(detector="barrier", np=2, out=old)


def test_the_python_api_refuses_bad_options_in_one_line(tmp_path: Path) -> None:
    import mpiscope

    with pytest.raises(mpiscope.MpiscopeError, match="invalid choice: 'nope'"):
        mpiscope.noise_run(detector="nope", np=2, out=tmp_path / "x.json")
    with pytest.raises(mpiscope.MpiscopeError, match=r"mpiscope.noise_run\(\): unknown option"):
        mpiscope.noise_run(detector="barrier", np=2, out=tmp_path / "x.json", packts=3)
    with pytest.raises(mpiscope.MpiscopeError, match="--block sizes the blocks"):
        mpiscope.noise_run(detector="barrier", np=2, block=2, out=tmp_path / "x.json")
    with pytest.raises(mpiscope.MpiscopeError, match="alpha=2 is not in"):
        mpiscope.noise_compare(tmp_path / "x.json", alpha=2)
    assert not (tmp_path / "x.json").exists()


@pytest.mark.mpi
def test_separate_design_runs_the_baseline_work_under_the_agent(tmp_path: Path) -> None:
    base, agent = tmp_path / "base.json", tmp_path / "agent.json"
    first = mpiscope("noise", "run", "--detector", "alltoall", "--np", "2", "--packet", "0.04s",
                     "--packets", "4", "--quiet", "--out", str(base), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = mpiscope("noise", "run", "--detector", "alltoall", "--np", "2", "--packet", "0.04s",
                      "--packets", "4", "--quiet", "--inject", "50Hz:1ms", "--same-as", str(base),
                      "--out", str(agent), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    setups = [read(path)["detector"] for path in (base, agent)]
    assert setups[0]["iterations_per_packet"] == setups[1]["iterations_per_packet"]
    assert setups[1]["calibration"] is None  # not calibrated again
    compare = mpiscope("noise", "compare", str(base), str(agent), cwd=tmp_path)
    assert compare.returncode in (0, 1), compare.stderr
    assert "verdict:" in compare.stdout


@pytest.mark.mpi
def test_an_injector_pinned_with_at_core_keeps_its_core(tmp_path: Path) -> None:
    out = tmp_path / "at.json"
    proc = mpiscope("noise", "run", "--detector", "barrier", "--np", "2", "--layout", "C",
                    "--inject", f"50Hz:1ms@{CORES[0]}", "--packet", "0.04s", "--packets", "3",
                    "--quiet", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    agent = read(out)["agent"]
    assert agent["core"] == CORES[0] and agent["cpus_allowed"] == [CORES[0]]


@pytest.mark.mpi
def test_probe_covers_every_core_with_the_three_probes(tmp_path: Path) -> None:
    out = tmp_path / "probe.json"
    proc = mpiscope("noise", "probe", "--np", "2", "--seconds", "0.6", "--out", str(out),
                    cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = read(out)
    assert doc["kind"] == "noise-probe"
    assert sorted(w["core"] for w in doc["workers"]) == CORES[:2]
    for worker in doc["workers"]:
        assert {"fwq", "ftq", "selfish"} <= set(worker)
    assert (tmp_path / "probe.raw").is_dir()


@pytest.mark.mpi
def test_inject_around_a_command_reports_what_it_burnt(tmp_path: Path) -> None:
    proc = mpiscope("noise", "inject", "--hz", "50", "--burst", "1ms", "--core", str(CORES[0]),
                    "--", "sleep", "0.3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "bursts" in proc.stderr and "CPU burnt" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--detector", "barrier", "--np", "2", "--layout", "B", "--inject", "10Hz:1ms",
          "--out", "x.json"], "layout B"),
        (["run", "--detector", "barrier", "--np", "2", "--packet", "soon", "--out", "x.json"],
         "--packet"),
        (["run", "--detector", "barrier", "--np", "2", "--design", "alternate",
          "--out", "x.json"], "switches an agent"),
        (["compare", "missing.json"], "missing.json"),
        (["inject", "--hz", "10", "--burst", "200ms"], "does not fit"),
        (["probe", "--cores", "999", "--out", "p.json"], "not online"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    proc = mpiscope("noise", *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in one_error_line(proc.stderr)
