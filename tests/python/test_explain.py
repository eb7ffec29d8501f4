"""The bias ledger (mpiscope explain), the clock's limit and the tails, on a
recorded real run (tests/data/ledger/bcast-pingpong.json: `mpiscope run
waitpattern_up,waitpattern_null,bcast,pingpong --np 2 --sizes 1,1K,64K,1M`,
MPICH 5.0.2 on the 2-core AMD EPYC VM, the ledger on) and on synthetic
series whose parts are known.

When a change to the views is deliberate, regenerate the expected texts:

    MPISCOPE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/python/test_explain.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.reports.html import render_html
from mpiscope.reports.ledger import closing_lines, explain_lines
from mpiscope.reports.report import render_report
from mpiscope.result import load_result, validate_result
from mpiscope.result.ledger import has_ledger, ledger_of, missing

DATA = Path(__file__).resolve().parents[1] / "data" / "ledger"
RUN = DATA / "bcast-pingpong.json"
UPDATE = os.environ.get("MPISCOPE_UPDATE_GOLDEN") == "1"


def golden(name: str, text: str) -> None:
    path = DATA / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed (see the module docstring to accept)"


def test_explain_of_a_recorded_run() -> None:
    result = load_result(RUN)
    golden("bcast-pingpong.explain.txt", "\n".join(explain_lines(result)) + "\n")
    golden("bcast-pingpong.report.txt", render_report(result, tails=True) + "\n")


def test_the_parts_add_up_and_the_ends_are_the_statistics_they_name() -> None:
    import numpy as np

    doc = json.loads(RUN.read_text())
    for point in doc["points"]:
        for ledger in ledger_of(point, resamples=50):
            total = ledger.mpiscope_ns - sum(p.ns for p in ledger.parts)
            assert abs(total - ledger.equivalent_ns) < 1e-6
            assert ledger.mpiscope_ns == pytest.approx(point["median_ns"], rel=1e-3)
            for part in ledger.parts:
                assert part.low_ns <= part.high_ns
        if point["op"] == "bcast":
            osu = next(x for x in ledger_of(point, resamples=0) if x.suite == "OSU")
            series = point["ledger"]["barrier_each"]["series"]["mean_ns"]
            assert osu.equivalent_ns == pytest.approx(float(np.mean(series)))
        if point["op"] == "pingpong":
            osu = ledger_of(point, resamples=0)[0]
            loop = point["ledger"]["loop"]["series"]
            firsts = set(loop["stage_first"])
            kept = [v for i, v in enumerate(loop["root_ns"]) if i not in firsts]
            assert osu.equivalent_ns == pytest.approx(float(np.mean(kept)) / 2)


def _point(warm_max: list[float], warm_mean: list[float] | None = None,
           barrier: list[float] | None = None) -> dict[str, Any]:
    """A bcast point whose companions read the given series."""
    def companion(values: list[float], mean: list[float] | None = None) -> dict[str, Any]:
        return {"method": "window", "cache": "warm", "series": {
            "launches": len(values), "max_ns": values, "mean_ns": values if mean is None else mean,
            "root_ns": values, "stage_first": [0]}}
    return {"op": "bcast", "size_bytes": 1, "nprocs": 2, "median_ns": 100.0, "ledger": {
        "main": {**companion([100.0] * 5), "first_launch_ns": 5000.0},
        "warm": companion(warm_max, warm_mean), "barrier_each": companion(barrier or [50.0] * 5),
        "loop": companion([40.0] * 5)}}


def test_known_series_give_known_parts() -> None:
    point = _point([80.0] * 5, [70.0] * 5, [60.0] * 4 + [65.0])
    osu, imb = ledger_of(point, resamples=20)
    assert [p.ns for p in osu.parts] == pytest.approx([20.0, 10.0, 0.0, 9.0])
    assert osu.equivalent_ns == pytest.approx(61.0)
    assert imb.equivalent_ns == pytest.approx(40.0)
    assert osu.parts[0].share == pytest.approx(0.2)
    assert "5 us" in osu.first_call_note and "100 calls" in osu.first_call_note
    floored = ledger_of(point, resamples=0, floor_ns=30.0)[0]
    assert floored.equivalent_ns == pytest.approx(91.0) and floored.parts[-1].ns == -30.0


def test_a_companion_without_launches_is_said() -> None:
    point = _point([])
    assert has_ledger(point) and missing(point) == ["warm"] and ledger_of(point) == []


def test_the_run_closes_with_the_short_form_and_html_has_the_sections() -> None:
    result = load_result(RUN)
    lines = closing_lines(result)
    assert any(line.startswith("  bcast 1 B, 2 ranks: mpiscope") for line in lines)
    assert any(line.startswith("  pingpong 1 MiB, 2 ranks: mpiscope") for line in lines)
    page = render_html([result])
    assert "Against OSU and IMB (the bias ledger)" in page and "<h3>Tails</h3>" in page
    assert "at the clock&#x27;s resolution" in page  # the warnings box says so


def test_a_1_6_document_validates_and_an_old_one_still_reads() -> None:
    validate_result(json.loads(RUN.read_text()), str(RUN))
    old = load_result(Path(__file__).resolve().parents[1] / "data" / "compat" / "result-1.0.json")
    assert "floor" not in render_report(old).split("\n\n")[0]
    assert explain_lines(old)[0].startswith("no point of this result has the ledger")


def test_explain_command(tmp_path: Path) -> None:
    def explain(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mpiscope", "explain", *args],
                              capture_output=True, text=True, timeout=60, check=False)
    run = explain(str(RUN), "--suite", "osu")
    assert run.returncode == 0 and "vs IMB" not in run.stdout and "vs OSU" in run.stdout
    bad = explain(str(RUN), "--suite", "mpiperf")
    assert bad.returncode == 2 and bad.stderr.startswith("mpiscope: error: ")
    assert len(bad.stderr.strip().splitlines()) == 1
    missing_file = explain(str(tmp_path / "none.json"))
    assert missing_file.returncode == 2 and len(missing_file.stderr.strip().splitlines()) == 1


@pytest.mark.mpi
def test_a_real_run_has_the_floor_the_companions_and_the_clock_limit(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "mpiscope", "run",
                          "waitpattern_null,bcast", "--np", "2", "--sizes", "1", "--floor",
                          "subtract", "--out", str(out), "--quiet"],
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == "1.13"
    if doc["floor"]["samples"]:
        assert doc["floor"]["subtracted"] is True and doc["floor"]["median_ns"] > 0
    else:  # a busy machine: no valid launch of the floor, and the run says so
        assert doc["floor"]["subtracted"] is False
        assert any("the floor was not measured" in w for w in doc["warnings"])
    step = doc["environment"]["timer"]["resolution_ns"]
    for point in doc["points"]:
        if point["trimmed_max_ns"] - point["trimmed_min_ns"] <= 1.25 * step:  # no dither
            assert point["error_floor_ns"] == pytest.approx(step / 2)
            assert point["error_ns"] >= point["error_floor_ns"]
        assert {"p90", "p99", "max_ns"} <= set(point["tail"])
    null, bcast = doc["points"]
    assert "ledger" not in null
    if doc["floor"]["subtracted"] and null["median_ns"] is not None:
        assert abs(null["median_ns"]) <= step  # net of the floor
    assert set(bcast["ledger"]) == {"main", "warm", "barrier_each", "loop"}
    least = doc["method"]["min_point_seconds"]  # the point's; a fifth for its companions
    for key in ("warm", "barrier_each", "loop"):
        assert bcast["ledger"][key]["min_point_seconds"] == pytest.approx(least / 5)
    assert "vs OSU (measured parts" in run.stdout and "floor" in run.stdout


@pytest.mark.mpi
def test_a_floor_that_could_not_be_measured_is_not_subtracted(tmp_path: Path) -> None:
    """1 ns windows: no launch keeps its window, so the floor has no value;
    the run says it subtracted nothing instead of claiming it did."""
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "mpiscope", "run", "waitpattern_null", "--np",
                          "2", "--sizes", "1", "--floor", "subtract", "--window-ns", "1",
                          "--max-launches", "20", "--min-valid", "2", "--out", str(out),
                          "--quiet"], capture_output=True, text=True, timeout=300,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["floor"]["samples"] == 0 and doc["floor"]["median_ns"] is None
    assert doc["floor"]["subtracted"] is False
    assert [w for w in doc["warnings"] if "floor" in w] == [
        "--floor subtract: the floor was not measured (no launch of waitpattern_null kept its "
        "window: a busy machine, or windows too short), so nothing was subtracted"]
