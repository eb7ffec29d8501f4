"""mpiscope.load: result documents as pandas DataFrames."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import mpiscope
from mpiscope.errors import MpiscopeError
from mpiscope.result import Result
from mpiscope.result.frame import POINT_COLUMNS, RAW_COLUMNS, raw_frame

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def doc(name: str) -> dict:
    data: dict = json.loads((GOLDEN / f"{name}.json").read_text())
    return data


def test_one_row_per_point_with_units_in_names_and_attrs() -> None:
    df = mpiscope.load(GOLDEN / "default.json")
    points = doc("default")["points"]
    assert list(df.columns) == [name for name, _unit in POINT_COLUMNS]
    assert len(df) == len(points)
    assert df.attrs["units"]["median_ns"] == "ns"
    assert df.attrs["units"]["size_bytes"] == "bytes"
    assert df.attrs["units"]["rse"] == "1"
    assert "op" not in df.attrs["units"]
    for name, unit in df.attrs["units"].items():
        assert name.endswith({"ns": "_ns", "bytes": "_bytes"}.get(unit, "")), name
    assert df.attrs["environment"]["timer"]["name"] == "tsc"
    assert df.attrs["method"]["name"] == "window"
    assert df.attrs["varied"] == "size"
    row = df[(df.op == "bcast") & (df.size_bytes == 1024)].iloc[0]
    source = next(p for p in points if p["op"] == "bcast" and p["size_bytes"] == 1024)
    assert row.median_ns == source["median_ns"]
    assert row.ci_high_ns == source["ci_high_ns"]
    assert row.start_skew_median_ns == source["start_skew"]["median_ns"]
    assert row.method == "window"
    assert pd.isna(row.run)


def test_columns_have_honest_types() -> None:
    df = mpiscope.load(GOLDEN / "default.json")
    assert df["size_bytes"].dtype == "Int64"
    assert df["median_ns"].dtype == "float64"
    assert df["unstable"].dtype == "boolean"
    barrier = df[df.op == "barrier"].iloc[0]
    assert pd.isna(barrier.size_bytes)  # no size: missing, not 0
    unstable = df[df.unstable]
    recorded = [p for p in doc("default")["points"] if p["unstable"]]
    assert sorted(unstable.unstable_reasons) == sorted(",".join(p["unstable_reasons"])
                                                       for p in recorded)  # fmt: skip
    assert sorted(unstable.size_bytes.dropna().tolist()) == sorted(
        p["size_bytes"] for p in recorded if p["size_bytes"] is not None)


def test_attrs_do_not_share_the_document() -> None:
    df = mpiscope.load(GOLDEN / "default.json")
    df.attrs["environment"]["hosts"].append("changed")
    assert mpiscope.load(GOLDEN / "default.json").attrs["environment"]["hosts"] == ["vm"]


def test_raw_rows_per_launch_and_rank() -> None:
    source = doc("raw-a")
    df = mpiscope.load(GOLDEN / "raw-a.json", raw=True)
    assert list(df.columns) == [name for name, _unit in RAW_COLUMNS]
    expected = sum(
        len(p["raw"]["time_ns"]) * len(p["raw"]["start_ns"][0]) for p in source["points"]
    )
    assert len(df) == expected
    first = source["points"][0]
    rows = df[(df.point == 0) & (df.launch_index == 3)]
    assert rows["rank"].tolist() == [0, 1]
    starts = first["raw"]["start_ns"][3]
    ends = first["raw"]["end_ns"][3]
    assert rows.start_ns.tolist() == starts
    assert rows.duration_ns.tolist() == [e - s for s, e in zip(starts, ends, strict=True)]
    assert rows.start_skew_ns.iloc[0] == max(starts) - min(starts)
    assert rows.time_ns.iloc[0] == first["raw"]["time_ns"][3]
    assert bool(rows.valid.iloc[0]) is first["raw"]["valid"][3]
    invalid = sum(v is False for p in source["points"] for v in p["raw"]["valid"])
    assert (~df.valid).sum() == invalid * 2


def test_raw_without_per_rank_times_gives_one_row_per_launch() -> None:
    # Schema 1.0 requires start_ns/end_ns; a later 1.x may make them optional.
    data = doc("raw-a")
    for point in data["points"]:
        point["raw"]["start_ns"] = []
        point["raw"]["end_ns"] = []
    df = raw_frame(Result(data))
    assert len(df) == sum(len(p["raw"]["time_ns"]) for p in data["points"])
    assert df["rank"].isna().all()
    assert df["start_skew_ns"].isna().all()


def test_raw_of_a_document_without_raw_samples_is_an_error() -> None:
    with pytest.raises(MpiscopeError, match=r"no raw samples \(measure with mpiscope run --raw\)"):
        mpiscope.load(GOLDEN / "default.json", raw=True)


def test_method_and_run_columns(tmp_path: Path) -> None:
    methods = mpiscope.load(GOLDEN / "methods.json")
    assert set(methods.method) == {"window", "roundtime", "barrier", "root"}
    # A point without "method" (a document of schema 1.0) is the window method.
    old = doc("methods")
    old["points"] = [p for p in old["points"] if p.get("method") == "window"]
    for point in old["points"]:
        del point["method"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert set(mpiscope.load(path).method) == {"window"}
    runs = mpiscope.load(GOLDEN / "runs.json")
    assert sorted(set(runs.run.tolist())) == [0, 1, 2]
    assert len(runs.attrs["run_summary"]) == len(doc("runs")["run_summary"])


def test_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="no such file"):
        mpiscope.load(tmp_path / "nope.json")


def test_load_is_exported_and_importing_mpiscope_stays_light() -> None:
    assert "load" in mpiscope.__all__
    code = (
        "import sys, mpiscope; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'matplotlib', 'scipy', 'pyarrow'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cache_and_kind_columns(tmp_path: Path) -> None:
    data = doc("default")
    data["points"][1]["cache"] = "warm"
    first = {
        "op": "bcast",
        "kind": "firstcall",
        "size_bytes": 8,
        "nprocs": 2,
        "first_ns": [9000.0, 9100.0],
        "second_ns": [400.0, 410.0],
        "ratio_rank0": 22.5,
        "ratio_max": 22.2,
    }
    data["points"].append(first)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    df = mpiscope.load(path)
    assert df.loc[0, "cache"] == "cold"  # the document's mode
    assert df.loc[1, "cache"] == "warm"  # the point's own
    assert df.kind.tolist().count("measure") == len(data["points"]) - 1
    last = df.iloc[-1]
    assert last.kind == "firstcall" and pd.isna(last.median_ns) and pd.isna(last.unstable)


def test_run_interval_columns(tmp_path: Path) -> None:
    """A single run with the run profile folded in: its second interval
    (what another run would read) is in the table, missing elsewhere."""
    data = doc("default")
    data["schema_version"] = "1.5"
    point = data["points"][1]
    point["run_interval"] = {
        "confidence": 0.95, "low_ns": point["mean_ns"] * 0.9, "high_ns": point["mean_ns"] * 1.1,
        "error_ns": point["mean_ns"] * 0.1, "df": 4, "between_rsd": 0.035, "runs": 5,
        "measured_utc": "2026-11-24T08:00:00Z", "disagree": False}  # fmt: skip
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    df = mpiscope.load(path)
    assert df.loc[1, "run_error_ns"] == pytest.approx(point["mean_ns"] * 0.1)
    assert df.loc[1, "run_low_ns"] == point["run_interval"]["low_ns"]
    assert df.loc[1, "between_rsd"] == 0.035
    assert df.attrs["units"]["run_high_ns"] == "ns"
    assert pd.isna(df.loc[0, "run_error_ns"]) and pd.isna(df.loc[2, "between_rsd"])
