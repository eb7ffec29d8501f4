"""How the reports show a simulated run's points (issue 29): a point that
stopped at its exact value (stop reason ``deterministic``) has its value
and the word instead of mean ± E, and the notes say why; a point of that
rule whose launches differed has statistics, flagged. From the recorded
simulated run (tests/data/golden/simulated.json)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from mpiscope.reports import html
from mpiscope.reports.deterministic import deterministic_lines
from mpiscope.reports.method_compare import method_rows
from mpiscope.reports.report import render_report
from mpiscope.result import Result, parse_result

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "simulated.json"


def simulated() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(GOLDEN.read_text())
    return doc


def result(doc: dict[str, Any]) -> Result:
    return parse_result(json.dumps(doc), source="simulated.json")


def rows(text: str, op: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(op + " ")]


def test_exact_points_show_no_interval() -> None:
    doc = simulated()
    assert doc["method"]["stop_rule"] == "deterministic"
    assert all(p["stop_reason"] == "deterministic" for p in doc["points"])
    text = render_report(result(doc))
    table = rows(text, "bcast") + rows(text, "alltoall")
    assert len(table) == 4 and all("deterministic" in r and "±" not in r for r in table), table
    assert "E: half-width" not in text and "\u2020" not in text  # no interval, no tail mark
    assert "deterministic (4 of 4 points): the simulated clock has no noise" in text
    assert "one simulated clock for every rank, verified once" in text
    assert "floor        10 ns deterministic" in text
    page = html._result_html(0, "", result(doc), several=False)  # the page without its figures
    assert "deterministic (4 of 4 points)" in page and "E: half-width" not in page
    assert "5.65 us deterministic" in page


def test_a_point_whose_launches_differed_has_its_statistics_flagged() -> None:
    doc = simulated()
    point = doc["points"][0]
    point.update(stop_reason="target_error", error_ns=12.0, launches_total=18, launches_valid=18)
    text = render_report(result(doc))
    (row,) = rows(text, "bcast")[:1]
    assert "±" in row and "launches differed: statistics" in row
    lines = deterministic_lines(result(doc))
    assert lines[0].startswith("deterministic (3 of 4 points)")
    assert lines[1].startswith("launches differed (1 of 4 points, with statistics)")
    assert lines[1].endswith(": bcast 1 B")
    assert "E: half-width" in text


def test_an_error_rule_document_says_nothing_of_it() -> None:
    doc = copy.deepcopy(simulated())
    doc["method"]["stop_rule"] = "error"
    for point in doc["points"]:
        point.update(stop_reason="target_error", error_ns=1.0)
    assert deterministic_lines(result(doc)) == []
    assert "launches differed" not in render_report(result(doc))


def test_the_methods_table_shows_the_exact_value() -> None:
    doc = simulated()
    (row, *_) = method_rows(doc["points"])
    assert row.exact and row.mean_ns == doc["points"][0]["mean_ns"]
