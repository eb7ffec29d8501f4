"""Documents of older schema versions (tests/data/compat, never recorded
again) are read by every view: report, export, the figures, HTML, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpiscope.reports.compare import compare_results, render_comparison
from mpiscope.reports.export import export_bytes
from mpiscope.reports.html import render_html
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.report import render_report
from mpiscope.result import load_result

COMPAT = Path(__file__).resolve().parents[1] / "data" / "compat"
OLD = sorted(COMPAT.glob("result-*.json"))


def test_there_are_old_documents() -> None:
    assert {p.name for p in OLD} >= {"result-1.0.json", "result-1.1-launches.json",
                                     "result-1.10-launches.json"}


@pytest.mark.parametrize("path", OLD, ids=[p.name for p in OLD])
def test_every_view_reads_an_old_document(path: Path) -> None:
    doc = load_result(path)
    assert doc.schema_version in ("1.0", "1.1", "1.10")
    assert render_report(doc).startswith("MPI library ")
    assert export_bytes(doc, "csv").decode().count("\n") == len(doc.points) + 1
    assert plot_data([doc])
    assert "<html" in render_html([doc])
    assert render_comparison(compare_results(doc, doc))


@pytest.mark.parametrize("name", ["result-1.1-launches.json", "result-1.10-launches.json"])
def test_an_old_merged_document_is_read_with_its_runs_under_the_new_names(name: str) -> None:
    """Before 1.11 the runs of the bench were "launches": the loader renames
    every such field once, so the views see runs only; the engine's own
    launches (one timed execution each) keep their names."""
    old = json.loads((COMPAT / name).read_text(encoding="utf-8"))
    data = load_result(COMPAT / name).data
    assert not {"launches", "launch_summary", "launch_statistics", "launch_profile"} & set(data)
    assert [r["run"] for r in data["runs"]] == [r["launch"] for r in old["launches"]]
    assert [p["run"] for p in data["points"]] == [p["launch"] for p in old["points"]]
    assert all("launch" not in p for p in data["points"])
    assert [p["launches_valid"] for p in data["points"]] == [
        p["launches_valid"] for p in old["points"]]  # meaning (1): untouched
    rows, old_rows = data["run_summary"], old["launch_summary"]
    assert [r["runs"] for r in rows] == [r["launches"] for r in old_rows]
    assert [r.get("run_max_ns") for r in rows] == [r.get("launch_max_ns") for r in old_rows]
    assert "launches" not in json.dumps(rows)
    assert data.get("run_statistics") == old.get("launch_statistics")
    assert "runs" in render_report(load_result(COMPAT / name))


def test_the_old_option_names_still_work() -> None:
    """``--launches R`` is ``--runs R`` (not shown in the help), and
    ``--launch-profile`` is ``--run-profile``; the new name is the one the
    help and the Python API write."""
    from mpiscope.cli import build_parser

    parser = build_parser()
    for argv in (["run", "bcast", "--launches", "3"], ["startup", "--launches", "3"]):
        args = parser.parse_args(argv)
        assert args.runs == 3 and not hasattr(args, "launches")
    assert parser.parse_args(["run", "bcast", "--runs", "3"]).runs == 3
    assert parser.parse_args(["run", "bcast"]).runs == 1
    old = parser.parse_args(["run", "bcast", "--launch-profile", "off"])
    assert old.run_profile == "off"
    run_help = next(a for a in parser._actions if a.dest == "command").choices["run"].format_help()
    assert "--runs R" in run_help and "--launches" not in run_help
    assert "--run-profile" in run_help and "--launch-profile" not in run_help


def test_the_old_profile_names_are_still_read(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """$MPISCOPE_LAUNCH_PROFILE names the profile when $MPISCOPE_RUN_PROFILE
    does not, and a profile of before 1.11 (kind and ``launches``) is read,
    from the old default file name too."""
    from mpiscope.measure import run_profile

    monkeypatch.delenv("MPISCOPE_RUN_PROFILE", raising=False)
    monkeypatch.setenv("MPISCOPE_LAUNCH_PROFILE", str(tmp_path / "old.json"))
    assert run_profile.profile_path(None) == tmp_path / "old.json"
    monkeypatch.setenv("MPISCOPE_RUN_PROFILE", str(tmp_path / "new.json"))
    assert run_profile.profile_path(None) == tmp_path / "new.json"
    monkeypatch.delenv("MPISCOPE_RUN_PROFILE")
    monkeypatch.delenv("MPISCOPE_LAUNCH_PROFILE")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    default = run_profile.default_profile_path()
    assert default.name.startswith("run-variation-")
    old = default.with_name(default.name.replace("run-variation-", "launch-variation-"))
    old.parent.mkdir(parents=True)
    old.write_text(json.dumps({"kind": "mpiscope-launch-variation", "version": 1, "entries": [
        {"key": {"op": "bcast"}, "between_rsd": 0.1, "launches": 5,
         "measured_utc": "2026-11-24T08:00:00Z", "disagree": False}]}))
    profile = run_profile.read_profile(default)
    assert profile.problem is None
    (entry,) = profile.entries.values()
    assert entry["runs"] == 5 and "launches" not in entry


def test_the_python_api_still_takes_the_old_keywords() -> None:
    """``mpiscope.run(..., launches=3)`` is ``runs=3``, as on the command line."""
    from mpiscope.api.options import parse_options
    from mpiscope.measure.command_options import add_run_options

    new = parse_options("run", add_run_options, ["bcast"], {"runs": 3})
    old = parse_options("run", add_run_options, ["bcast"],
                        {"launches": 3, "launch_profile": "off"})  # fmt: skip
    assert new["runs"] == old["runs"] == 3 and old["run_profile"] == "off"
    assert new["argv"] == ["run", "bcast", "--runs=3"]  # the new name
