"""Each thread's time and what the numbers depend on, in the report and
the HTML page (reports/parts.py), from a recorded run of thread_pingpong,
partitioned_pingpong and file_write (tests/data/threads-result.json,
tests/data/record.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from mpiscope.reports.html import render_html
from mpiscope.reports.parts import op_notes, parts_rows
from mpiscope.reports.report import render_report
from mpiscope.result import Result, load_result
from mpiscope.result.units import format_ns

RECORDED = Path(__file__).resolve().parents[1] / "data" / "threads-result.json"


def test_a_row_per_point_with_parts_from_its_threads() -> None:
    result = load_result(RECORDED)
    with_parts = [p for p in result.points if p.get("parts")]
    assert {p.op for p in with_parts} == {"thread_pingpong", "partitioned_pingpong"}
    rows = parts_rows(result)
    assert len(rows) == len(with_parts)
    for row, point in zip(rows, with_parts, strict=True):
        medians = [e["median_ns"] for e in point["parts"]["distribution"]]
        per_rank = point["parts"]["per_rank"]
        assert row[0] == point.op and row[2] == f"{per_rank} thread{'s' * (per_rank > 1)} per rank"
        if not medians:  # no valid launch: nothing to say of its threads
            assert row[3:7] == ["-", "-", "-", "-"]
            continue
        assert row[3].startswith(format_ns(min(medians)))
        assert row[4].startswith(format_ns(max(medians)))
        assert row[7].count(",") == len(medians) - 1  # each thread's median listed
    text = render_report(result)
    assert "threads: each thread's own time" in text
    page = render_html([result])
    assert "<h3>Threads</h3>" in page and "What the numbers depend on" in page


def test_notes_once_per_op_unless_they_differ() -> None:
    result = load_result(RECORDED)
    notes = op_notes(result.points)
    assert set(notes) == {p.op for p in result.points}
    io = dict(notes["file_write"])  # the last text of each name
    assert "file_system" in io and "hints" in io
    same = [k for k, _ in notes["file_write"]].count("file_system")
    assert same == 1  # the same file system at every size: said once
    per_size = [t for k, t in notes["file_write"] if k == "file"]
    assert len(per_size) == 2 and per_size[0].startswith("8 B: ")  # differs by size
    text = render_report(result)
    assert "what the numbers depend on" in text and "  file_write:" in text


def test_a_document_without_parts_or_notes_shows_neither(tmp_path: Path) -> None:
    doc: dict[str, Any] = copy.deepcopy(json.loads(RECORDED.read_text()))
    for point in doc["points"]:
        point.pop("parts", None)
        point.pop("notes", None)
    result = Result(doc, tmp_path / "x.json")
    assert parts_rows(result) == [] and op_notes(result.points) == {}
    text = render_report(result)
    assert "threads: each thread" not in text and "depend on" not in text
