"""mpiscope export: flat tables in CSV, JSON and Parquet."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.reports.export import export_bytes
from mpiscope.result import load_result
from mpiscope.result.frame import POINT_COLUMNS, RAW_COLUMNS
from mpiscope_fakes import run_cli

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def doc(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return data


def test_csv_one_row_per_point_with_the_documents_numbers() -> None:
    text = export_bytes(load_result(GOLDEN / "default.json"), "csv").decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == [name for name, _unit in POINT_COLUMNS]
    points = doc("default")["points"]
    assert len(rows) == len(points)
    for row, point in zip(rows, points, strict=True):
        assert row["op"] == point["op"]
        assert float(row["median_ns"]) == point["median_ns"]  # no rounding on the way
        assert row["size_bytes"] == (
            "" if point["size_bytes"] is None else str(point["size_bytes"])
        )
        assert row["unstable"] == str(point["unstable"])
    assert rows[0]["run"] == "" and rows[0]["method"] == "window"


def test_json_rows_use_null_for_missing_values() -> None:
    rows = json.loads(export_bytes(load_result(GOLDEN / "runs.json"), "json"))
    points = doc("runs")["points"]
    assert len(rows) == len(points)
    barrier = next(r for r in rows if r["op"] == "barrier")
    assert barrier["size_bytes"] is None and barrier["root"] is None
    assert [r["run"] for r in rows] == [p["run"] for p in points]
    assert rows[3]["ci_low_ns"] == points[3]["ci_low_ns"]
    assert isinstance(rows[0]["unstable"], bool)


def test_parquet_keeps_types_and_metadata() -> None:
    data = export_bytes(load_result(GOLDEN / "methods.json"), "parquet")
    assert data[:4] == b"PAR1"
    df = pd.read_parquet(io.BytesIO(data))
    assert str(df["size_bytes"].dtype) == "Int64"
    assert df["median_ns"].tolist() == [p["median_ns"] for p in doc("methods")["points"]]
    assert df.attrs["units"]["median_ns"] == "ns"
    assert df.attrs["environment"]["mpi_implementation"] == "mpich"


def test_raw_export_one_row_per_launch_and_rank() -> None:
    text = export_bytes(load_result(GOLDEN / "raw-b.json"), "csv", raw=True).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == [name for name, _unit in RAW_COLUMNS]
    points = doc("raw-b")["points"]
    assert len(rows) == sum(len(p["raw"]["time_ns"]) * 2 for p in points)
    assert {r["rank"] for r in rows} == {"0", "1"}


def test_unknown_format_is_an_error() -> None:
    with pytest.raises(MpiscopeError, match="unknown export format 'xls'"):
        export_bytes(load_result(GOLDEN / "default.json"), "xls")


def test_cli_csv_to_stdout_and_files(tmp_path: Path) -> None:
    run = run_cli(["export", str(GOLDEN / "nprocs.json")])
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("point,op,method,cache,kind,run,size_bytes")
    assert len(run.stdout.splitlines()) == 1 + len(doc("nprocs")["points"])
    out = tmp_path / "t.parquet"
    run = run_cli(
        ["export", str(GOLDEN / "raw-a.json"), "--format", "parquet", "--raw", "-o", str(out)]
    )
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == str(out)
    assert len(pd.read_parquet(out)) == sum(
        len(p["raw"]["time_ns"]) * 2 for p in doc("raw-a")["points"]
    )


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--raw"], "has no raw samples (measure with mpiscope run --raw)"),
        (["--format", "parquet"], "--format parquet writes a binary file: give -o FILE"),
        (["--format", "xls"], "invalid choice: 'xls'"),
    ],
)
def test_cli_bad_input_is_one_line(args: list[str], fragment: str) -> None:
    run = run_cli(["export", str(GOLDEN / "default.json"), *args])
    assert run.code == 2 and len(run.err_lines) == 1, run
    assert run.err_lines[0].startswith("mpiscope: error: ") and fragment in run.err_lines[0]
    assert run.stdout == ""


def test_cli_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    source = tmp_path / "r.json"
    source.write_text((GOLDEN / "default.json").read_text())
    before = source.read_bytes()
    run = run_cli(["export", str(source), "--format", "json", "-o", str(source)])
    assert run.code == 2 and "is one of the inputs" in run.stderr
    assert source.read_bytes() == before
